import { PNG } from "pngjs";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  PASSWORD,
  authenticator,
  claim,
  codeMailedTo,
  freshDomain,
  makeAdmin,
  makeCentre,
  makeDependant,
  makeExpert,
  makeHealthWorker,
  makePatient,
  makeReport,
  makeShareLink,
  mailsTo,
  newClient,
  refusal,
  review,
  uniqueEmail,
  uniqueMobile,
  type Domain,
  type Person,
} from "../helpers/factories";

/*
 * Domain functions whose queries or store calls only the SQLite-only HTTP suites reached (the
 * coverage comparison in docs/decisions/0077-coverage-evidence.md). Here they are called directly,
 * so they run on SQLite and, in the pg-s3 project, on PostgreSQL + S3: what each returns and what
 * it leaves in the tables is checked on both.
 *
 * Two-step login is required for admins in this file, so an admin's password login is a setup
 * challenge (the admins made by the factories get their session without a login).
 */

let d: Domain;
beforeAll(async () => {
  d = await freshDomain({ MFA_REQUIRED_FOR_ADMINS: "true", SMS_PER_HOUR: "6" });
});
afterAll(() => d?.close());

const page = { page: 1, pageSize: 50 };

/**
 * Walks a newest-first list one row a page with its keyset cursor (the row after the cursor, by
 * created_at and id): returns the ids in order; the first `count` pages must each give one new row.
 */
async function walk(
  list: (q: { page: number; pageSize: number; cursor?: string | null }) => Promise<{
    items: { _id: string }[];
    nextCursor?: string | null;
  }>,
  count: number,
) {
  const ids: string[] = [];
  let cursor: string | null | undefined = null;
  for (let i = 0; i < count; i++) {
    const res = await list({ page: 1, pageSize: 1, cursor });
    expect(res.items).toHaveLength(1);
    ids.push(res.items[0]._id);
    if (i < count - 1) expect(res.nextCursor).toEqual(expect.any(String));
    cursor = res.nextCursor;
  }
  expect(new Set(ids).size).toBe(count);
  return ids;
}

/** The 6-digit code in the newest SMS to `phone` (the outbox table: no SMS gateway in tests). */
async function smsCode(phone: string) {
  const { desc } = await import("drizzle-orm");
  const s = d.schema.smsMessages;
  const [row] = await d.db.db().select().from(s).where(eq(s.to, phone)).orderBy(desc(s.createdAt)).limit(1);
  return /\b(\d{6})\b/.exec(row?.text ?? "")?.[1] ?? "";
}

function pngBytes() {
  const png = new PNG({ width: 4, height: 4 });
  png.data.fill(200);
  return PNG.sync.write(png);
}

async function* once(b: Buffer) {
  yield new Uint8Array(b);
}

async function auditActions(targetId: string) {
  const a = d.schema.auditEvents;
  const found = await d.db.db().select({ action: a.action }).from(a).where(eq(a.subjectId, targetId));
  return found.map((r) => r.action).sort();
}

describe("accounts", () => {
  it("a phone account logs in with its SMS code and resets its password with one", async () => {
    const phone = uniqueMobile();
    const p = await makePatient({ phone });
    await d.accounts.requestLoginCode(phone, newClient(), "en");
    const code = await smsCode(phone);
    expect(code).toMatch(/^\d{6}$/);
    const wrong = code === "000000" ? "111111" : "000000";
    expect(await refusal(() => d.accounts.loginWithCode(phone, wrong, newClient(), "web"))).toMatchObject({
      code: "invalid",
    });
    const login = await d.accounts.loginWithCode(phone, code, newClient(), "web");
    expect(login.user.id).toBe(p.id);
    expect(await d.accounts.resolveToken(login.token!, "web")).toMatchObject({ id: p.id });

    await d.accounts.requestPasswordReset({ phone }, newClient(), "en");
    const resetCode = await smsCode(phone);
    const newPassword = "Another-long-passphrase-7";
    await d.accounts.resetPasswordWithCode(phone, resetCode, newPassword, newClient());
    // Every session ended; the new password logs in, the old one does not.
    expect(await d.accounts.resolveToken(login.token!, "web")).toBeFalsy();
    expect(await d.accounts.resolveToken(p.token, "web")).toBeFalsy();
    expect(
      await refusal(() => d.accounts.login({ email: p.email, password: PASSWORD }, newClient(), "web")),
    ).toMatchObject({ code: "not_authenticated" });
    const again = await d.accounts.login({ email: p.email, password: newPassword }, newClient(), "web");
    expect(again.user.id).toBe(p.id);
  });

  it("a resent signup code arrives and completes the signup; an unknown signup is not resent", async () => {
    const email = uniqueEmail("resend");
    const { signupFormSchema } = await import("~/schemas/auth");
    const form = signupFormSchema.parse({
      accountType: "Patient",
      firstName: "Meera",
      lastName: "Iyer",
      email,
      contactNumber: "9876543210",
      password: PASSWORD,
      confirmPassword: PASSWORD,
    });
    const client = newClient();
    const { pendingId } = await d.accounts.startSignup(form, client, "en");
    await codeMailedTo(email);
    const resent = await d.accounts.resendSignupCode(pendingId, client);
    expect(resent.pendingId).toEqual(expect.any(String));
    for (let i = 0; i < 40 && (await mailsTo(email, /\b\d{6}\b/, 0)).length < 2; i++)
      await new Promise((r) => setTimeout(r, 50));
    const code = await codeMailedTo(email);
    const user = await d.accounts.completeSignup(resent.pendingId, code, client);
    expect(user).toMatchObject({ email, firstName: "Meera" });
    expect(await refusal(() => d.accounts.resendSignupCode("no-such-signup", client))).toMatchObject({
      message: "accounts.signupExpired",
    });
  });

  it("profile, notice channel and display picture are saved and read back", async () => {
    const expert = await makeExpert({ contactNumber: "9876543210" });
    const profile = await d.accounts.updateProfile(expert, {
      firstName: "Kavya",
      lastName: "Rao",
      contactNumber: "9876543210",
      about: "Cardiologist",
      gender: "female",
      dateOfBirth: "1980-02-03",
    } as never);
    expect(profile.user).toMatchObject({ firstName: "Kavya", lastName: "Rao" });
    expect(profile.profile).toMatchObject({
      about: "Cardiologist",
      gender: "female",
      dateOfBirth: "1980-02-03",
    });
    // A second save updates the same profile row.
    const again = await d.accounts.updateProfile(expert, {
      firstName: "Kavya",
      lastName: "Rao",
      contactNumber: "9876543210",
      about: "Interventional cardiologist",
    } as never);
    expect(again.profile).toMatchObject({ about: "Interventional cardiologist" });

    const sms = await d.accounts.setNotifyChannel(expert, "both" as never);
    expect(sms.user.notify).toBe("both");
    const patient = await makePatient();
    expect(await refusal(() => d.accounts.setNotifyChannel(patient, "email" as never))).toMatchObject({
      code: "forbidden",
    });

    const first = await d.records.storeUpload(once(pngBytes()), { maxBytes: 1_000_000, allowed: "image" });
    await d.accounts.updateDisplayPicture(expert, first);
    expect(await d.accounts.isUserImageKey(first.key)).toBe(true);
    const second = await d.records.storeUpload(once(pngBytes()), { maxBytes: 1_000_000, allowed: "image" });
    const after = await d.accounts.updateDisplayPicture(expert, second);
    expect(after.user.image).toBe(second.key);
    // The previous picture left the store and is nobody's any more.
    expect(await d.accounts.isUserImageKey(first.key)).toBe(false);
    expect(await d.records.storedExists(first.key)).toBe(false);
    expect(await d.records.storedExists(second.key)).toBe(true);
  });

  it("experts: colleagues see approved experts without contact details; rejection and new details", async () => {
    const admin = await makeAdmin();
    const colleague = await makeExpert({ specialties: ["Cardiology", "Radiology"] });
    const applicant = await makeExpert({ approved: false, registrationNumber: "MMC-1234" });

    const seenByAdmin = await d.accounts.listApprovedExperts(admin, { page: 1, pageSize: 200 });
    const seenByExpert = await d.accounts.listApprovedExperts(colleague, { page: 1, pageSize: 200 });
    expect(seenByAdmin.items.map((u) => u._id)).toContain(colleague.id);
    expect(seenByAdmin.items.map((u) => u._id)).not.toContain(applicant.id);
    expect(seenByExpert.total).toBe(seenByAdmin.total);
    const mine = seenByExpert.items.find((u) => u._id === colleague.id)!;
    expect(mine.email).toBeFalsy();
    expect(seenByAdmin.items.find((u) => u._id === colleague.id)!.email).toBe(colleague.email);

    const rejected = await d.accounts.rejectExpert(admin, {
      expertId: applicant.id,
      reason: "Number not found",
    });
    expect(rejected).toMatchObject({ _id: applicant.id, approved: false });
    expect(await auditActions(applicant.id)).toContain("expert.reject");
    // Sending new details puts the application back before the admin.
    const updated = await d.accounts.updateExpertDetails(applicant, {
      registrationNumber: "MMC-5678",
      yearsOfPractice: 7,
      specialties: ["Neurology"],
    } as never);
    expect(updated.backToReview).toBe(false);
    const pending = await d.accounts.listPendingExperts(admin, { page: 1, pageSize: 200 });
    const back = pending.items.find((u) => u._id === applicant.id);
    expect(back).toBeTruthy();
    expect(JSON.stringify(back)).toContain("MMC-5678");
  });
});

describe("two-step login", () => {
  async function withTwoFactor(p: Person) {
    const setup = await d.accounts.beginSetup(p, { password: p.password }, p.client);
    const app = authenticator(setup.secret);
    await d.accounts.confirmSetup(p, { password: p.password, code: app.code() }, p.client);
    return app;
  }

  it("a challenge's state, its five tries, and an admin's reset of someone's two-step login", async () => {
    const p = await makePatient();
    const app = await withTwoFactor(p);
    const login = await d.accounts.login({ email: p.email, password: p.password }, newClient(), "web");
    const token = login.mfa!.token;
    expect(await d.accounts.challengeState(token, "web")).toMatchObject({
      user: { id: p.id },
      mode: "code",
      attemptsLeft: 5,
    });
    expect(await d.accounts.challengeState("not-a-challenge", "web")).toBeNull();
    // Five wrong codes use the challenge up: it is deleted.
    for (let i = 0; i < 5; i++)
      await refusal(() => d.accounts.loginSecondStep(token, { code: app.wrong() }, newClient(), "web"));
    expect(await d.accounts.challengeState(token, "web")).toBeNull();

    const admin = await makeAdmin();
    expect((await d.accounts.twoFactorUserIds([p.id, admin.id])).has(p.id)).toBe(true);
    await d.accounts.resetTwoFactor(admin, p.id, newClient());
    expect((await d.accounts.twoFactorUserIds([p.id])).has(p.id)).toBe(false);
    const plain = await d.accounts.login({ email: p.email, password: p.password }, newClient(), "web");
    expect(plain.token).toBeTruthy();
    expect(await refusal(() => d.accounts.resetTwoFactor(admin, p.id, newClient()))).toMatchObject({
      code: "conflict",
    });
  });

  it("an admin who must set it up gets one pending secret per login", async () => {
    const admin = await makeAdmin();
    const login = await d.accounts.login(
      { email: admin.email, password: admin.password },
      newClient(),
      "web",
    );
    expect(login.token).toBeUndefined();
    const token = login.mfa!.token;
    const setup = await d.accounts.challengeSetup(token, "web");
    expect(setup.secret).toMatch(/^[A-Z2-7 ]+$/);
    // Reloading keeps the same secret.
    expect((await d.accounts.challengeSetup(token, "web")).secret).toBe(setup.secret);
    await expect(d.accounts.challengeSetup("not-a-challenge", "web")).rejects.toBeTruthy();
  });
});

describe("care", () => {
  it("an admin reads one centre, with its figures", async () => {
    const admin = await makeAdmin();
    const centre = await makeCentre({ name: "PHC Sinnar" });
    await makeHealthWorker(centre);
    const c = await d.care.getCentre(admin, centre.id);
    expect(c).toMatchObject({ _id: centre.id, name: "PHC Sinnar" });
    const s = await d.consultation.getCentreWithStats(admin, centre.id);
    expect(s).toMatchObject({ _id: centre.id, name: "PHC Sinnar" });
    expect(JSON.stringify(s)).toMatch(/"workers"/);
    const worker = await makePatient();
    expect(await refusal(() => d.care.getCentre(worker, centre.id))).toMatchObject({ code: "forbidden" });
    expect(await refusal(() => d.consultation.getCentreWithStats(admin, "nope"))).toMatchObject({
      code: "not_found",
    });
  });

  it("the health workers' list carries its rows; a manager's take-over target and the whose-options", async () => {
    const admin = await makeAdmin();
    const centre = await makeCentre();
    const w = await makeHealthWorker(centre, { firstName: "Sunita" });
    const list = await d.care.listHealthWorkers(admin, { status: "approved" }, { page: 1, pageSize: 200 });
    expect(JSON.stringify(list.items)).toContain(w.id);
    await makeHealthWorker(centre);
    const now = await d.care.listHealthWorkers(admin, { status: "approved" }, { page: 1, pageSize: 2 });
    const walked = await walk((q) => d.care.listHealthWorkers(admin, { status: "approved" }, q), 2);
    expect(walked).toEqual(now.items.map((x) => x._id));

    const manager = await makePatient();
    const child = await makeDependant(manager, { firstName: "Anu" });
    const target = await d.care.takeOverTarget(manager, child);
    expect(target).toMatchObject({ id: child, by: "manager" });
    expect(target.name).toMatch(/^Anu /);
    const stranger = await makePatient();
    expect(await refusal(() => d.care.takeOverTarget(stranger, child))).toMatchObject({ code: "forbidden" });

    const options = await d.care.whoseOptions(manager);
    expect(options.map((o) => o.id)).toContain(child);
  });
});

describe("consultation", () => {
  it("reviewed lists for the expert and the admin, with follow-ups in asking order; an admin reassigns them", async () => {
    const patient = await makePatient();
    const expert = await makeExpert({ specialties: ["Cardiology"] });
    const other = await makeExpert({ specialties: ["Cardiology"] });
    const admin = await makeAdmin();
    const report = await makeReport(patient, { type: "ECG" });
    await claim(expert, report);
    await review(expert, report);
    await d.consultation.askFollowUp(patient, report._id, { question: "First question?" });
    await new Promise((r) => setTimeout(r, 5));
    await d.consultation.askFollowUp(patient, report._id, { question: "Second question?" });

    const mine = await d.consultation.listReviewedByExpert(expert, page);
    expect(mine.items.map((r) => r._id)).toContain(report._id);
    const item = mine.items.find((r) => r._id === report._id)!;
    const questions = (item as unknown as { followUps: { question: string }[] }).followUps.map(
      (f) => f.question,
    );
    expect(questions).toEqual(["First question?", "Second question?"]);
    const all = await d.consultation.listAllReviewed(admin, page);
    expect(all.items.map((r) => r._id)).toContain(report._id);
    expect(all.total).toBeGreaterThanOrEqual(1);
    // Through the admin's own call of the expert list as well.
    expect((await d.consultation.listReviewedByExpert(admin, page)).total).toBe(all.total);
    expect(await refusal(() => d.consultation.listAllReviewed(expert, page))).toMatchObject({
      code: "forbidden",
    });

    await d.consultation.reassignFollowUps(admin, report._id, { expertId: other.id });
    const theirs = await d.consultation.listReviewedByExpert(other, page);
    expect(theirs.items.map((r) => r._id)).not.toContain(report._id);
    const mineNow = (await d.consultation.listReviewedByExpert(expert, page)).items.find(
      (r) => r._id === report._id,
    )!;
    expect((mineNow as unknown as { followUps?: unknown[] }).followUps ?? []).toEqual([]);
    expect(await auditActions(report._id)).toContain("followup.reassign");
  });

  it("the letter of a case with a reviewed second opinion renders; turnaround counts both opinions", async () => {
    const patient = await makePatient();
    const cardio = await makeExpert({ specialties: ["Cardiology"] });
    const radio = await makeExpert({ specialties: ["Radiology"] });
    const admin = await makeAdmin();
    const ecg = await makeReport(patient, { type: "ECG" });
    await claim(cardio, ecg);
    const second = await d.consultation.requestSecondOpinion(cardio, ecg._id, {
      specialty: "Radiology",
      note: "Axis?",
    });
    await review(cardio, ecg);
    await claim(radio, second);
    await d.consultation.addReview(radio, second._id, {
      review: "Borderline axis.",
      agreement: "agree",
      agreementReason: "same reading",
    });
    const letter = await d.consultation.opinionLetter(patient, ecg._id);
    expect(letter.pdf.subarray(0, 5).toString()).toBe("%PDF-");
    const list = await d.consultation.listPatientReports(patient, patient.id, page);
    expect(list.items[0].secondOpinions?.map((s) => s._id)).toEqual([second._id]);
    const t = await d.consultation.getTurnaround(admin);
    expect(JSON.stringify(t)).toContain(cardio.id);
    expect(JSON.stringify(t)).toContain(radio.id);
  });
});

describe("time to opinion", () => {
  it("a case whose second opinion is still awaited is left out; a plain reviewed case counts", async () => {
    const before = (await d.consultation.turnaroundFigures()).reviewedInWindow;
    const patient = await makePatient();
    const cardio = await makeExpert({ specialties: ["Cardiology"] });
    const ecg = await makeReport(patient, { type: "ECG" });
    await claim(cardio, ecg);
    await d.consultation.requestSecondOpinion(cardio, ecg._id, { specialty: "Radiology", note: "Look?" });
    await review(cardio, ecg);
    expect((await d.consultation.turnaroundFigures()).reviewedInWindow).toBe(before);
    const plain = await makeReport(patient, { type: "ECG" });
    await claim(cardio, plain);
    await review(cardio, plain);
    expect((await d.consultation.turnaroundFigures()).reviewedInWindow).toBe(before + 1);
  });
});

describe("messaging and platform", () => {
  it("an admin lists contact messages and callback requests, newest first", async () => {
    const admin = await makeAdmin();
    const a = await d.messaging.saveContactMessage(
      null,
      { name: "Asha", email: "ASHA@example.test", message: "Hello" } as never,
      newClient(),
    );
    const b = await d.messaging.saveContactMessage(
      null,
      { name: "Ravi", email: "ravi@example.test", message: "Hi" } as never,
      newClient(),
    );
    const msgs = await d.messaging.listContactMessages(admin, page);
    const ids = msgs.items.map((m) => m._id);
    expect(ids).toEqual(expect.arrayContaining([a.id, b.id]));
    expect(msgs.items.find((m) => m._id === a.id)).toMatchObject({
      name: "Asha",
      email: "asha@example.test",
    });
    expect(msgs.total).toBeGreaterThanOrEqual(2);
    expect(await walk((q) => d.messaging.listContactMessages(admin, q), 2)).toEqual(
      msgs.items.slice(0, 2).map((m) => m._id),
    );
    await d.messaging.saveCallbackRequest(
      null,
      { name: "Hari", countryCode: "+91", phoneNumber: "9876543211", message: "Later" } as never,
      newClient(),
    );
    const cb = await d.messaging.saveCallbackRequest(
      null,
      { name: "Gita", countryCode: "+91", phoneNumber: "9876543210", message: "Call me" } as never,
      newClient(),
    );
    const cbs = await d.messaging.listCallbackRequests(admin, page);
    expect(cbs.items.find((c) => c._id === cb.id)).toMatchObject({ name: "Gita", phoneNumber: "9876543210" });
    expect(await walk((q) => d.messaging.listCallbackRequests(admin, q), 2)).toEqual(
      cbs.items.slice(0, 2).map((c) => c._id),
    );
    const stranger = await makePatient();
    expect(await refusal(() => d.messaging.listContactMessages(stranger, page))).toMatchObject({
      code: "forbidden",
    });
  });

  it("the audit trail lists events with their actor, filtered by action", async () => {
    const admin = await makeAdmin();
    const applicant = await makeExpert({ approved: false });
    await d.accounts.rejectExpert(admin, { expertId: applicant.id, reason: "Unclear" });
    const all = await d.platform.listAuditEvents(admin, page);
    expect(all.total).toBeGreaterThan(0);
    const only = await d.platform.listAuditEvents(admin, { ...page, action: "expert.reject" });
    expect(only.items.length).toBeGreaterThan(0);
    expect(only.items.every((e) => e.action === "expert.reject")).toBe(true);
    expect(JSON.stringify(only.items)).toContain(applicant.id);
    const walked = await walk((q) => d.platform.listAuditEvents(admin, q), 3);
    expect(walked).toEqual(all.items.slice(0, 3).map((e) => e._id));
  });
});

describe("rights and sharing", () => {
  it("a nominee is named, changed and removed; the admin's queue lists a correction request", async () => {
    const p = await makePatient();
    const set = await d.rights.setNominee(p, {
      name: "Ravi",
      relationship: "son",
      contact: "ravi@example.test",
    });
    expect(set).toMatchObject({ name: "Ravi", relationship: "son" });
    await d.rights.setNominee(p, { name: "Ravi K", relationship: "son", contact: "ravi@example.test" });
    expect(await d.rights.getNominee(p)).toMatchObject({ name: "Ravi K" });
    expect(await auditActions(p.id)).toEqual(
      expect.arrayContaining(["account.nominee_add", "account.nominee_change"]),
    );
    await d.rights.removeNominee(p);
    expect(await d.rights.getNominee(p)).toBeNull();
    expect(await refusal(() => d.rights.removeNominee(p))).toMatchObject({ code: "not_found" });

    const admin = await makeAdmin();
    const req = await d.rights.requestCorrection(p, { details: "My birth year is 1961" });
    const open = await d.rights.listRightsRequests(admin, { ...page } as never);
    expect(open.items.find((r) => r._id === req._id)).toMatchObject({ type: "correction" });
    const typed = await d.rights.listRightsRequests(admin, {
      ...page,
      status: "all",
      type: "correction",
    } as never);
    expect(typed.items.map((r) => r._id)).toContain(req._id);
    // Open corrections: counted by the status-and-type counter row the triggers keep.
    const both = await d.rights.listRightsRequests(admin, {
      ...page,
      status: "open",
      type: "correction",
    } as never);
    expect(both.items.map((r) => r._id)).toEqual([req._id]);
    expect(both.total).toBe(1);
  });

  it("the share screen lists a report's links; a shared letter opens for the doctor", async () => {
    const p = await makePatient();
    const expert = await makeExpert();
    const report = await makeReport(p);
    await claim(expert, report);
    await review(expert, report);
    const link = await makeShareLink(p, report, { includeLetter: true, label: "Dr Rao" });
    const screen = await d.sharing.shareScreen(p, report._id);
    expect(screen.report).toMatchObject({ _id: report._id, status: "Reviewed" });
    expect(JSON.stringify(screen)).toContain(link._id);
    const stranger = await makePatient();
    expect(await refusal(() => d.sharing.shareScreen(stranger, report._id))).toMatchObject({
      code: "not_found",
    });
    const doctor = newClient();
    const grant = await d.sharing.openShareLink(link.token, {}, null, doctor);
    const letter = await d.sharing.sharedLetter(link.token, grant.value, doctor);
    expect(letter.pdf.subarray(0, 5).toString()).toBe("%PDF-");
    const listed = await d.sharing.listShareLinks(p, { reportId: report._id, patientId: p.id }, page);
    expect(listed.items.map((l) => l._id)).toEqual([link._id]);
  });
});

describe("SMS ceiling", () => {
  it("a code asked for a number without an account only reads the hourly ceiling; a spent ceiling refuses it", async () => {
    // Numbers without an account never spend the ceiling, however many are asked for …
    for (let i = 0; i < 8; i++) await d.accounts.requestLoginCode(uniqueMobile(), newClient(), "en");
    // … while real codes do, until it is spent (SMS_PER_HOUR in this file).
    let refused: { code: string } | undefined;
    for (let i = 0; i < 7 && !refused; i++) {
      const phone = uniqueMobile();
      await makePatient({ phone });
      refused = await d.accounts.requestLoginCode(phone, newClient(), "en").then(
        () => undefined,
        (e) => e,
      );
    }
    expect(refused).toMatchObject({ code: "rate_limited" });
    // Now the read sees the spent ceiling and refuses alike.
    expect(await refusal(() => d.accounts.requestLoginCode(uniqueMobile(), newClient(), "en"))).toMatchObject(
      {
        code: "rate_limited",
      },
    );
  });
});
