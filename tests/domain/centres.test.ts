import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "~/domain/accounts/sessions.server";
import {
  PASSWORD,
  actorOf,
  claim,
  codeMailedTo,
  freshDomain,
  mailsTo,
  makeAdmin,
  makeExpert,
  makePatient,
  makeReport,
  newClient,
  pdfBytes,
  refusal,
  review,
  uniqueEmail,
  uniqueMobile,
  type Domain,
  type Person,
} from "../helpers/factories";

/*
 * Centres and health workers without HTTP: admins' centres (validation, who may), a health
 * worker's signup for a centre, approval (after which the upload rule lets them in), declining,
 * moving and suspending, and each centre's figures — checked against reports whose times are
 * known, with the Turnaround screen's own definitions.
 */

let d: Domain;
let care: typeof import("~/domain/care/index.server");
let figures: typeof import("~/domain/consultation/index.server");
let admin: Person;
let patient: Person;
let expert: Person;
beforeAll(async () => {
  d = await freshDomain();
  care = await import("~/domain/care/index.server");
  figures = await import("~/domain/consultation/index.server");
  admin = await makeAdmin();
  patient = await makePatient();
  expert = await makeExpert();
});
afterAll(() => d?.close());

const centreInput = (over: Record<string, unknown> = {}) => ({
  name: `PHC ${randomBytes(2).toString("hex")}`,
  kind: "phc",
  district: "Krishnagiri",
  state: "Tamil Nadu",
  pinCode: "635109",
  ...over,
});

async function healthWorker(centreId: string, approved = false) {
  const row = await d.accounts.insertUser({
    email: uniqueEmail("hw"),
    password: PASSWORD,
    firstName: "Lakshmi",
    lastName: "Devi",
    accountType: "HealthWorker",
    healthWorker: { centreId, role: "cho", workerId: "CHO-42" },
    approved,
  });
  return row;
}

/** The actor as a request would see them now (approval read afresh). */
async function fresh(id: string): Promise<Actor> {
  return actorOf((await d.accounts.findUserById(id))!);
}

describe("centres", () => {
  it("an admin creates and edits a centre; every field is checked with a message on its field", async () => {
    const c = await care.createCentre(
      admin,
      centreInput({ name: "  Ayushman Arogya Mandir, Hosur ", kind: "hwc" }),
    );
    expect(c).toMatchObject({ name: "Ayushman Arogya Mandir, Hosur", kind: "hwc", pinCode: "635109" });

    const bad = await refusal(() =>
      care.createCentre(admin, { name: "", kind: "hospital", district: "", state: "TN", pinCode: "63510" }),
    );
    expect(bad).toMatchObject({ code: "invalid" });
    expect(bad.extra.fieldErrors).toEqual({
      name: ["centres.nameRequired"],
      kind: ["centres.kindInvalid"],
      district: ["centres.districtRequired"],
      pinCode: ["centres.pinInvalid"],
    });
    expect(
      (await refusal(() => care.createCentre(admin, centreInput({ pinCode: "035109" })))).extra.fieldErrors,
    ).toEqual({ pinCode: ["centres.pinInvalid"] });

    const changed = await care.updateCentre(admin, c._id, { pinCode: "635110", kind: "phc" });
    expect(changed).toMatchObject({ name: "Ayushman Arogya Mandir, Hosur", kind: "phc", pinCode: "635110" });
    expect((await refusal(() => care.updateCentre(admin, c._id, {}))).extra.fieldErrors).toEqual({
      name: ["centres.nothingToChange"],
    });
    expect(await refusal(() => care.updateCentre(admin, "no-such-centre", { name: "X" }))).toMatchObject({
      code: "not_found",
    });

    // Audited as centre.* actions.
    const events = await d.db
      .db()
      .select()
      .from(d.schema.auditEvents)
      .where(eq(d.schema.auditEvents.subjectId, c._id));
    expect(events.map((e) => e.action).sort()).toEqual(["centre.create", "centre.update"]);

    // Anyone may read the directory (the signup form's select): no PIN, no dates.
    const dir = await care.centreDirectory();
    expect(dir.find((x) => x._id === c._id)).toEqual({
      _id: c._id,
      name: "Ayushman Arogya Mandir, Hosur",
      kind: "phc",
      district: "Krishnagiri",
      state: "Tamil Nadu",
    });
  });

  it("only admins manage centres", async () => {
    const c = await care.createCentre(admin, centreInput());
    const hw = await fresh((await healthWorker(c._id, true)).id);
    for (const who of [patient, expert, hw]) {
      expect(await refusal(() => care.createCentre(who, centreInput()))).toMatchObject({ code: "forbidden" });
      expect(await refusal(() => care.updateCentre(who, c._id, { name: "X" }))).toMatchObject({
        code: "forbidden",
      });
      expect(await refusal(() => figures.centreStats(who, c._id))).toMatchObject({ code: "forbidden" });
      expect(await refusal(() => care.listHealthWorkers(who, {}, { page: 1, pageSize: 5 }))).toMatchObject({
        code: "forbidden",
      });
    }
  });
});

describe("health workers", () => {
  it("sign up for a centre with their role and ID, and wait for approval", async () => {
    const { signupFormSchema } = await import("~/schemas/auth");
    const c = await care.createCentre(admin, centreInput({ kind: "hwc" }));
    const email = uniqueEmail("asha");
    const base = {
      accountType: "HealthWorker",
      firstName: "Sunita",
      lastName: "Kumari",
      email,
      contactNumber: "9876543210",
      password: PASSWORD,
      confirmPassword: PASSWORD,
    };
    // The screen's schema asks for the centre, role and ID.
    const missing = signupFormSchema.safeParse(base);
    expect(missing.success).toBe(false);
    expect(missing.error!.issues.map((i) => [i.path.join("."), i.message])).toEqual(
      expect.arrayContaining([
        ["centreId", "centres.centreRequired"],
        ["workerRole", "centres.roleRequired"],
        ["workerId", "centres.workerIdRequired"],
      ]),
    );
    // A patient is never refused over the health worker's fields, which the screen sends hidden.
    expect(
      signupFormSchema.safeParse({ ...base, accountType: "Patient", workerRole: "nurse", workerId: "#!" })
        .success,
    ).toBe(true);
    expect(
      signupFormSchema
        .safeParse({ ...base, centreId: c._id, workerRole: "nurse", workerId: "#!" })
        .error?.issues.map((i) => [i.path.join("."), i.message]),
    ).toEqual([
      ["workerRole", "centres.roleInvalid"],
      ["workerId", "centres.workerIdInvalid"],
    ]);
    // A centre that does not exist is refused on its field before any code is sent.
    const unknown = signupFormSchema.parse({
      ...base,
      centreId: "nope",
      workerRole: "asha",
      workerId: "AS-1",
    });
    expect(
      (await refusal(() => d.accounts.startSignup(unknown, newClient(), "hi"))).extra.fieldErrors,
    ).toEqual({
      centreId: ["centres.centreUnknown"],
    });
    expect(await mailsTo(email, /./, 0)).toEqual([]);

    const form = signupFormSchema.parse({
      ...base,
      centreId: c._id,
      workerRole: "asha",
      workerId: "AS-1234",
    });
    const client = newClient();
    const { pendingId } = await d.accounts.startSignup(form, client, "hi");
    const user = await d.accounts.completeSignup(pendingId, await codeMailedTo(email), client);
    expect(user).toMatchObject({ accountType: "HealthWorker", approved: false, locale: "hi" });
    const worker = await care.findHealthWorker(user.id);
    expect(worker).toMatchObject({
      role: "asha",
      workerId: "AS-1234",
      status: "pending",
      centre: { _id: c._id, name: c.name },
    });

    // Unapproved: no uploads, no centre.
    const actor = await fresh(user.id);
    expect(await refusal(() => d.consultation.assertCanUpload(actor))).toMatchObject({
      code: "forbidden",
      message: "care.awaitApproval",
    });
    expect(await care.workerCentreId(actor)).toBeNull();
    const waiting = await care.listHealthWorkers(admin, { status: "pending" }, { page: 1, pageSize: 100 });
    expect(waiting.items.map((w) => w._id)).toContain(user.id);
  });

  it("an admin approves: the worker is told, and may then upload for their centre", async () => {
    const c = await care.createCentre(admin, centreInput());
    const row = await healthWorker(c._id);
    const approved = await care.approveHealthWorker(admin, row.id);
    expect(approved).toMatchObject({ status: "approved", approved: true });
    const actor = await fresh(row.id);
    expect(() => d.consultation.assertCanUpload(actor)).not.toThrow();
    expect(await care.workerCentreId(actor)).toBe(c._id);
    const mails = await mailsTo(row.email, /approved/);
    expect(mails).toHaveLength(1);
    expect(mails[0].body).toContain(c.name);
    // Approving again changes nothing and tells nobody twice.
    await care.approveHealthWorker(admin, row.id);
    await d.messaging.flushMail();
    expect(await mailsTo(row.email, /approved/, 0)).toHaveLength(1);
    // Not a health worker, or no one: not found.
    expect(await refusal(() => care.approveHealthWorker(admin, patient.id))).toMatchObject({
      code: "not_found",
    });
    expect(await refusal(() => care.approveHealthWorker(admin, "nobody"))).toMatchObject({
      code: "not_found",
    });
  });

  it("a health worker with a mobile number only hears of their approval by SMS, in their language", async () => {
    const c = await care.createCentre(admin, centreInput());
    const phone = uniqueMobile();
    const row = await d.accounts.insertUser({
      email: "",
      phone,
      password: PASSWORD,
      firstName: "Savitri",
      accountType: "HealthWorker",
      healthWorker: { centreId: c._id, role: "asha", workerId: "ASHA-9" },
      locale: "hi",
    });
    expect(row.notify).toBe("sms");
    await care.approveHealthWorker(admin, row.id);
    const deadline = Date.now() + 3000;
    let sent: { text: string }[] = [];
    while (!sent.length && Date.now() < deadline) {
      sent = await d.db.db().select().from(d.schema.smsMessages).where(eq(d.schema.smsMessages.to, phone));
      if (!sent.length) await new Promise((r) => setTimeout(r, 50));
    }
    expect(sent).toHaveLength(1);
    // The subject in Hindi and a short link; never a patient's name.
    expect(sent[0].text).toContain("स्वास्थ्य कार्यकर्ता");
    expect(sent[0].text).toMatch(/\/m\/h$/);
  });

  it("declining needs a reason, suspends the account and tells the worker why", async () => {
    const c = await care.createCentre(admin, centreInput());
    const row = await healthWorker(c._id);
    expect(
      (await refusal(() => care.rejectHealthWorker(admin, row.id, { reason: " " }))).extra.fieldErrors,
    ).toEqual({
      reason: ["centres.rejectReasonRequired"],
    });
    const w = await care.rejectHealthWorker(admin, row.id, {
      reason: "Worker ID not found in the ASHA register",
    });
    expect(w).toMatchObject({ status: "suspended", approved: false });
    const mail = (await mailsTo(row.email, /application/)).at(-1)!;
    expect(mail.body).toContain("Worker ID not found in the ASHA register");
    expect(await refusal(() => care.approveHealthWorker(admin, row.id))).toMatchObject({
      code: "conflict",
      message: "centres.workerSuspended",
    });
    expect(await refusal(() => care.rejectHealthWorker(admin, row.id, { reason: "again" }))).toMatchObject({
      code: "conflict",
    });
    // Reinstating puts the application back in the queue.
    expect(await care.updateHealthWorker(admin, row.id, { suspended: false })).toMatchObject({
      status: "pending",
    });
  });

  it("an admin moves a worker to another centre, and suspends and reinstates them", async () => {
    const a = await care.createCentre(admin, centreInput());
    const b = await care.createCentre(admin, centreInput());
    const row = await healthWorker(a._id, true);
    const session = await d.accounts.createSession(row.id, "web", newClient());

    expect(
      (await refusal(() => care.updateHealthWorker(admin, row.id, { centreId: "no-such-centre" }))).extra
        .fieldErrors,
    ).toEqual({ centreId: ["centres.centreUnknown"] });
    expect((await refusal(() => care.updateHealthWorker(admin, row.id, {}))).code).toBe("invalid");
    expect(
      (await refusal(() => care.updateHealthWorker(admin, row.id, { suspended: "yes" }))).extra.fieldErrors,
    ).toEqual({ suspended: ["validation.notBoolean"] });

    const moved = await care.updateHealthWorker(admin, row.id, { centreId: b._id });
    expect(moved.centre._id).toBe(b._id);
    expect(await care.workerCentreId(await fresh(row.id))).toBe(b._id);

    await care.updateHealthWorker(admin, row.id, { suspended: true });
    expect(await d.accounts.resolveToken(session.token, "web")).toBeNull();
    const suspended = await care.listHealthWorkers(
      admin,
      { status: "suspended", centreId: b._id },
      { page: 1, pageSize: 10 },
    );
    expect(suspended.items.map((x) => x._id)).toEqual([row.id]);
    expect(
      await d.accounts
        .login({ email: row.email, password: PASSWORD }, newClient(), "web")
        .catch((e) => e.code),
    ).toBe("forbidden");
    await care.updateHealthWorker(admin, row.id, { suspended: false });
    expect((await care.findHealthWorker(row.id))!.status).toBe("approved");

    const actions = (
      await d.db.db().select().from(d.schema.auditEvents).where(eq(d.schema.auditEvents.subjectId, row.id))
    ).map((e) => e.action);
    expect(actions).toEqual(
      expect.arrayContaining(["centre.worker_move", "centre.worker_suspend", "centre.worker_unsuspend"]),
    );
  });
});

describe("a centre's figures", () => {
  const HOUR = 3_600_000;

  /** A patient profile of the centre with its facilitated consent (as the registration screen makes them). */
  async function centrePatient(centreId: string, by: string) {
    const id = randomBytes(12).toString("hex");
    const now = new Date();
    await d.db.db().insert(d.schema.patients).values({
      id,
      firstName: "Kamala",
      lastName: "Bai",
      centreId,
      registeredBy: by,
      createdAt: now,
      updatedAt: now,
    });
    await d.db
      .db()
      .insert(d.schema.patientConsents)
      .values({
        id: randomBytes(12).toString("hex"),
        patientId: id,
        kind: "facilitated",
        textVersion: "test",
        method: "verbal",
        recordedBy: by,
        centreId,
        createdAt: now,
      });
    return id;
  }

  async function upload(worker: Actor, patientId: string) {
    const file = await d.records.storeUpload(
      (async function* () {
        yield new Uint8Array(pdfBytes());
      })(),
      { maxBytes: 1_000_000, allowed: "report", fileName: "r.pdf" },
    );
    return d.consultation.createReport(
      worker,
      { reportType: "Blood Test", phoneNumber: "9876543210", countryCode: "+91", consent: "on" },
      file,
      { patientId },
    );
  }

  async function setTimes(reportId: string, createdAt: number, reviewedAt?: number) {
    await d.db
      .db()
      .update(d.schema.reports)
      .set({ createdAt: new Date(createdAt), ...(reviewedAt ? { reviewedAt: new Date(reviewedAt) } : {}) })
      .where(eq(d.schema.reports.id, reportId));
  }

  it("counts, median and 90th percentile over the centre's reports only, as the Turnaround screen defines them", async () => {
    const now = Date.now();
    const c = await care.createCentre(admin, centreInput());
    const other = await care.createCentre(admin, centreInput());
    const worker = await fresh((await healthWorker(c._id, true)).id);
    const otherWorker = await fresh((await healthWorker(other._id, true)).id);
    await healthWorker(c._id); // waiting for approval
    const p1 = await centrePatient(c._id, worker.id);
    const p2 = await centrePatient(c._id, worker.id);
    const q1 = await centrePatient(other._id, otherWorker.id);

    // Four answered reports at this centre: 1 h, 2 h, 3 h and 10 h from upload to opinion.
    const answered = [1, 2, 3, 10];
    for (const [i, hours] of answered.entries()) {
      const r = await upload(worker, i % 2 ? p1 : p2);
      await claim(expert, r);
      await review(expert, r);
      await setTimes(r._id, now - 24 * HOUR, now - 24 * HOUR + hours * HOUR);
    }
    // One answered long ago (outside the 30 days: counted as reviewed, not in the times).
    const old = await upload(worker, p1);
    await claim(expert, old);
    await review(expert, old);
    await setTimes(old._id, now - 60 * 24 * HOUR, now - 59 * 24 * HOUR);
    // One pending for four days (overdue), one fresh and in review.
    const late = await upload(worker, p2);
    await setTimes(late._id, now - 4 * 24 * HOUR);
    const inReview = await upload(worker, p1);
    await claim(expert, inReview);
    // Elsewhere: another centre's report and a patient's own — not this centre's.
    const elsewhere = await upload(otherWorker, q1);
    await setTimes(elsewhere._id, now - 5 * 24 * HOUR);
    const own = await makeReport(patient);
    await claim(expert, own);
    await review(expert, own);

    const stats = await figures.centreStats(admin, c._id, now);
    expect(stats).toEqual({
      pending: 1,
      inReview: 1,
      overdue: 1,
      windowDays: 30,
      reviewedInWindow: 4,
      // Nearest rank: the 2nd of 4 and the 4th of 4.
      medianMs: 2 * HOUR,
      p90Ms: 10 * HOUR,
      patients: 2,
      reviewed: 5,
      workers: { approved: 1, pending: 1, suspended: 0 },
    });
    // The same function makes the Turnaround screen's figures: over every report they agree with it.
    const all = await d.consultation.getTurnaround(admin, now);
    const { experts: _e, overdueReports: _o, ...overall } = all;
    expect(await d.consultation.turnaroundFigures(now)).toEqual(overall);

    const overdue = await figures.centreOverdue(admin, c._id, now);
    expect(overdue.map((r) => r._id)).toEqual([late._id]);
    expect((await figures.centreOverdue(admin, other._id, now)).map((r) => r._id)).toEqual([elsewhere._id]);

    const listed = await figures.listCentres(admin, { page: 1, pageSize: 100 }, now);
    expect(listed.items.find((x) => x._id === c._id)?.stats).toEqual(stats);
    // Pages of one centre each walk the directory in order, with the count of every centre
    // (read with the rows, or alone on a page past the end).
    const total = listed.total;
    expect(total).toBeGreaterThanOrEqual(2);
    const onePer = await Promise.all(
      Array.from({ length: total + 1 }, (_, i) =>
        figures.listCentres(admin, { page: i + 1, pageSize: 1 }, now),
      ),
    );
    expect(onePer.map((pg) => pg.total)).toEqual(Array(total + 1).fill(total));
    expect(onePer.flatMap((pg) => pg.items.map((x) => x._id))).toEqual(listed.items.map((x) => x._id));
    expect(onePer[total].items).toEqual([]);
    expect(await refusal(() => figures.centreStats(admin, "no-such-centre"))).toMatchObject({
      code: "not_found",
    });
  });

  it("a centre's 30-day times follow every write to its reports, made anywhere, and the window's edge", async () => {
    // A node keeps a centre's times until the centre's version moves (decision 0047). The writes
    // below go straight to the database, as another node's would: nothing here tells the domain.
    const now = Date.now();
    const c = await care.createCentre(admin, centreInput());
    const worker = await fresh((await healthWorker(c._id, true)).id);
    const p = await centrePatient(c._id, worker.id);
    const times = async (at = now) => {
      const { reviewedInWindow, medianMs, p90Ms, reviewed } = await figures.centreStats(admin, c._id, at);
      return { reviewedInWindow, medianMs, p90Ms, reviewed };
    };
    expect(await times()).toEqual({ reviewedInWindow: 0, medianMs: null, p90Ms: null, reviewed: 0 });

    const first = await upload(worker, p);
    await claim(expert, first);
    await review(expert, first);
    await setTimes(first._id, now - 24 * HOUR, now - 23 * HOUR);
    expect(await times()).toEqual({ reviewedInWindow: 1, medianMs: HOUR, p90Ms: HOUR, reviewed: 1 });
    expect(await times()).toEqual({ reviewedInWindow: 1, medianMs: HOUR, p90Ms: HOUR, reviewed: 1 });

    // Only a time changes (no count does): the figures follow.
    await setTimes(first._id, now - 26 * HOUR, now - 23 * HOUR);
    expect(await times()).toEqual({ reviewedInWindow: 1, medianMs: 3 * HOUR, p90Ms: 3 * HOUR, reviewed: 1 });

    const second = await upload(worker, p);
    await claim(expert, second);
    await review(expert, second);
    await setTimes(second._id, now - 6 * HOUR, now - HOUR);
    expect(await times()).toEqual({ reviewedInWindow: 2, medianMs: 3 * HOUR, p90Ms: 5 * HOUR, reviewed: 2 });

    // 30 days after the first opinion, it leaves the window — with no write at all.
    const edge = now - 23 * HOUR + 30 * 24 * HOUR;
    expect(await times(edge)).toEqual({
      reviewedInWindow: 2,
      medianMs: 3 * HOUR,
      p90Ms: 5 * HOUR,
      reviewed: 2,
    });
    expect(await times(edge + 60_000)).toEqual({
      reviewedInWindow: 1,
      medianMs: 5 * HOUR,
      p90Ms: 5 * HOUR,
      reviewed: 2,
    });
    // Asked about an earlier moment again, it is computed for that moment.
    expect(await times()).toEqual({ reviewedInWindow: 2, medianMs: 3 * HOUR, p90Ms: 5 * HOUR, reviewed: 2 });

    // A report removed (as an erasure does) and a profile moved to another centre.
    await d.db.db().delete(d.schema.reports).where(eq(d.schema.reports.id, second._id));
    expect(await times()).toEqual({ reviewedInWindow: 1, medianMs: 3 * HOUR, p90Ms: 3 * HOUR, reviewed: 1 });
    const elsewhere = await care.createCentre(admin, centreInput());
    await d.db
      .db()
      .update(d.schema.patients)
      .set({ centreId: elsewhere._id })
      .where(eq(d.schema.patients.id, p));
    expect(await times()).toEqual({ reviewedInWindow: 0, medianMs: null, p90Ms: null, reviewed: 0 });
    expect(await figures.centreStats(admin, elsewhere._id, now)).toMatchObject({
      reviewedInWindow: 1,
      medianMs: 3 * HOUR,
    });

    // A recount (a bulk load's last step) keeps every version and moves it on.
    const version = () =>
      d.db
        .db()
        .select()
        .from(d.schema.listCounts)
        .where(eq(d.schema.listCounts.key, `v:c:${c._id}`));
    const [before] = await version();
    const { recountLists } = await import("~/db/bulk-load.server");
    await recountLists();
    const [after] = await version();
    expect(Number(after.n)).toBe(Number(before.n) + 1);
    expect(await times()).toEqual({ reviewedInWindow: 0, medianMs: null, p90Ms: null, reviewed: 0 });
  });
});
