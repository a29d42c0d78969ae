import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { catalogueValue } from "../helpers/catalogue";
import type { UserRow } from "~/db/schema";
import type { Actor } from "~/domain/accounts/sessions.server";
import { parseEml, type Mail } from "../helpers/factories";
import { runScript } from "../helpers/scripts";

/*
 * The report, expert and audit domain against a real SQLite file, real encrypted files and
 * the real mail outbox (no SMTP_URL, so every message becomes an .eml file in data/outbox).
 * The environment is set before the modules are imported, because config() reads it once.
 */

type Mods = {
  users: typeof import("~/domain/accounts/users.server");
  reports: typeof import("~/domain/consultation/index.server");
  experts: typeof import("~/domain/accounts/experts.server");
  files: typeof import("~/domain/records/files.server");
  audit: typeof import("~/domain/platform/audit.server");
  client: typeof import("~/db/client.server");
  config: typeof import("~/config.server");
  messaging: typeof import("~/domain/messaging/index.server");
};
let m: Mods;
let tmp: string;
const APP_URL = "http://carebridge.test";
const MB = 1024 * 1024;

const actors: Record<string, Actor> = {};
let patientA: Actor;
let patientB: Actor;
let expert: Actor; // approved, English
let expertHi: Actor; // approved, Hindi
let pendingExpert: Actor; // not approved
let admin: Actor;

function asActor(u: UserRow): Actor {
  return {
    id: u.id,
    email: u.email,
    firstName: u.firstName,
    lastName: u.lastName,
    accountType: u.accountType,
    approved: u.approved,
    image: u.image,
    locale: u.locale,
    sessionId: "test",
  };
}

let seq = 0;
async function makeUser(
  accountType: "Patient" | "Expert" | "Admin",
  extra: { approved?: boolean; locale?: string; firstName?: string; lastName?: string } = {},
) {
  seq++;
  const row = await m.users.insertUser({
    email: `${accountType.toLowerCase()}${seq}-${randomBytes(3).toString("hex")}@example.test`,
    password: "correct horse battery",
    firstName: extra.firstName ?? `${accountType}${seq}`,
    lastName: extra.lastName ?? "Tester",
    accountType,
    approved: extra.approved,
    locale: extra.locale,
    // Only experts with a registration number can be approved.
    expert: accountType === "Expert" ? { registrationNumber: `REG-${seq}` } : undefined,
  });
  return asActor(row);
}

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "cb-reports-"));
  Object.assign(process.env, {
    DATA_DIR: path.join(tmp, "data"),
    UPLOADS_DIR: path.join(tmp, "uploads"),
    LOG_LEVEL: "silent",
    BCRYPT_COST: "4",
    APP_URL,
  });
  for (const k of [
    "DATABASE_URL",
    "SMTP_URL",
    "ENCRYPTION_KEY",
    "SESSION_SECRET",
    "ADMIN_EMAIL",
    "ADMIN_PASSWORD",
  ]) {
    delete process.env[k];
  }
  m = {
    users: await import("~/domain/accounts/users.server"),
    reports: await import("~/domain/consultation/index.server"),
    experts: await import("~/domain/accounts/experts.server"),
    files: await import("~/domain/records/files.server"),
    audit: await import("~/domain/platform/audit.server"),
    client: await import("~/db/client.server"),
    config: await import("~/config.server"),
    messaging: await import("~/domain/messaging/index.server"),
  };
  patientA = await makeUser("Patient", { firstName: "Asha", lastName: "Verma" });
  patientB = await makeUser("Patient", { firstName: "Bina", lastName: "Rao", locale: "hi" });
  expert = await makeUser("Expert", { approved: true, firstName: "Esha", lastName: "Doctor" });
  expertHi = await makeUser("Expert", {
    approved: true,
    locale: "hi",
    firstName: "Hari",
    lastName: "Vaidya",
  });
  pendingExpert = await makeUser("Expert", { approved: false, firstName: "Pen", lastName: "Ding" });
  admin = await makeUser("Admin", { firstName: "Ada", lastName: "Admin" });
  Object.assign(actors, { patientA, patientB, expert, expertHi, pendingExpert, admin });
});

afterAll(async () => {
  await new Promise((r) => setTimeout(r, 300)); // let background mail finish writing
  await m.client.closeDatabase();
  rmSync(tmp, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------
// helpers

function pdfBytes(size = 20_000) {
  const b = randomBytes(size);
  Buffer.from("%PDF-1.7\n").copy(b);
  return b;
}
const PNG_1PX = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);

async function* chunksOf(buf: Buffer, size = 8192) {
  for (let i = 0; i < buf.length; i += size) yield new Uint8Array(buf.subarray(i, i + size));
}

function store(bytes: Buffer = pdfBytes(), fileName = "report.pdf") {
  return m.files.storeUpload(chunksOf(bytes), { maxBytes: 10 * MB, allowed: "report", fileName });
}

const baseInput = {
  reportType: "Blood Test",
  description: "Haemoglobin looks low, please advise",
  phoneNumber: "98765 43210",
  countryCode: "+91",
};

async function upload(actor: Actor, input: Record<string, unknown> = {}, bytes?: Buffer) {
  const file = await store(bytes);
  return m.reports.createReport(actor, { ...baseInput, ...input }, file);
}

async function caught(fn: () => unknown): Promise<{ code?: string; message: string; extra?: any }> {
  try {
    await fn();
  } catch (err) {
    return err as { code?: string; message: string; extra?: any };
  }
  throw new Error("expected an error");
}

const page = (p = 1, pageSize = 20) => ({ page: p, pageSize });

async function collect(stream: Readable) {
  const parts: Buffer[] = [];
  for await (const c of stream) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

function encKeys() {
  return readdirSync(path.join(tmp, "uploads")).filter((n) => n.endsWith(".enc") || n.endsWith(".part"));
}

function dbRow(sql: string, ...params: unknown[]) {
  return m.client
    .sqliteConnection()!
    .prepare(sql)
    .get(...params) as Record<string, any> | undefined;
}

// --- reading the .eml outbox (parseEml: tests/helpers/factories.ts) ----------------------

const seenMail = new Set<string>();
function outbox(): Mail[] {
  const dir = m.config.config().outboxDir;
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => n.endsWith(".eml"))
    .map((n) => parseEml(path.join(dir, n)));
}

/** Waits for new (not yet consumed) mails to `to` matching `subject`; mail is sent in the background. */
async function mailsTo(to: string, subject: RegExp, count = 1, timeoutMs = 5000): Promise<Mail[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // Mail is queued in the outbox table (decision 0061); no sender runs here, so send what is due.
    await m.messaging.flushMail();
    const found = outbox().filter(
      (x) => !seenMail.has(x.file) && x.to.includes(to) && subject.test(x.subject),
    );
    if (found.length >= count || Date.now() > deadline) {
      found.forEach((x) => seenMail.add(x.file));
      return found;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function settleMail() {
  // Notifications are queued in the background: give them a moment, send them, then mark everything seen.
  await new Promise((r) => setTimeout(r, 300));
  await m.messaging.flushMail();
  outbox().forEach((x) => seenMail.add(x.file));
}

// ---------------------------------------------------------------------------------------

describe("uploading a report", () => {
  it("a patient files a report: stored row, encrypted file, audit event, normalised phone", async () => {
    const r = await upload(patientA, { phoneNumber: "98765-43210", countryCode: "+91" });
    expect(r).toMatchObject({
      reportType: "Blood Test",
      description: baseInput.description,
      phoneNumber: "+919876543210",
      status: "Pending",
      review: null,
      reportUrl: `/api/v1/report/${r._id}/file`,
      resourceType: "raw",
      mimeType: "application/pdf",
      fileName: "report.pdf",
      patient: { _id: patientA.id, firstName: "Asha", lastName: "Verma", email: patientA.email },
      expert: null,
      reviewedAt: null,
    });
    expect(new Date(r.createdAt).toISOString()).toBe(r.createdAt);
    const row = dbRow("SELECT * FROM reports WHERE id = ?", r._id)!;
    expect(row.consent_at).toBeGreaterThan(Date.now() - 60_000);
    expect(await m.files.storedExists(row.file_key)).toBe(true);
    expect(
      dbRow("SELECT * FROM audit_events WHERE action = 'report.upload' AND subject_id = ?", r._id),
    ).toMatchObject({
      actor_id: patientA.id,
      subject_type: "report",
    });

    const img = await upload(patientA, { phoneNumber: "+44 7700 900123", countryCode: undefined }, PNG_1PX);
    expect(img).toMatchObject({ phoneNumber: "+447700900123", resourceType: "image", mimeType: "image/png" });
    const plain = await upload(patientA, {
      phoneNumber: "9876543210",
      countryCode: undefined,
      description: "  ",
    });
    expect(plain).toMatchObject({ phoneNumber: "9876543210", description: null });
    await settleMail();
  });

  it("tells every approved expert, in their language, with no medical content", async () => {
    await settleMail();
    const r = await upload(patientB, { reportType: "Biopsy", description: "lump in left breast" });
    const [en] = await mailsTo(expert.email, /new report/i);
    expect(en).toBeDefined();
    expect(en.subject).toBe("A new report is waiting for review on CareBridge");
    expect(en.body).toContain(`${APP_URL}/dashboard/pending-report`);
    const [hi] = await mailsTo(expertHi.email, /CareBridge/);
    expect(hi).toBeDefined();
    expect(hi.subject).toBe("CareBridge पर एक नई रिपोर्ट समीक्षा की प्रतीक्षा में है");
    expect(hi.body).toContain(`${APP_URL}/dashboard/pending-report`);
    for (const mail of [en, hi]) {
      expect(mail.body).not.toMatch(/Biopsy|lump|breast|Bina|Rao/);
      expect(mail.body).not.toContain(r._id);
      expect(mail.body).not.toContain(patientB.email);
    }
    expect(await mailsTo(pendingExpert.email, /./, 1, 400)).toEqual([]);
    expect(await mailsTo(admin.email, /./, 1, 100)).toEqual([]);
  });

  it("only patients may upload; the stored file is removed whenever no row is written", async () => {
    const before = encKeys();
    for (const who of [expert, pendingExpert, admin]) {
      const file = await store();
      const err = await caught(() => m.reports.createReport(who, baseInput, file));
      expect(err).toMatchObject({ code: "forbidden", message: "reports.patientsOnly" });
      expect(await m.files.storedExists(file.key)).toBe(false);
    }
    expect(() => m.reports.assertCanUpload(expert)).toThrow(/reports.patientsOnly/);
    expect(() => m.reports.assertCanUpload(null)).toThrow(/loginFirstUpload/);
    expect(() => m.reports.assertCanUpload(patientA)).not.toThrow();

    // invalid fields
    const file = await store();
    const err = await caught(() =>
      m.reports.createReport(
        patientA,
        { reportType: "", phoneNumber: "", description: "x".repeat(2001) },
        file,
      ),
    );
    expect(err).toMatchObject({ code: "invalid", message: "reports.uploadFailed" });
    expect(err.extra.fieldErrors).toEqual({
      reportType: ["reports.reportTypeRequired"],
      phoneNumber: ["reports.phoneRequired"],
      description: ["reports.descriptionTooLong"],
    });
    expect(await m.files.storedExists(file.key)).toBe(false);

    // an adapter's stricter reading refused it (the screen: country code and consent required):
    // the file goes, and the errors come as createReport's own
    const file2 = await store();
    const err2 = await caught(() =>
      m.reports.refuseReportUpload(file2, {
        countryCode: ["reports.countryCodeRequired"],
        consent: ["reports.consentRequired"],
      }),
    );
    expect(err2).toMatchObject({ code: "invalid", message: "reports.uploadFailed" });
    expect(err2.extra.fieldErrors).toEqual({
      countryCode: ["reports.countryCodeRequired"],
      consent: ["reports.consentRequired"],
    });
    expect(await m.files.storedExists(file2.key)).toBe(false);
    const err2b = await caught(() =>
      m.reports.refuseReportUpload(null, { consent: ["reports.consentRequired"] }),
    );
    expect(err2b.extra.fieldErrors).toEqual({
      consent: ["reports.consentRequired"],
      report: ["reports.fileRequired"],
    });

    // no file at all
    const err3 = await caught(() =>
      m.reports.createReport(patientA, { ...baseInput, reportType: "Foo" }, null),
    );
    expect(err3.extra.fieldErrors).toEqual({
      reportType: ["reports.reportTypeInvalid"],
      report: ["reports.fileRequired"],
    });

    // a patient whose account (and so their profile) vanished: nobody to file it for → file removed
    const ghost: Actor = { ...patientA, id: "000000000000000000000000" };
    const file4 = await store();
    await expect(m.reports.createReport(ghost, baseInput, file4)).rejects.toMatchObject({
      message: "reports.uploadFailed",
      extra: { fieldErrors: { patientId: ["care.notYourPatient"] } },
    });
    expect(await m.files.storedExists(file4.key)).toBe(false);
    expect(encKeys()).toEqual(before);

    // everything the screen sends works
    const file5 = await store();
    const ok = await m.reports.createReport(
      patientA,
      { ...baseInput, reportType: "COVID-19 Test", countryCode: "+91", consent: "on" },
      file5,
    );
    expect(ok.reportType).toBe("COVID-19 Test");
    await settleMail();
  });
});

describe("lists", () => {
  it("a patient's own reports, newest first, paginated; others are refused", async () => {
    const p = await makeUser("Patient");
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await upload(p, { description: `n${i}` }))._id);
    const newestFirst = [...ids].reverse();

    const p1 = await m.reports.listPatientReports(p, p.id, page(1, 2));
    const p2 = await m.reports.listPatientReports(p, p.id, page(2, 2));
    const p3 = await m.reports.listPatientReports(p, p.id, page(3, 2));
    expect(p1).toMatchObject({ total: 5, page: 1, pageSize: 2 });
    expect([...p1.items, ...p2.items, ...p3.items].map((r) => r._id)).toEqual(newestFirst);
    expect(p3.items).toHaveLength(1);
    expect((await m.reports.listPatientReports(p, p.id, page(4, 2))).items).toEqual([]);
    expect(p1.items[0].fileViews).toEqual([]);

    expect((await m.reports.listPatientReports(admin, p.id, page())).total).toBe(5);
    for (const who of [patientA, expert, pendingExpert]) {
      await expect(m.reports.listPatientReports(who, p.id, page())).rejects.toThrow(/reports.notYourReports/);
    }
    await expect(m.reports.listPatientReports(admin, "nope", page())).rejects.toThrow(
      /reports.patientNotFound/,
    );
    expect(
      (await m.reports.listPatientReports(patientB, patientB.id, page())).items.every(
        (r) => r.patient._id === patientB.id,
      ),
    ).toBe(true);
    await settleMail();
  });

  it("pending reports: experts and admins only, masked for experts awaiting approval, filter by type", async () => {
    const r = await upload(patientA, { reportType: "Hearing Test" });
    await expect(m.reports.listPendingReports(patientA, page())).rejects.toThrow(/reports.expertsOrAdmins/);

    const clear = (await m.reports.listPendingReports(expert, page(1, 100))).items.find(
      (x) => x._id === r._id,
    )!;
    expect(clear.patient).toEqual({
      _id: patientA.id,
      firstName: "Asha",
      lastName: "Verma",
      email: patientA.email,
    });
    expect(clear.phoneNumber).toBe("+919876543210");
    expect(
      (await m.reports.listPendingReports(admin, page(1, 100))).items.find((x) => x._id === r._id)!.patient
        .firstName,
    ).toBe("Asha");

    const masked = await m.reports.listPendingReports(pendingExpert, page(1, 100));
    expect(masked.items.length).toBeGreaterThan(0);
    for (const item of masked.items) {
      expect(item.patient.firstName).toBe("******");
      expect(item.patient.lastName).toBe("");
      expect(item.patient.email).toBe("");
      expect(item.phoneNumber).toBe("**********");
    }
    expect(JSON.stringify(masked)).not.toContain(patientA.email);
    expect(JSON.stringify(masked)).not.toContain("Verma");

    const hearing = await m.reports.listPendingReports(expert, page(), "Hearing Test");
    expect(hearing.items.map((x) => x._id)).toEqual([r._id]);
    expect(hearing.total).toBe(1);
    const all = await m.reports.listPendingReports(expert, page(1, 100));
    const times = all.items.map((x) => x.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
    expect(all.items.every((x) => x.status === "Pending")).toBe(true);
    await settleMail();
  });

  it("totals stay exact across writes by this connection and by others", async () => {
    const patient = await makeUser("Patient");
    const total = async () => (await m.reports.listPatientReports(patient, patient.id, page())).total;
    const pendingTotal = async () => (await m.reports.listPendingReports(admin, page())).total;
    expect(await total()).toBe(0);
    const pending = await pendingTotal();
    const r = await upload(patient);
    expect(await total()).toBe(1);
    expect(await pendingTotal()).toBe(pending + 1);
    await m.reports.addReview(expert, r._id, { review: "fine" });
    expect(await pendingTotal()).toBe(pending);
    await m.reports.deleteReport(patient, r._id);
    expect(await total()).toBe(0);
    // Another connection (a script, a restore) changes the file under the app.
    const { default: Database } = await import("better-sqlite3");
    const other = new Database(m.config.config().databaseUrl);
    try {
      other
        .prepare(
          `INSERT INTO reports (id, patient_id, report_type, phone_number, file_key, file_name, mime_type, size, consent_at, created_at, updated_at)
           VALUES ('outside', ?, 'MRI', '+1', 'k', 'f.pdf', 'application/pdf', 1, 0, 0, 0)`,
        )
        .run(patient.id);
      expect(await total()).toBe(1);
      other.prepare("DELETE FROM reports WHERE id = 'outside'").run();
      expect(await total()).toBe(0);
    } finally {
      other.close();
    }
    await settleMail();
  });

  it("every list query is answered from an index: no table scan, no sort", async () => {
    // Lists skip the page query when there is nothing to show, so make sure there is.
    const r = await upload(patientA, { reportType: "MRI" });
    await upload(patientA, { reportType: "MRI" });
    await m.reports.addReview(expert, r._id, { review: "fine" });
    await m.audit.audit(admin, "account.nominee_add", "user", admin.id);
    // A fresh connection, so statements the domain prepares once per connection are seen here.
    await m.client.closeDatabase();
    const conn = m.client.sqliteConnection()!;
    const original = conn.prepare;
    const seen: string[] = [];
    conn.prepare = function (this: typeof conn, src: string) {
      seen.push(src);
      return original.call(this, src);
    } as typeof conn.prepare;
    try {
      await m.reports.listPatientReports(patientA, patientA.id, page());
      await m.reports.listPendingReports(expert, page());
      await m.reports.listPendingReports(expert, page(), "MRI");
      await m.reports.listReviewedByExpert(expert, page());
      await m.reports.listAllReviewed(admin, page());
      await m.experts.listPendingExperts(admin, page());
      await m.experts.listApprovedExperts(expert, page());
      await m.audit.listAuditEvents(admin, { ...page(), action: "report.upload" });
      await m.audit.listAuditEvents(admin, page());
      await m.audit.accessTrailsForReports([r._id], [r._id]);
    } finally {
      conn.prepare = original;
    }
    const selects = [...new Set(seen.filter((s) => /^select/i.test(s.trim())))];
    expect(selects.length).toBeGreaterThanOrEqual(17);
    for (const q of selects) {
      const params = (q.match(/\?/g) ?? []).map(() => 1);
      const plan = (conn.prepare(`EXPLAIN QUERY PLAN ${q}`).all(...params) as { detail: string }[]).map(
        (p) => p.detail,
      );
      if (/"audit_events"."subject_id" in/i.test(q)) {
        expect(plan.join("\n"), q).toMatch(/SEARCH audit_events USING INDEX audit_events_subject_idx/);
      }
      for (const line of plan) {
        expect(line, q).not.toMatch(/^SCAN (reports|users|audit_events|profiles|patient|expert)$/);
        expect(line, q).not.toMatch(/TEMP B-TREE/);
      }
    }
  });
});

describe("reviews", () => {
  it("only approved experts review; the first review wins; the patient is told without medical content", async () => {
    const r = await upload(patientB, { reportType: "ECG" });
    await settleMail();
    const review = { review: "Sinus rhythm, nothing alarming. Repeat in 6 months." };

    expect(await caught(() => m.reports.addReview(patientB, r._id, review))).toMatchObject({
      code: "forbidden",
      message: "reports.onlyExperts",
    });
    expect(await caught(() => m.reports.addReview(admin, r._id, review))).toMatchObject({
      code: "forbidden",
      message: "reports.onlyExperts",
    });
    expect(await caught(() => m.reports.addReview(pendingExpert, r._id, review))).toMatchObject({
      code: "forbidden",
      message: "reports.awaitApproval",
    });
    expect(
      (await caught(() => m.reports.addReview(expert, r._id, { review: "   " }))).extra.fieldErrors,
    ).toEqual({
      review: ["reports.reviewRequired"],
    });
    expect(
      (await caught(() => m.reports.addReview(expert, r._id, { review: "x".repeat(10_001) }))).extra
        .fieldErrors,
    ).toEqual({ review: ["reports.reviewTooLong"] });
    expect(await caught(() => m.reports.addReview(expert, "does-not-exist", review))).toMatchObject({
      code: "not_found",
    });

    const { reviewSchema } = await import("~/schemas/reports");
    expect(reviewSchema.safeParse({ review: "x".repeat(10_000) }).success).toBe(true);
    const done = await m.reports.addReview(expert, r._id, review);
    expect(done).toMatchObject({
      _id: r._id,
      status: "Reviewed",
      review: review.review,
      expert: { _id: expert.id, firstName: "Esha", lastName: "Doctor" },
    });
    expect(done.reviewedAt).not.toBeNull();
    expect(
      await caught(() => m.reports.addReview(expertHi, r._id, { review: "second opinion" })),
    ).toMatchObject({
      code: "conflict",
      message: "reports.alreadyReviewed",
    });
    expect(dbRow("SELECT review, expert_id FROM reports WHERE id = ?", r._id)).toEqual({
      review: review.review,
      expert_id: expert.id,
    });
    expect(
      dbRow("SELECT actor_id FROM audit_events WHERE action = 'report.review' AND subject_id = ?", r._id),
    ).toEqual({
      actor_id: expert.id,
    });

    // patientB reads Hindi
    const [mail] = await mailsTo(patientB.email, /CareBridge/);
    expect(mail).toBeDefined();
    expect(mail.subject).toBe("CareBridge पर आपकी रिपोर्ट की समीक्षा हो गई है");
    expect(mail.body).toContain(`${APP_URL}/dashboard/previous-report/${patientB.id}`);
    expect(mail.body).not.toMatch(/Sinus|ECG|Esha/);
    expect(await mailsTo(patientB.email, /./, 1, 300)).toEqual([]); // only one mail
  });

  it("concurrent reviews in one process: exactly one wins per report", async () => {
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push((await upload(patientA))._id);
    await settleMail();
    const attempts = ids.flatMap((id) =>
      [expert, expertHi, expert, expertHi].map((who, n) =>
        Promise.resolve().then(() => m.reports.addReview(who, id, { review: `opinion ${n}` })),
      ),
    );
    const results = await Promise.allSettled(attempts);
    const won = results.filter((x) => x.status === "fulfilled");
    expect(won).toHaveLength(ids.length);
    for (const x of results) {
      if (x.status === "rejected") expect(x.reason).toMatchObject({ code: "conflict" });
    }
    await settleMail();
  });

  it("concurrent reviews from separate processes (separate connections): exactly one wins per report", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await upload(patientA))._id);
    const experts = [expert, expertHi, await makeUser("Expert", { approved: true })];
    await settleMail();
    const startAt = Date.now() + 4000;
    const run = async (expertId: string) => {
      const { stdout } = await runScript("tests/helpers/review-worker.ts", [
        expertId,
        String(startAt),
        ...ids,
      ]);
      const line = stdout.split("\n").find((l) => l.startsWith("RESULT "));
      if (!line) throw new Error(`the worker gave no result: ${stdout}`);
      return JSON.parse(line.slice(7)) as Record<string, string>;
    };
    const results = await Promise.all(experts.map((e) => run(e.id)));
    for (const id of ids) {
      const outcomes = results.map((r) => r[id]);
      expect(
        outcomes.filter((o) => o === "ok"),
        id,
      ).toHaveLength(1);
      expect(outcomes.filter((o) => o !== "ok").every((o) => o === "conflict")).toBe(true);
      const winner = experts[outcomes.indexOf("ok")];
      expect(dbRow("SELECT expert_id, status FROM reports WHERE id = ?", id)).toEqual({
        expert_id: winner.id,
        status: "Reviewed",
      });
    }
    // one "reviewed" mail per report, not one per attempt
    const mails = await mailsTo(patientA.email, /reviewed/i, ids.length, 5000);
    expect(mails).toHaveLength(ids.length);
    expect(await mailsTo(patientA.email, /reviewed/i, 1, 500)).toEqual([]);
  }, 60_000);

  it("reviewed lists: an expert sees their own, an admin sees all with both names, newest review first", async () => {
    const e = await makeUser("Expert", { approved: true, firstName: "Ravi", lastName: "Kumar" });
    const mine: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await upload(patientA, { reportType: "MRI" });
      await m.reports.addReview(e, r._id, { review: `r${i}` });
      mine.push(r._id);
      await new Promise((res) => setTimeout(res, 2));
    }
    const own = await m.reports.listReviewedByExpert(e, page(1, 2));
    expect(own.total).toBe(3);
    expect(own.items.map((x) => x._id)).toEqual([mine[2], mine[1]]);
    expect((await m.reports.listReviewedByExpert(e, page(2, 2))).items.map((x) => x._id)).toEqual([mine[0]]);
    expect(own.items[0]).toMatchObject({
      status: "Reviewed",
      patient: { firstName: "Asha", lastName: "Verma", email: patientA.email },
      expert: { _id: e.id, firstName: "Ravi", lastName: "Kumar" },
    });
    expect((await m.reports.listReviewedByExpert(pendingExpert, page())).total).toBe(0);
    await expect(m.reports.listReviewedByExpert(patientA, page())).rejects.toThrow(/reports.expertsOrAdmins/);

    const all = await m.reports.listAllReviewed(admin, page(1, 100));
    expect(all.items.slice(0, 3).map((x) => x._id)).toEqual([...mine].reverse());
    expect(all.total).toBeGreaterThan(3);
    expect(all.items.every((x) => x.status === "Reviewed" && x.expert && x.patient.firstName)).toBe(true);
    expect((await m.reports.listReviewedByExpert(admin, page(1, 100))).total).toBe(all.total);
    for (const who of [patientA, expert, pendingExpert]) {
      await expect(m.reports.listAllReviewed(who, page())).rejects.toThrow(/reports.adminsOnly/);
    }
    await settleMail();
  });
});

describe("files of reports", () => {
  it("the owner, approved experts and admins open the file; each opening by staff shows in the patient's trail", async () => {
    const bytes = pdfBytes(150_000);
    const r = await upload(patientB, {}, bytes);
    const opened = await m.reports.openReportFile(patientB, r._id, "10.0.0.1");
    expect(opened).toMatchObject({ mimeType: "application/pdf", fileName: "report.pdf", size: bytes.length });
    expect((await collect(opened.stream)).equals(bytes)).toBe(true);

    expect(
      (await collect((await m.reports.openReportFile(expertHi, r._id, "10.0.0.2")).stream)).equals(bytes),
    ).toBe(true);
    await new Promise((res) => setTimeout(res, 2));
    expect((await collect((await m.reports.openReportFile(admin, r._id, null)).stream)).equals(bytes)).toBe(
      true,
    );

    expect(await caught(() => m.reports.openReportFile(patientA, r._id, null))).toMatchObject({
      code: "forbidden",
      message: "reports.notYourReport",
    });
    expect(await caught(() => m.reports.openReportFile(pendingExpert, r._id, null))).toMatchObject({
      code: "forbidden",
      message: "reports.awaitApprovalFile",
    });
    expect(await caught(() => m.reports.openReportFile(admin, "missing", null))).toMatchObject({
      code: "not_found",
    });

    expect(
      dbRow("SELECT ip FROM audit_events WHERE action = 'report.file_open' AND actor_id = ?", expertHi.id),
    ).toEqual({
      ip: "10.0.0.2",
    });
    const item = (await m.reports.listPatientReports(patientB, patientB.id, page(1, 100))).items.find(
      (x) => x._id === r._id,
    )!;
    expect(item.fileViews.map((v) => [v.viewerFirstName, v.viewerLastName, v.viewerAccountType])).toEqual([
      ["Ada", "Admin", "Admin"],
      ["Hari", "Vaidya", "Expert"],
    ]);
    expect(new Date(item.fileViews[0].at).toISOString()).toBe(item.fileViews[0].at);
    const { views, opens } = await m.audit.accessTrailsForReports([r._id, "other"], [r._id]);
    expect(views.get("other")).toEqual([]);
    expect(views.get(r._id)).toHaveLength(2);
    expect(opens.get(r._id)).toEqual([]);
    await settleMail();
  });

  it("delete: the owner or an admin; the row goes, then the file", async () => {
    const r1 = await upload(patientA);
    const r2 = await upload(patientA);
    const key1 = dbRow("SELECT file_key FROM reports WHERE id = ?", r1._id)!.file_key as string;
    const key2 = dbRow("SELECT file_key FROM reports WHERE id = ?", r2._id)!.file_key as string;

    for (const who of [patientB, expert, pendingExpert]) {
      expect(await caught(() => m.reports.deleteReport(who, r1._id))).toMatchObject({
        code: "forbidden",
        message: "reports.deleteNotAllowed",
      });
    }
    expect(await m.files.storedExists(key1)).toBe(true);

    await m.reports.deleteReport(patientA, r1._id, { ip: "10.1.1.1" });
    expect(dbRow("SELECT id FROM reports WHERE id = ?", r1._id)).toBeUndefined();
    expect(await m.files.storedExists(key1)).toBe(false);
    expect(
      dbRow(
        "SELECT actor_id, ip FROM audit_events WHERE action = 'report.delete' AND subject_id = ?",
        r1._id,
      ),
    ).toEqual({
      actor_id: patientA.id,
      ip: "10.1.1.1",
    });
    expect(await caught(() => m.reports.deleteReport(patientA, r1._id))).toMatchObject({ code: "not_found" });
    expect(await caught(() => m.reports.openReportFile(patientA, r1._id, null))).toMatchObject({
      code: "not_found",
    });

    await m.reports.deleteReport(admin, r2._id);
    expect(await m.files.storedExists(key2)).toBe(false);
    expect(
      (await m.reports.listPatientReports(patientA, patientA.id, page(1, 100))).items.some(
        (x) => x._id === r2._id,
      ),
    ).toBe(false);
    await settleMail();
  });

  it("the sweep keeps files that reports reference, however old", async () => {
    const r = await upload(patientA);
    const key = dbRow("SELECT file_key FROM reports WHERE id = ?", r._id)!.file_key as string;
    const result = await m.files.sweepLeftovers(Date.now() + 24 * 60 * 60 * 1000);
    expect(await m.files.storedExists(key)).toBe(true);
    expect(result.removedOrphans).toBe(0);
    await settleMail();
  });
});

describe("experts", () => {
  it("pending and approved expert lists: who may see them, newest first, no secrets", async () => {
    const a = await makeUser("Expert");
    await new Promise((res) => setTimeout(res, 2));
    const b = await makeUser("Expert");
    const pending = await m.experts.listPendingExperts(admin, page(1, 2));
    expect(pending.items.map((u) => u._id)).toEqual([b.id, a.id]);
    expect(pending.total).toBeGreaterThanOrEqual(3);
    expect(pending.items[0]).toMatchObject({ accountType: "Expert", approved: false, email: b.email });
    expect(pending.items[0]).toHaveProperty("additionalDetails");
    expect(JSON.stringify(pending)).not.toMatch(/passwordHash|password_hash|\$2[aby]\$|\$argon2/);
    for (const who of [expert, pendingExpert, patientA]) {
      await expect(m.experts.listPendingExperts(who, page())).rejects.toThrow(/experts.adminsOnly/);
    }

    const approved = await m.experts.listApprovedExperts(expert, page(1, 100));
    expect(approved.items.every((u) => u.approved && u.accountType === "Expert")).toBe(true);
    expect(approved.items.map((u) => u._id)).toEqual(expect.arrayContaining([expert.id, expertHi.id]));
    expect((await m.experts.listApprovedExperts(admin, page(1, 100))).total).toBe(approved.total);
    expect((await m.experts.listApprovedExperts(pendingExpert, page(1, 100))).total).toBe(approved.total);
    await expect(m.experts.listApprovedExperts(patientA, page())).rejects.toThrow(/experts.expertsOrAdmins/);
  });

  it("an admin approves an expert once: audit, mail in the expert's language, idempotent", async () => {
    await settleMail();
    const e = await makeUser("Expert", { locale: "hi" });
    for (const who of [expert, patientA, pendingExpert]) {
      await expect(m.experts.approveExpert(who, e.id)).rejects.toThrow(/experts.adminsOnly/);
    }
    await expect(m.experts.approveExpert(admin, "nobody")).rejects.toThrow(/experts.notFound/);
    await expect(m.experts.approveExpert(admin, patientA.id)).rejects.toThrow(/experts.notFound/);

    const user = await m.experts.approveExpert(admin, e.id, "10.9.9.9");
    expect(user).toMatchObject({ _id: e.id, approved: true, accountType: "Expert" });
    expect(user).not.toHaveProperty("passwordHash");
    expect((await m.experts.listPendingExperts(admin, page(1, 100))).items.some((u) => u._id === e.id)).toBe(
      false,
    );
    expect((await m.experts.listApprovedExperts(admin, page(1, 100))).items.some((u) => u._id === e.id)).toBe(
      true,
    );
    const [mail] = await mailsTo(e.email, /CareBridge/);
    expect(mail.subject).toBe("CareBridge पर आपका विशेषज्ञ खाता स्वीकृत हो गया है");
    expect(mail.body).toContain(`${APP_URL}/dashboard/pending-report`);

    // again: same answer, no second mail or audit event
    expect(await m.experts.approveExpert(admin, e.id)).toMatchObject({ approved: true });
    expect(await mailsTo(e.email, /./, 1, 400)).toEqual([]);
    expect(
      dbRow(
        "SELECT count(*) AS n, max(ip) AS ip FROM audit_events WHERE action = 'expert.approve' AND subject_id = ?",
        e.id,
      ),
    ).toEqual({ n: 1, ip: "10.9.9.9" });

    // once approved, the expert's next request (a fresh actor) may review and sees patients unmasked
    const fresh = asActor((await m.users.findUserById(e.id))!);
    const r = await upload(patientA);
    expect(
      (await m.reports.listPendingReports(fresh, page(1, 100))).items.find((x) => x._id === r._id)!.patient
        .firstName,
    ).toBe("Asha");
    expect((await m.reports.addReview(fresh, r._id, { review: "ok" })).status).toBe("Reviewed");
    await settleMail();
  });
});

describe("audit trail", () => {
  it("admins read it newest first, filtered by action, with the actor's name", async () => {
    const all = await m.audit.listAuditEvents(admin, page(1, 5));
    expect(all.items).toHaveLength(5);
    expect(all.total).toBeGreaterThan(5);
    const times = all.items.map((e) => e.createdAt);
    expect([...times].sort().reverse()).toEqual(times);

    await m.audit.audit(
      patientA,
      "account.nominee_change",
      "user",
      patientA.id,
      { via: "settings" },
      "127.0.0.1",
    );
    const latest = await m.audit.listAuditEvents(admin, { ...page(1, 1), action: "account.nominee_change" });
    expect(latest.total).toBe(1);
    expect(latest.items[0]).toMatchObject({
      action: "account.nominee_change",
      subjectType: "user",
      subjectId: patientA.id,
      detail: { via: "settings" },
      ip: "127.0.0.1",
      actor: {
        _id: patientA.id,
        firstName: "Asha",
        lastName: "Verma",
        email: patientA.email,
        accountType: "Patient",
      },
    });
    const opens = await m.audit.listAuditEvents(admin, { ...page(1, 100), action: "report.file_open" });
    expect(opens.items.every((e) => e.action === "report.file_open")).toBe(true);
    await m.audit.audit(null, "account.audit_prune", "audit", null);
    expect((await m.audit.listAuditEvents(admin, page(1, 1))).items[0]).toMatchObject({
      action: "account.audit_prune",
      actor: null,
    });

    for (const who of [patientA, expert, pendingExpert]) {
      await expect(m.audit.listAuditEvents(who, page())).rejects.toThrow(/audit.adminsOnly/);
    }
  });
});

describe("wording", () => {
  it("keeps the spec's exact English (typos included) and the 13 report types", async () => {
    const { default: en } = await import("~/i18n/locales/en");
    const { REPORT_TYPES, REPORT_TYPE_KEYS } = await import("~/schemas/reports");
    expect(en.reports).toMatchObject({
      uploadSuccess: "Report Submitted Succesfully",
      uploadFailed: "Could not Uplaod Report",
      reviewSuccess: "Review Added Successfully",
      noReportsForPatient: "No reports found for this patient.",
      noPendingReports: "No pending reports found",
      noReviewedReports: "No reviewed reports found",
      unknownReport: "Unknown Report",
      noDescription: "No description provided.",
      consentLabel:
        "I hereby give my consent for my medical report to be reviewed and used for medical consultation",
      consentRequired: "You must agree before submitting.",
      fileRequired: "Report file is required",
      countryCodeRequired: "Country code is required",
      phoneRequired: "Phone number is required",
      reportTypeRequired: "Report Type is required",
      reviewRequired: "Review is required",
      onlyExperts: "Only experts can add reviews",
      awaitApproval: "You do not have access to add a review. Please wait for admin approval.",
    });
    expect(en.experts).toMatchObject({
      approved: "Expert Approved!",
      noApproved: "No approved experts found",
      noPending: "No pending experts found",
    });
    expect(REPORT_TYPES).toEqual([
      "Blood Test",
      "X-Ray",
      "MRI",
      "CT Scan",
      "Urine Test",
      "ECG",
      "Ultrasound",
      "Biopsy",
      "Allergy Test",
      "Eye Exam",
      "Hearing Test",
      "Dental Checkup",
      "COVID-19 Test",
    ]);
    for (const type of REPORT_TYPES) expect(catalogueValue(en, REPORT_TYPE_KEYS[type])).toBe(type);
  });
});

describe("turnaround", () => {
  it("percentiles by nearest rank", async () => {
    const { percentile } = await import("~/domain/consultation/turnaround.server");
    expect(percentile([], 50)).toBeNull();
    expect(percentile([5], 90)).toBe(5);
    const xs = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(percentile(xs, 50)).toBe(5);
    expect(percentile(xs, 90)).toBe(9);
    expect(percentile(xs, 100)).toBe(10);
  });

  it("the overdue digest mails each admin once per newly overdue report, never twice, without medical content", async () => {
    const { sendOverdueDigest } = await import("~/domain/consultation/turnaround.server");
    const { reports } = await import("~/db/schema");
    const { eq } = await import("drizzle-orm");
    await settleMail();
    // Anything already overdue from earlier tests is reported first.
    await sendOverdueDigest();
    await settleMail();
    await mailsTo(admin.email, /overdue/, 99, 300);
    const old = await upload(patientA, { reportType: "MRI", description: "Severe headache" });
    const urgent = await upload(patientA, { reportType: "ECG", urgent: "true", urgentReason: "Chest pain" });
    const fresh = await upload(patientA, { reportType: "X-Ray" });
    const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000);
    await m.client
      .db()
      .update(reports)
      .set({ createdAt: hoursAgo(50) })
      .where(eq(reports.id, old._id));
    await m.client
      .db()
      .update(reports)
      .set({ createdAt: hoursAgo(13) })
      .where(eq(reports.id, urgent._id));
    await settleMail();
    expect(await sendOverdueDigest()).toBe(2);
    const [mail] = await mailsTo(admin.email, /2 reports are overdue/);
    expect(mail).toBeDefined();
    expect(mail.body).toMatch(/ECG \(urgent\): waiting 13 hours/);
    expect(mail.body).toMatch(/MRI: waiting 50 hours/);
    expect(mail.body).not.toMatch(/headache|Chest pain/);
    expect(mail.body).toContain(`${APP_URL}/dashboard/turnaround`);
    // The next hour: nothing new, nothing sent.
    expect(await sendOverdueDigest()).toBe(0);
    expect(await mailsTo(admin.email, /overdue/, 1, 400)).toEqual([]);
    expect(fresh.overdue).toBe(false);
    const t = await (await import("~/domain/consultation/turnaround.server")).getTurnaround(admin);
    expect(t.overdueReports.map((r) => r._id).slice(0, 2)).toEqual([urgent._id, old._id]);
    await expect(
      (await import("~/domain/consultation/turnaround.server")).getTurnaround(expert),
    ).rejects.toThrow(/reports.adminsOnly/);
  });
});
