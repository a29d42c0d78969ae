import PDFDocument from "pdfkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, pathologist, signupPeople, strongPassword } from "../helpers/api";
import { openTestDb } from "../helpers/db";
import { samplePdf, uploadForm } from "../helpers/files";
import { labPdf, labPhoto, labPhotoAsSent, truthOf, type Truth } from "../helpers/lab-corpus";
import { Browserish, pageText, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/*
 * An upload read end to end (decision 0082), on the running built server with nothing seeded: the
 * patient uploads a text-layer lab PDF and a phone photo from the corpus made in code; the reader
 * job (the owner process, kicked by the upload) stores their values; the expert who took each
 * report sees them through GET /api/v1/report/{id}/observations as the corpus prints them, each
 * with its page and box, all unchecked ("read"). The patient's side sees none before the opinion
 * (decision 0084). A PDF that is not a lab report ends "not-lab" with no values; a truncated JPEG
 * is accepted or refused without a 5xx and its read never stays "reading". The database is only
 * read, for the job's status (lab_reads).
 */

let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
const api = () => apiClient(server.url);
const tok: Record<string, string> = {};
const ids: Record<string, string> = {};

type Value = {
  name: string;
  printedName: string;
  printedValue: string;
  printedUnit: string | null;
  rangeText: string | null;
  page: number | null;
  box: [number, number, number, number] | null;
  status: string;
};

const obs = (reportId: string) => `/report/${reportId}/observations` as never;

/** A one-page letter with a text layer and plenty of digits, but no lab values: read as text, not OCR. */
function letterPdf(): Promise<Buffer> {
  const doc = new PDFDocument({ size: "A4", margin: 50 });
  const chunks: Buffer[] = [];
  doc.on("data", (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((r) => doc.on("end", () => r(Buffer.concat(chunks))));
  doc.fontSize(11);
  for (const line of [
    "Sri Ram Clinic, 14 MG Road, Bengaluru 560001   Phone 080 2345 6789",
    "Date: 12 March 2026   Ref: 2026/0312/17",
    "Dear Dr Rao,",
    "Thank you for seeing Mrs Asha Devi, aged 54, whom I saw on 10 March 2026 at 10:30.",
    "She has felt tired for 3 months and walks 2 km a day. Please advise on further care.",
    "Follow-up on 24 March 2026. Yours sincerely, Dr K. Menon (KMC 45678)",
  ])
    doc.text(line);
  doc.end();
  return done;
}

async function upload(name: string, data: Buffer, type: string) {
  return api().call(
    "POST",
    "/report/upload-report",
    uploadForm({ reportType: "Blood Test", phoneNumber: "9876543210" }, { name, data, type }),
    tok.patient,
  );
}

async function readRow(reportId: string) {
  const db = await openTestDb(server.dataDir);
  try {
    return await db.get<{
      status: string;
      source: string | null;
      attempts: number;
      locked_until: unknown;
      last_error: string | null;
      next_attempt_at: unknown;
    }>(
      "select status, source, attempts, locked_until, last_error, next_attempt_at from lab_reads where report_id = ?",
      reportId,
    );
  } finally {
    await db.close();
  }
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const squash = (s: string | null) => (s ?? "").replace(/\s+/g, "");

/** The reader's value for a corpus row: the printed value, unit and range as the report prints them. */
function expectAsPrinted(values: Value[], truth: Truth) {
  const v = values.find((x) => x.name === truth.analyte);
  expect(v, `${truth.analyte} read`).toBeDefined();
  expect({
    analyte: truth.analyte,
    value: v!.printedValue,
    unit: v!.printedUnit,
    range: squash(v!.rangeText),
  }).toEqual({ analyte: truth.analyte, value: truth.value, unit: truth.unit, range: squash(truth.range) });
  expect(v!.status).toBe("read");
  expect(v!.page).toBe(1);
  expect(v!.box).toHaveLength(4);
  const [x, y, w, h] = v!.box!;
  expect(w).toBeGreaterThan(0);
  expect(h).toBeGreaterThan(0);
  expect(x + w).toBeLessThanOrEqual(1.0001);
  expect(y + h).toBeLessThanOrEqual(1.0001);
  return v!;
}

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    LAB_OCR: "1",
    SMTP_URL: smtp.url,
    RATE_LIMIT_DISABLED: "1",
    ADMIN_EMAIL: "admin@labread.test",
    ADMIN_PASSWORD: "Admin-pass-123",
  });
  const a = api();
  tok.admin = (
    await a.post("/auth/login", { email: "admin@labread.test", password: "Admin-pass-123" })
  ).body.token;
  await signupPeople(
    a,
    smtp,
    codeFrom,
    "labread.test",
    [
      ["patient", "Patient"],
      ["expert", "Expert", pathologist("KMC-82", 9)],
    ],
    { tok, ids },
  );
  expect((await a.post("/expert/approve-expert", { expertId: ids.expert }, tok.admin)).status).toBe(200);
  // In the order the reader takes them (oldest first): the lab reports, then what is not one.
  const photo = await labPhoto("two-column");
  for (const [key, name, data, type] of [
    ["pdf", "cbc.pdf", await labPdf("table"), "application/pdf"],
    // A report dated in its header, whose ranges are printed for men and women (decision 0089).
    ["dated", "kft.pdf", await labPdf("sex-lines"), "application/pdf"],
    // As the upload screen sends a phone photo: WebP, PHOTO_MAX_SIDE (1,800 px) on its long side.
    ["photo", "sugar.webp", await labPhotoAsSent("two-column"), "image/webp"],
    ["blank", "note.pdf", samplePdf("Please see the attached letter"), "application/pdf"],
    ["letter", "letter.pdf", await letterPdf(), "application/pdf"],
    // A photo cut off after its first 2 KB: still a JPEG to the type sniffing, no longer an image.
    ["cut", "cut.jpg", photo.subarray(0, 2048), "image/jpeg"],
  ] as const) {
    const res = await upload(name, data, type);
    if (key === "cut") {
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(500);
      if (res.status !== 201) continue;
    }
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    ids[key] = res.body.data._id;
  }
  for (const r of [ids.pdf, ids.photo])
    expect((await a.post(`/report/claim/${r}`, {}, tok.expert)).status).toBe(200);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

describe("a lab report uploaded over HTTP is read", () => {
  it("the expert holding the text PDF and the photo sees their values as printed, unchecked, with page and box", async () => {
    const a = api();
    const seen: Record<string, Value[]> = {};
    for (const key of ["pdf", "photo"]) {
      seen[key] = await until(
        `values of the ${key}`,
        async () => {
          const res = await a.get(obs(ids[key]), tok.expert);
          expect(res.status).toBe(200);
          const data = res.body.data as Value[];
          return data.length ? data : undefined;
        },
        40_000,
      );
      expect(await readRow(ids[key])).toMatchObject({
        status: "read",
        source: key === "pdf" ? "text" : "ocr",
        locked_until: null,
      });
    }
    // The text layer: every value of the panel, exactly as printed.
    const table = truthOf("table");
    expect(seen.pdf).toHaveLength(table.length);
    const boxes = table.map((t) => expectAsPrinted(seen.pdf, t).box!);
    // Each box is where its row is: the rows go down the page in the printed order.
    for (let i = 1; i < boxes.length; i++) expect(boxes[i][1]).toBeGreaterThan(boxes[i - 1][1]);
    // The photo (rotated, blurred, unevenly lit): values the bench reads exactly on it. (Which ones
    // moves with the OCR's scaling — decision 0089: HbA1c is no longer among them, total
    // cholesterol is; the floors in lab-reader.test.ts hold the accuracy, this file the pipeline.)
    const panel = truthOf("two-column");
    for (const analyte of ["Glucose fasting", "Total cholesterol", "Creatinine", "Urea"])
      expectAsPrinted(seen.photo, panel.find((t) => t.analyte === analyte)!);
    expect(seen.photo.every((v) => v.status === "read" && v.page === 1 && v.box)).toBe(true);
  }, 45_000);

  // Decision 0089: the sample's date printed in the header is kept with the read; a range printed
  // for men and women is kept whole, and with no sex recorded for her, no part of it is chosen.
  it("keeps the sample's date the header prints, and a range's parts whole", async () => {
    const row = await until(
      "the dated report read",
      async () => {
        const r = await readRow(ids.dated);
        return r && r.status === "read" ? r : undefined;
      },
      30_000,
    );
    expect(row).toMatchObject({ status: "read", source: "text" });
    const db = await openTestDb(server.dataDir);
    try {
      expect(await db.get("select sample_date from lab_reads where report_id = ?", ids.dated)).toEqual({
        sample_date: "2025-09-16",
      });
      expect(
        await db.get(
          "select printed_value, range_text, range_low, range_high from lab_values where report_id = ? and loinc = ?",
          ids.dated,
          "718-7",
        ),
      ).toEqual({
        printed_value: "13.8",
        range_text: "Male : 13.0 - 17.0 Female : 12.0 - 15.5",
        range_low: null,
        range_high: null,
      });
    } finally {
      await db.close();
    }
  });

  it("the patient's side sees none of them before the opinion", async () => {
    const a = api();
    for (const key of ["pdf", "photo"]) {
      const res = await a.get(obs(ids[key]), tok.patient);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([]);
    }
    // Nor her reports screen.
    const b = new Browserish(server.url);
    expect((await b.post("/login", { email: "patient@labread.test", password: strongPassword })).status).toBe(
      302,
    );
    const page = await b.fetch(`/dashboard/previous-report/${ids.patient}`);
    expect(page.status).toBe(200);
    const text = pageText(await page.text());
    expect(text).toContain("Blood Test"); // her reports are listed
    for (const t of [...truthOf("table"), ...truthOf("two-column")])
      expect(text).not.toContain(`${t.value} ${t.unit}`);
  });

  it("a PDF that is not a lab report ends not-lab, with no values", async () => {
    const a = api();
    for (const [key, source] of [
      ["blank", "ocr"],
      ["letter", "text"],
    ] as const) {
      const row = await until(
        `the ${key} read`,
        async () => {
          const r = await readRow(ids[key]);
          return r && r.status !== "queued" && r.status !== "reading" ? r : undefined;
        },
        30_000,
      );
      expect(row).toMatchObject({ status: "not-lab", source, locked_until: null });
      const res = await a.get(obs(ids[key]), tok.admin);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([]);
    }
  });

  it("a truncated JPEG never 5xx's and its read never stays reading", async () => {
    if (!ids.cut) return; // refused at upload (a 4xx, checked above)
    const row = await until(
      "the cut photo's first read",
      async () => {
        const r = await readRow(ids.cut);
        return r && r.attempts >= 1 && r.status !== "reading" ? r : undefined;
      },
      30_000,
    );
    expect(row.locked_until).toBeNull();
    // A file the tools refuse fails at once (decision 0082), saying why in a few words.
    expect(row.status).toBe("failed");
    expect(row.attempts).toBe(1);
    expect(row.last_error).toMatch(/^node exited with 1: unreadable image: /);
    expect(row.last_error!.length).toBeLessThan(200);
    const res = await api().get(obs(ids.cut), tok.admin);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
  });

  it("a PDF's page is rendered for the expert holding it, where its values were read; bad page numbers are refused", async () => {
    const page = (id: string, n: string, token?: string) =>
      fetch(`${server.url}/api/v1/report/${id}/pages/${n}`, {
        headers: token ? { Authorization: `Bearer ${token}` } : {},
      });
    const one = await page(ids.pdf, "1", tok.expert);
    expect(one.status).toBe(200);
    expect(one.headers.get("content-type")).toBe("image/jpeg");
    const bytes = Buffer.from(await one.arrayBuffer());
    expect(bytes.subarray(0, 2).toString("hex")).toBe("ffd8");
    expect(bytes.length).toBeGreaterThan(10_000);
    for (const bad of ["0", "x", "51", "1e3", "-1"])
      expect((await page(ids.pdf, bad, tok.expert)).status).toBe(400);
    expect((await page(ids.pdf, "2", tok.expert)).status).toBe(404); // a one-page PDF
    expect((await page(ids.photo, "1", tok.expert)).status).toBe(404); // a photo is its own page
    expect((await page(ids.pdf, "1")).status).toBe(401);
  });
});
