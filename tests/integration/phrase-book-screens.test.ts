import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi, strongPassword, uploadSamplePdf } from "../helpers/api";
import { openTestDb, type TestDb } from "../helpers/db";
import { Browserish, pageText, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/*
 * The phrase book on the screens (decisions 0081, 0094), without JavaScript, against the built app:
 * a Hindi-speaking expert reads each sentence in Hindi with the Tamil the patient will read beside
 * it, and is never told a translation was reviewed when nobody checked it; an admin records who
 * checked a built-in sentence (then the picker says so) or retires one (then it is not offered);
 * the admin's phrase book says who reviewed each sentence in the screen's language.
 */

const ADMIN = { email: "admin@phrases.test", password: "Admin-pass-2026" };
let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let db: TestDb;
let admin: Browserish;
let expert: Browserish;
let reportId = "";

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    RATE_LIMIT_DISABLED: "1",
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
  });
  db = await openTestDb(server.dataDir, { write: true });
  const api = apiClient(server.url);
  const patient = await signupViaApi(api, smtp, codeFrom, {
    email: "selvi@phrases.test",
    firstName: "Selvi",
  });
  // Her profile's language: what she reads and hears.
  await db.run("UPDATE patients SET locale = 'ta' WHERE id = ?", patient.user._id);
  const up = await uploadSamplePdf(api, patient.token);
  expect(up.status, JSON.stringify(up.body)).toBe(201);
  reportId = up.body.data._id;
  const doctor = await signupViaApi(api, smtp, codeFrom, {
    email: "dr.verma@phrases.test",
    accountType: "Expert",
    firstName: "Anil",
    lastName: "Verma",
    extra: { specialties: ["General Medicine"], registrationNumber: "DMC-4411" },
  });
  await db.run(
    `UPDATE users SET approved = ${db.kind === "postgres" ? "true" : "1"} WHERE id = ?`,
    doctor.user._id,
  );
  expect((await api.post(`/report/claim/${reportId}`, {}, doctor.token)).status).toBe(200);
  expert = new Browserish(server.url);
  expect(
    (await expert.post("/login", { email: "dr.verma@phrases.test", password: strongPassword })).status,
  ).toBe(302);
  expert = expert.inLanguage("hi");
  admin = new Browserish(server.url);
  expect((await admin.post("/login", ADMIN)).status).toBe(302);
}, 120_000);

afterAll(async () => {
  await db?.close();
  await server?.stop();
  await smtp?.close();
});

/** The picker's entry for one sentence: its texts and what it says of the review. */
async function pickerEntry(id: string) {
  const html = await (await expert.fetch(`/dashboard/add-review/${reportId}`)).text();
  const picker = /data-testid="phrase-picker"[\s\S]*?<\/fieldset>/.exec(html)?.[0] ?? "";
  const entry =
    new RegExp(`<li>(?:(?!<li>)[\\s\\S])*?value="${id}"[\\s\\S]*?</li>`).exec(picker)?.[0] ?? null;
  return { picker: pageText(picker), entry: entry === null ? null : pageText(entry) };
}

describe("the expert's phrase picker", () => {
  it("shows each sentence in the expert's language with the patient's beside it, and no review that did not happen", async () => {
    const { picker, entry } = await pickerEntry("sugar-high");
    expect(entry).toContain("आपके खून में शुगर ज़्यादा है।");
    expect(entry).toContain("உங்கள் இரத்தத்தில் சர்க்கரை அதிகமாக உள்ளது.");
    expect(entry).toContain("अनुवाद अभी किसी चिकित्सक ने नहीं जाँचे");
    // Not in English on a Hindi screen, and no claim that every sentence was reviewed.
    expect(picker).not.toContain("Your blood sugar is high.");
    expect(picker).not.toMatch(/reviewed translation|समीक्षा किया हुआ अनुवाद/i);
    // Her language named in the expert's: तमिल, not தமிழ் or "Tamil" (decision 0108).
    expect(picker).toContain("मरीज़ तमिल में पढ़ेंगे");
    expect(picker).not.toContain("Tamil");
  });

  it("an admin records who checked a built-in sentence: the picker says so for that one only", async () => {
    const res = await admin.post("/dashboard/phrases", {
      intent: "review",
      id: "sugar-high",
      reviewedBy: "Dr Meena Iyer, MD (hi, ta)",
    });
    expect(res.status).toBe(302);
    expect(pageText(await (await admin.follow(res)).text())).toContain("Recorded who checked the sentence.");
    expect((await pickerEntry("sugar-high")).entry).toContain("अनुवाद Dr Meena Iyer, MD (hi, ta) ने जाँचे");
    expect((await pickerEntry("bp-high")).entry).toContain("अनुवाद अभी किसी चिकित्सक ने नहीं जाँचे");
    const [row] = await db.all<{ reviewed_by: string; recorded_by: string }>(
      "SELECT reviewed_by, recorded_by FROM built_in_phrases WHERE id = 'sugar-high'",
    );
    expect(row.reviewed_by).toBe("Dr Meena Iyer, MD (hi, ta)");
    expect(row.recorded_by).toBeTruthy();
  });

  it("bad input, an unknown sentence and an expert are refused with the reason; nothing is recorded", async () => {
    for (const [fields, said] of [
      [{ id: "bp-high", reviewedBy: " " }, "Say who reviewed the translations."],
      [{ id: "no-such-phrase", reviewedBy: "Dr X Y" }, "That phrase was not found."],
    ] as const) {
      const res = await admin.post("/dashboard/phrases", { intent: "review", ...fields });
      expect(res.status).toBe(302);
      expect(pageText(await (await admin.follow(res)).text())).toContain(said);
    }
    const byExpert = await expert.post("/dashboard/phrases", {
      intent: "review",
      id: "bp-high",
      reviewedBy: "Dr Anil Verma",
    });
    expect(byExpert.status).toBeLessThan(500);
    expect(byExpert.status).not.toBe(200);
    expect(await db.all("SELECT id FROM built_in_phrases WHERE id IN ('bp-high', 'no-such-phrase')")).toEqual(
      [],
    );
  });

  it("an admin retires a built-in sentence: it is no longer offered; twice is not found", async () => {
    expect((await pickerEntry("bp-high")).entry).not.toBeNull();
    const res = await admin.post("/dashboard/phrases", { intent: "retire", id: "bp-high" });
    expect(pageText(await (await admin.follow(res)).text())).toContain("The phrase was retired.");
    expect((await pickerEntry("bp-high")).entry).toBeNull();
    const again = await admin.post("/dashboard/phrases", { intent: "retire", id: "bp-high" });
    expect(pageText(await (await admin.follow(again)).text())).toContain("That phrase was not found.");
  });

  it("the admin's phrase book says who reviewed each sentence in the screen's language", async () => {
    const html = await (await admin.inLanguage("hi").fetch("/dashboard/phrases")).text();
    const text = pageText(html);
    expect(text).toContain("अनुवाद अभी किसी चिकित्सक ने नहीं जाँचे");
    expect(text).toContain("Dr Meena Iyer, MD (hi, ta)");
    expect(text).not.toContain("CareBridge built-in");
    expect(text).not.toContain("to be checked by a clinician");
  });
});
