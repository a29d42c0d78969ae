import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi, strongPassword } from "../helpers/api";
import { openTestDb } from "../helpers/db";
import { samplePdf, uploadForm } from "../helpers/files";
import { labPhotoAsSent } from "../helpers/lab-corpus";
import { Browserish, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/*
 * Lab values over HTTP (decision 0084): the expert holding a report confirms, corrects, removes
 * and adds values through /api/v1/report/{id}/observations; the patient's side gets nothing before
 * the opinion and only checked values after; her reports screen, in Hindi, says them in plain words
 * and charts an analyte found in two reports (SVG with a table), never an unchecked value.
 */

let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
const api = () => apiClient(server.url);
const tok: Record<string, string> = {};
const ids: Record<string, string> = {};

async function seed(
  reportId: string,
  rows: [id: string, loinc: string, value: number, range: string, low: number, high: number][],
) {
  const db = await openTestDb(server.dataDir, { write: true });
  try {
    for (const [id, loinc, value, range, low, high] of rows)
      await db.run(
        "insert into lab_values (id, report_id, loinc, printed_name, value, unit, printed_value, range_text, range_low, range_high, page, box, status, created_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        id,
        reportId,
        loinc,
        "Hb",
        value,
        loinc === "718-7" ? "g/dL" : "mg/dL",
        String(value),
        range,
        low,
        high,
        1,
        "[0.1,0.2,0.5,0.03]",
        "read",
        db.time(Date.now()),
      );
  } finally {
    await db.close();
  }
}

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    RATE_LIMIT_DISABLED: "1",
    ADMIN_EMAIL: "admin@labs.test",
    ADMIN_PASSWORD: "Admin-pass-123",
  });
  const a = api();
  tok.admin = (
    await a.post("/auth/login", { email: "admin@labs.test", password: "Admin-pass-123" })
  ).body.token;
  for (const [key, accountType, extra] of [
    ["patient", "Patient", undefined],
    [
      "expert",
      "Expert",
      {
        specialties: ["Pathology"],
        registrationNumber: "KMC-84",
        registrationCouncil: "Karnataka Medical Council",
        yearsOfPractice: 9,
      },
    ],
    [
      "other",
      "Expert",
      {
        specialties: ["Pathology"],
        registrationNumber: "KMC-85",
        registrationCouncil: "Karnataka Medical Council",
        yearsOfPractice: 4,
      },
    ],
  ] as const) {
    const r = await signupViaApi(a, smtp, codeFrom, {
      email: `${key}@labs.test`,
      accountType,
      extra: extra as never,
    });
    tok[key] = r.token;
    ids[key] = r.user._id;
  }
  for (const e of [ids.expert, ids.other])
    expect((await a.post("/expert/approve-expert", { expertId: e }, tok.admin)).status).toBe(200);
  const up = async () =>
    (
      await a.call(
        "POST",
        "/report/upload-report",
        uploadForm(
          { reportType: "Blood Test", phoneNumber: "9876543210" },
          { name: "cbc.pdf", data: samplePdf() },
        ),
        tok.patient,
      )
    ).body.data._id as string;
  ids.first = await up();
  ids.second = await up();
  await seed(ids.first, [["v-hb1", "718-7", 10.2, "12.0-15.5", 12, 15.5]]);
  await seed(ids.second, [
    ["v-hb2", "718-7", 9.8, "12.0-15.5", 12, 15.5],
    ["v-glu", "2345-7", 310, "70-140", 70, 140],
    ["v-cre", "2160-0", 0.9, "0.6-1.1", 0.6, 1.1],
    ["v-unchecked", "2093-3", 245, "< 200", 0, 200],
  ]);
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

describe("lab values over HTTP", () => {
  it("the holder confirms, corrects, removes and adds; the patient's side waits for the opinion", async () => {
    const a = api();
    const obs = (r: string) => `/report/${r}/observations` as never;
    for (const r of [ids.first, ids.second])
      expect((await a.post(`/report/claim/${r}`, {}, tok.expert)).status).toBe(200);
    const all = await a.get(obs(ids.second), tok.expert);
    expect(all.status).toBe(200);
    expect(all.body.data).toHaveLength(4);
    expect(all.body.data[0]).toMatchObject({ status: "read", page: 1, box: [0.1, 0.2, 0.5, 0.03] });
    const patch = (r: string, v: string, body: unknown) =>
      a.call("PATCH", `/report/${r}/observations/${v}` as never, body as never, tok.expert);
    expect((await patch(ids.first, "v-hb1", { action: "confirm" })).status).toBe(200);
    expect((await patch(ids.second, "v-hb2", { action: "confirm" })).status).toBe(200);
    const corrected = await patch(ids.second, "v-glu", {
      action: "correct",
      value: "130",
      unit: "mg/dL",
      range: "70-140",
    });
    expect(corrected.body.data).toMatchObject({ status: "corrected", value: 130, flag: null });
    expect((await patch(ids.second, "v-cre", { action: "remove" })).status).toBe(200);
    const bad = await patch(ids.second, "v-unchecked", { action: "correct", value: "lots", unit: "mg/dL" });
    expect(bad.status).toBe(400);
    expect(bad.body.success).toBe(false);
    const added = await a.post(
      obs(ids.second),
      { loinc: "4548-4", value: 8.1, unit: "%", range: "4.0 - 5.6" } as never,
      tok.expert,
    );
    expect(added.status).toBe(201);
    expect(added.body.data).toMatchObject({ status: "added", flag: "H" });
    expect((await a.get(obs(ids.second), tok.patient)).body.data).toEqual([]);
    for (const r of [ids.first, ids.second])
      expect(
        (
          await a.post(
            `/report/add-review/${r}`,
            { review: "See your doctor about the anaemia." },
            tok.expert,
          )
        ).status,
      ).toBe(200);
    const shown = (await a.get(obs(ids.second), tok.patient)).body.data as {
      loinc: string;
      status: string;
    }[];
    expect(shown.map((v) => v.loinc).sort()).toEqual(["2345-7", "4548-4", "718-7"]);
  });

  it("her reports screen in Hindi says the checked values in plain words and charts haemoglobin, never an unchecked value", async () => {
    const b = new Browserish(server.url);
    expect((await b.post("/login", { email: "patient@labs.test", password: strongPassword })).status).toBe(
      302,
    );
    const res = await b.follow(
      await b.post("/set-language", { lng: "hi", redirectTo: `/dashboard/previous-report/${ids.patient}` }),
    );
    expect(res.status).toBe(200);
    const html = await res.text();
    // Her name for the test beside the one her report prints (decision 0090).
    expect(html).toContain("हीमोग्लोबिन (Hb) 9.8 g/dL — आपकी रिपोर्ट पर छपी सीमा 12.0-15.5 से कम");
    expect(html).toContain("समय के साथ आपके मान");
    expect(html).toMatch(/<svg[^>]*viewBox/);
    expect(html).toMatch(/<table[\s\S]*10\.2 g\/dL[\s\S]*9\.8 g\/dL[\s\S]*<\/table>/);
    // The unchecked cholesterol (245 mg/dL) nowhere as a number of its own (an id or a drawn
    // coordinate may hold the digits 245).
    expect(html).not.toMatch(/(?<![\w.])245(?![\w.])/);
    expect(html).not.toContain("0.9 mg/dL");
  });

  it("the review screen's forms work without script for the holder, keep a refused number, and refuse anyone else", async () => {
    const screen = `/dashboard/add-review/${ids.second}`;
    const as = async (email: string) => {
      const b = new Browserish(server.url);
      expect((await b.post("/login", { email, password: strongPassword })).status).toBe(302);
      return b;
    };
    const status = async () =>
      (
        (await api().get(`/report/${ids.second}/observations` as never, tok.expert)).body.data as {
          _id: string;
          status: string;
        }[]
      ).find((v) => v._id === "v-unchecked")!.status;
    const expert = await as("expert@labs.test");
    const page = await (await expert.fetch(screen)).text();
    expect(page).toContain("Values read from this report");
    // A refused number: 400, said beside the field, and what was typed is in the form again.
    const refused = await expert.post(screen, {
      intent: "lab-check",
      valueId: "v-unchecked",
      action: "correct",
      value: "two hundred",
      unit: "mg/dL",
      range: "< 200",
    });
    expect(refused.status).toBe(400);
    const html = await refused.text();
    expect(html).toContain("Enter the value as a number, e.g. 9.8.");
    expect(html).toContain('value="two hundred"');
    expect(await status()).toBe("read");
    // Another approved expert, and the patient: refused, nothing changes.
    for (const email of ["other@labs.test", "patient@labs.test"]) {
      const res = await (
        await as(email)
      ).post(screen, { intent: "lab-check", valueId: "v-unchecked", action: "confirm" });
      expect(res.status).toBe(403);
      expect(await status()).toBe("read");
    }
    // The holder: one step, back to the screen at the value's own row (decision 0090).
    const ok = await expert.post(screen, { intent: "lab-check", valueId: "v-unchecked", action: "confirm" });
    expect(ok.status).toBe(302);
    expect(ok.headers.get("location")).toBe(`${screen}#lab-v-unchecked`);
    expect(await status()).toBe("confirmed");
  });

  it("a correction takes a range in parts whole, its part for her recorded sex, and keeps 7.0 as typed (decision 0105)", async () => {
    const a = api();
    const db = await openTestDb(server.dataDir, { write: true });
    try {
      await db.run("update patients set sex = ?, birth_year = ? where id = ?", "female", 1988, ids.patient);
    } finally {
      await db.close();
    }
    await seed(ids.first, [["v-cre2", "2160-0", 0.9, "0.6-1.1", 0.6, 1.1]]);
    const patch = (body: unknown) =>
      a.call("PATCH", `/report/${ids.first}/observations/v-cre2` as never, body as never, tok.expert);
    const range = "Male : 0.7 - 1.4 mg/dl Female : 0.6 - 1.2 mg/dl";
    const two = await patch({ action: "correct", value: "1.30", unit: "mg/dl", range });
    expect(two.status, JSON.stringify(two.body)).toBe(200);
    expect(two.body.data).toMatchObject({
      status: "corrected",
      value: 1.3,
      printedValue: "1.30",
      rangeText: range,
      rangeLow: 0.6,
      rangeHigh: 1.2,
      rangePart: "Female : 0.6 - 1.2",
      judgement: "above",
      flag: "H",
    });
    // The expert's screen shows the range whole, a part a line, the one for her marked in words.
    const b = new Browserish(server.url);
    expect((await b.post("/login", { email: "expert@labs.test", password: strongPassword })).status).toBe(
      302,
    );
    const html = (await (await b.fetch(`/dashboard/add-review/${ids.first}`)).text()).replace(
      /<!-- -->/g,
      "",
    );
    expect(html).toMatch(
      /<li[^>]*>Male : 0\.7 - 1\.4 mg\/dl<\/li><li[^>]*>Female : 0\.6 - 1\.2 mg\/dl<span[^>]*>For this patient<\/span><\/li>/,
    );
    expect(html).toContain("1.30 mg/dl");
    // Worded, with its unit inside; the value as a JSON number is kept as the number it is.
    const worded = await patch({ action: "correct", value: 1.1, unit: "mg/dL", range: "Up to 1.2 mg/dL" });
    expect(worded.body.data).toMatchObject({
      rangeLow: null,
      rangeHigh: 1.2,
      rangePart: null,
      judgement: "within",
    });
    const seven = await patch({ action: "correct", value: "7.0", unit: "mg/dL", range: "0.6 - 1.2" });
    expect(seven.body.data).toMatchObject({ value: 7, printedValue: "7.0" });
    // Listed again as stored.
    const listed = (await a.get(`/report/${ids.first}/observations` as never, tok.expert)).body.data as {
      _id: string;
      printedValue: string;
    }[];
    expect(listed.find((v) => v._id === "v-cre2")?.printedValue).toBe("7.0");
    // Not a range, and too long: 400 with the field's own message.
    for (const [bad, message] of [
      ["see the report", "Write the printed range as the report prints it"],
      [`${range} `.repeat(3), "The printed range can be at most 120 characters."],
    ]) {
      const refused = await patch({ action: "correct", value: "1.3", unit: "mg/dL", range: bad });
      expect(refused.status).toBe(400);
      expect(refused.body.errors.range[0]).toContain(message);
    }
  });
});

describe("a node with OCR turned off (LAB_OCR=0, as this suite's server)", () => {
  it("reads no picture: a phone photo's read fails at once as 'OCR not available', with no values", async () => {
    const a = api();
    const up = await a.call(
      "POST",
      "/report/upload-report",
      uploadForm(
        { reportType: "Blood Test", phoneNumber: "9876543210" },
        { name: "sugar.webp", data: await labPhotoAsSent("table"), type: "image/webp" },
      ),
      tok.patient,
    );
    expect(up.status, JSON.stringify(up.body)).toBe(201);
    const id = up.body.data._id as string;
    const db = await openTestDb(server.dataDir);
    try {
      const deadline = Date.now() + 20_000;
      let row: { status: string; last_error: string | null } | undefined;
      while (Date.now() < deadline) {
        [row] = await db.all<{ status: string; last_error: string | null }>(
          "select status, last_error from lab_reads where report_id = ?",
          id,
        );
        if (row?.status === "failed") break;
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(row).toEqual({ status: "failed", last_error: "OCR not available" });
      // A choice, not a fault: said at info; a missing Tesseract would be an error.
      expect(server.output()).toContain('"msg":"lab reader: OCR is turned off (LAB_OCR=0), not read"');
      expect(server.output()).not.toMatch(/"level":"error","msg":"lab reader/);
    } finally {
      await db.close();
    }
    const values = await a.get(`/report/${id}/observations`, tok.admin);
    expect(values.status).toBe(200);
    expect(values.body.data).toEqual([]);
  });
});
