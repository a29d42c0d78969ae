import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi, strongPassword } from "../helpers/api";
import { openTestDb, type TestDb } from "../helpers/db";
import { Browserish, pageText, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/*
 * "Call me" on the screens (decision 0080), without JavaScript, against the built app: the
 * patient's Settings, the family page (a choice per member without a login of their own) and the
 * health worker's page of a centre patient — one form posted with intent=calls. Who may set it is
 * the domain's (tests/domain/calls.test.ts, the API in the authorization matrix); here: the forms
 * save, say why when they cannot (no number for a call, a number not proven to be theirs, a value
 * not offered), change nothing then, and a forged patientId on the family page reaches no one
 * else's profile. A number typed by the person, a family manager or a centre is proven on the same
 * screen with the code sent to it by SMS before a call can be chosen (decision 0102).
 */

let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let db: TestDb;
const ids: Record<string, string> = {};
const browsers: Record<string, Browserish> = {};
const hex24 = () => randomBytes(12).toString("hex");
const year = new Date().getUTCFullYear();

async function signUp(role: string, firstName: string) {
  const api = apiClient(server.url);
  const email = `${role}-${hex24().slice(0, 6)}@notice.test`;
  const r = await signupViaApi(api, smtp, codeFrom, { email, accountType: "Patient", firstName });
  ids[role] = r.user._id;
  const b = new Browserish(server.url);
  expect((await b.post("/login", { email, password: strongPassword })).status).toBe(302);
  browsers[role] = b;
  return r.token as string;
}

/** A radio button of `value` that is checked, whatever the order of its attributes. */
const checkedRadio = (value: string) =>
  `<input(?=[^>]*type="radio")(?=[^>]*value="${value}")(?=[^>]*checked)[^>]*>`;

/** How the profile hears about an opinion, as stored. */
async function stored(patientId: string) {
  const [row] = await db.all<{ notice_by: string; call_window: string }>(
    "SELECT notice_by, call_window FROM patients WHERE id = ?",
    patientId,
  );
  return row;
}

/** The newest proof code texted to `e164` (the server's SMS outbox, as without SMS_URL). */
async function proofCodeTo(e164: string): Promise<string> {
  const dir = path.join(server.dataDir, "sms-outbox");
  const end = Date.now() + 5_000;
  for (;;) {
    const codes = (existsSync(dir) ? readdirSync(dir).sort() : [])
      .map((f) => {
        try {
          return JSON.parse(readFileSync(path.join(dir, f), "utf8"));
        } catch {
          return {};
        }
      })
      .filter((m) => m.to === e164 && m.purpose === "proof-code")
      .map((m) => /\b(\d{6})\b/.exec(m.text)?.[1]);
    if (codes.length) return codes[codes.length - 1]!;
    if (Date.now() > end) throw new Error(`no proof code to ${e164}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Proves the number a call would go to on the screen `where` (decision 0102): "Send a code", then
 * the code typed back. Each answer is a redirect back with its toast.
 */
async function proveOnScreen(who: string, where: string, e164: string, fields: Record<string, string> = {}) {
  const b = browsers[who];
  const sent = await b.post(where, { intent: "proof-send", ...fields });
  expect(sent.status).toBe(302);
  expect(pageText(await (await b.fetch(where)).text())).toContain("A code was sent to");
  const wrong = await b.post(where, { intent: "proof-check", code: "12", ...fields });
  expect(wrong.status).toBe(302);
  expect(pageText(await (await b.fetch(where)).text())).toContain("Type the 6 digits of the code.");
  const code = await proofCodeTo(e164);
  const right = await b.post(where, { intent: "proof-check", code, ...fields });
  expect(right.status).toBe(302);
  expect(pageText(await (await b.fetch(where)).text())).toContain("Proven: calls can now go to this number.");
}

/** Posts the calls form on `path` and reads the page the redirect leads to (its toast included). */
async function postCalls(who: string, path: string, fields: Record<string, string>) {
  const b = browsers[who];
  const res = await b.post(path, { intent: "calls", ...fields });
  expect(res.status, `${path}: ${res.status}`).toBe(302);
  expect(res.headers.get("Location")).toBe(path);
  return pageText(await (await b.fetch(path)).text());
}

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({ SMTP_URL: smtp.url, SMS_URL: "", RATE_LIMIT_DISABLED: "1" });
  db = await openTestDb(server.dataDir, { write: true });
  const father = await signUp("father", "Ramesh");
  await signUp("other", "Sunil");
  const api = apiClient(server.url);
  for (const [role, body] of [
    ["daughter", { firstName: "Meena", lastName: "Kumari", birthYear: year - 24, relationship: "daughter" }],
    ["son", { firstName: "Raju", age: 9, relationship: "son", guardianConsent: true }],
  ] as const) {
    const res = await api.post(
      "/family/members",
      { sex: "female", preferredLanguage: "hi", memberConsent: true, ...body },
      father,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    ids[role] = res.body.data._id;
  }
  // A health worker of a centre with a patient she registered (what the centre signup makes).
  await signUp("worker", "Asha");
  ids.centre = hex24();
  await db.run("INSERT INTO centres (id, name, kind) VALUES (?, 'HWC Rampur', 'hwc')", ids.centre);
  await db.run(
    `UPDATE users SET account_type = 'HealthWorker', approved = ${db.kind === "postgres" ? "true" : "1"} WHERE id = ?`,
    ids.worker,
  );
  await db.run("DELETE FROM patients WHERE id = ?", ids.worker);
  await db.run(
    "INSERT INTO health_workers (user_id, centre_id, role) VALUES (?, ?, 'asha')",
    ids.worker,
    ids.centre,
  );
  ids.kamla = hex24();
  await db.run(
    "INSERT INTO patients (id, first_name, last_name, birth_year, centre_id, registered_by, locale, phone, phone_owner) VALUES (?, 'Kamla', 'Devi', ?, ?, ?, 'hi', '+919812300001', 'self')",
    ids.kamla,
    year - 67,
    ids.centre,
    ids.worker,
  );
}, 120_000);

afterAll(async () => {
  await db?.close();
  await server?.stop();
  await smtp?.close();
});

describe("the family page: how each member hears about an opinion", () => {
  it("shows a folded choice for each member without a login, not for the account's own profile", async () => {
    const html = await (await browsers.father.fetch("/dashboard/family")).text();
    expect(html.match(/data-testid="member-notice"/g)).toHaveLength(2);
    const text = pageText(html);
    expect(text).toContain("How Meena Kumari hears that an opinion is ready");
    expect(text).toContain("How Raju hears that an opinion is ready");
    expect(html).toContain(`name="patientId" value="${ids.daughter}"`);
    expect(html).not.toContain(`name="patientId" value="${ids.father}"`);
    // Signed up by e-mail, the father gave his mobile number: his members would be called on it
    // (decision 0093) once it is proven (decision 0102), with a form to prove it under each.
    expect(text).toContain(
      "Calls for them would go to +91******3210, but it is not yet proven to be theirs, so only SMS can be chosen.",
    );
    expect(html.match(/data-testid="number-proof"/g)).toHaveLength(2);
  });

  it("a call needs a number: without one it is said once, with a link, and refused; with the family's number it is saved", async () => {
    const before = await stored(ids.daughter);
    // The father's number taken away: nothing to call his members on.
    await db.run("UPDATE users SET contact_number = '' WHERE id = ?", ids.father);
    const html = await (await browsers.father.fetch("/dashboard/family")).text();
    const said = "There is no phone number we can call for them yet, so only SMS can be chosen.";
    expect(pageText(html).split(said)).toHaveLength(3); // once for each of the two members
    expect(html.includes('href="/dashboard/settings#profile-heading"')).toBe(true);
    expect(/<input(?=[^>]*value="call")(?=[^>]*disabled)[^>]*>/.test(html)).toBe(true);
    let page = await postCalls("father", "/dashboard/family", {
      patientId: ids.daughter,
      noticeBy: "call",
      callWindow: "evening",
    });
    expect(page).toContain("Add a phone number first: a call needs one.");
    expect(await stored(ids.daughter)).toEqual(before);

    await db.run(
      "UPDATE patients SET phone = '+919812300002', phone_owner = 'family' WHERE id = ?",
      ids.daughter,
    );
    // A number the manager typed: not called until proven (decision 0102).
    page = await postCalls("father", "/dashboard/family", {
      patientId: ids.daughter,
      noticeBy: "call",
      callWindow: "evening",
    });
    expect(page).toContain("This number is not yet proven");
    expect(await stored(ids.daughter)).toEqual(before);
    await proveOnScreen("father", "/dashboard/family", "+919812300002", { patientId: ids.daughter });
    page = await postCalls("father", "/dashboard/family", {
      patientId: ids.daughter,
      noticeBy: "call",
      callWindow: "evening",
    });
    expect(page).toContain("Saved: this is how we will tell them.");
    expect(await stored(ids.daughter)).toEqual({ notice_by: "call", call_window: "evening" });
    const after = await (await browsers.father.fetch("/dashboard/family")).text();
    expect(after).toMatch(
      new RegExp(`value="${ids.daughter}"[^<]*/>(?:(?!name="patientId")[\\s\\S])*?${checkedRadio("call")}`),
    );
    // The son's choice is his own: untouched.
    expect(await stored(ids.son)).toMatchObject({ notice_by: "sms" });
  });

  it("a value not offered and a missing choice are refused with the reason; nothing changes", async () => {
    let page = await postCalls("father", "/dashboard/family", {
      patientId: ids.daughter,
      noticeBy: "fax",
      callWindow: "evening",
    });
    expect(page).toContain("Choose how we should tell you.");
    page = await postCalls("father", "/dashboard/family", { patientId: ids.daughter, noticeBy: "both" });
    expect(page).toContain("Choose when we may call.");
    expect(await stored(ids.daughter)).toEqual({ notice_by: "call", call_window: "evening" });
  });

  it("another patient's forged patientId, an unknown one and none at all reach no one's profile", async () => {
    const own = await stored(ids.other);
    for (const patientId of [ids.daughter, hex24(), ""]) {
      const page = await postCalls("other", "/dashboard/family", {
        patientId,
        noticeBy: "sms",
        callWindow: "afternoon",
      });
      expect(page).toContain("Patient not found");
      expect(page).not.toContain("Saved");
    }
    expect(await stored(ids.daughter)).toEqual({ notice_by: "call", call_window: "evening" });
    // None at all is not the poster's own profile either: that is set in Settings.
    expect(await stored(ids.other)).toEqual(own);
  });
});

describe("Settings and the centre patient's page", () => {
  it("Settings: a patient who signed up with an e-mail and gave her mobile number chooses a call in the evening: saved", async () => {
    // Her number is the one she gave at sign-up (9876543210), shown above the choice and called.
    // Not called until proven (decision 0102): refused with the reason, proven on the screen with the code.
    const before = pageText(await (await browsers.other.fetch("/dashboard/settings")).text());
    expect(before).toContain(
      "Calls would go to +91******3210, but it is not yet proven to be yours, so only SMS can be chosen.",
    );
    expect(before).not.toContain("There is no phone number");
    const refused = await browsers.other.post("/dashboard/settings", {
      intent: "calls",
      noticeBy: "call",
      callWindow: "evening",
    });
    expect(refused.status).toBe(400);
    // Said once, above the choices (as without a number), with the form to prove it.
    const refusedHtml = await refused.text();
    expect(pageText(refusedHtml).split("but it is not yet proven to be yours")).toHaveLength(2);
    expect(refusedHtml).toContain('data-testid="number-proof"');
    expect(await stored(ids.other)).toMatchObject({ notice_by: "sms" });
    await proveOnScreen("other", "/dashboard/settings", "+919876543210");
    expect(pageText(await (await browsers.other.fetch("/dashboard/settings")).text())).toContain(
      "Calls go to +91******3210.",
    );
    const page = await postCalls("other", "/dashboard/settings", { noticeBy: "call", callWindow: "evening" });
    expect(page).toContain("Saved: this is how we will tell you.");
    expect(page).not.toContain("Add a phone number first");
    expect(await stored(ids.other)).toEqual({ notice_by: "call", call_window: "evening" });
    await db.run("UPDATE users SET phone = '+919812300003' WHERE id = ?", ids.other);
    await postCalls("other", "/dashboard/settings", { noticeBy: "both", callWindow: "afternoon" });
    expect(await stored(ids.other)).toEqual({ notice_by: "both", call_window: "afternoon" });
  });

  it("Settings: with no number at all it is said once, with a link to add one, and a call cannot be chosen", async () => {
    await signUp("nonumber", "Lakshmi");
    await db.run("UPDATE users SET contact_number = '' WHERE id = ?", ids.nonumber);
    await db.run("UPDATE profiles SET contact_number = '' WHERE user_id = ?", ids.nonumber);
    const said = "There is no phone number we can call for you yet, so only SMS can be chosen.";
    const html = await (await browsers.nonumber.fetch("/dashboard/settings")).text();
    expect(pageText(html).split(said)).toHaveLength(2);
    const has = (re: RegExp) => re.test(html);
    expect(
      has(
        /<a[^>]*href="\/dashboard\/settings#profile-heading"[^>]*>Add your mobile number in your profile<\/a>/,
      ),
    ).toBe(true);
    for (const value of ["call", "both"])
      expect(has(new RegExp(`<input(?=[^>]*value="${value}")(?=[^>]*disabled)[^>]*>`)), value).toBe(true);
    expect(has(new RegExp(checkedRadio("sms")))).toBe(true);
    // Posted anyway (no browser would): refused, said once, nothing changed.
    const refused = await browsers.nonumber.post("/dashboard/settings", {
      intent: "calls",
      noticeBy: "both",
      callWindow: "afternoon",
    });
    expect(refused.status).toBe(400);
    const text = pageText(await refused.text());
    expect(text.split(said)).toHaveLength(2);
    expect(text).not.toContain("Add a phone number first");
    expect(await stored(ids.nonumber)).toMatchObject({ notice_by: "sms" });
  });

  it("the call windows in words, as people say them, in each language", async () => {
    const words = {
      en: ["In the morning, 9 to 12", "In the afternoon, 12 to 5", "In the evening, 5 to 8"],
      hi: ["सुबह 9 से 12 बजे", "दोपहर 12 से 5 बजे", "शाम 5 से 8 बजे"],
      bn: ["সকাল ৯টা থেকে ১২টা", "দুপুর ১২টা থেকে ৫টা", "সন্ধ্যা ৫টা থেকে ৮টা"],
      ta: ["காலை 9 முதல் 12 மணி வரை", "மதியம் 12 முதல் 5 மணி வரை", "மாலை 5 முதல் 8 மணி வரை"],
    };
    for (const [lng, want] of Object.entries(words)) {
      const text = pageText(await (await browsers.other.inLanguage(lng).fetch("/dashboard/settings")).text());
      for (const w of want) expect(text, lng).toContain(w);
      // The windows themselves, not the clock (the reminders' hour on the same page is a clock time).
      const windows = text.slice(text.indexOf(want[0]), text.indexOf(want[2]) + want[2].length);
      expect(windows, lng).not.toMatch(/17:00|20:00/);
    }
  });

  it("the centre's health worker sets it on the patient's page; a patient posting there changes nothing", async () => {
    const where = `/dashboard/centre/patients/${ids.kamla}`;
    // The number the centre registered is proven with her phone, on this page (decision 0102).
    expect(await postCalls("worker", where, { noticeBy: "call", callWindow: "morning" })).toContain(
      "This number is not yet proven",
    );
    await proveOnScreen("worker", where, "+919812300001");
    const page = await postCalls("worker", where, { noticeBy: "call", callWindow: "morning" });
    expect(page).toContain("Saved: this is how we will tell you.");
    expect(await stored(ids.kamla)).toEqual({ notice_by: "call", call_window: "morning" });
    const res = await browsers.father.post(where, {
      intent: "calls",
      noticeBy: "sms",
      callWindow: "evening",
    });
    expect(res.status).toBeLessThan(500);
    expect(await stored(ids.kamla)).toEqual({ notice_by: "call", call_window: "morning" });
  });
});
