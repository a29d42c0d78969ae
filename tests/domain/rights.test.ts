import { and, count, eq, or } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  freshDomain,
  linkTokenMailedTo,
  makeAdmin,
  makeExpert,
  makePatient,
  makeReport,
  newClient,
  refusal,
  review,
  uniqueMobile,
  type Domain,
} from "../helpers/factories";

/*
 * The rights centre without HTTP: correction requests, erasure after the notice with its cancel
 * link, and what `eraseAccount` removes (decision 0022). The API contract (200/202/409, the body
 * rules) and the screens stay in tests/integration/rights.test.ts and erasure.test.ts.
 */

let d: Domain;
beforeAll(async () => {
  d = await freshDomain();
});
afterAll(() => d?.close());

const HOUR = 60 * 60 * 1000;

/** How many rows of a table match (dialect-neutral, through the app's own Drizzle handle). */
async function countWhere(table: any, where: any): Promise<number> {
  const [row] = await d.db.db().select({ n: count() }).from(table).where(where);
  return Number(row?.n ?? 0);
}

async function reportRow(id: string) {
  const [row] = await d.db.db().select().from(d.schema.reports).where(eq(d.schema.reports.id, id));
  return row;
}

describe("correction requests", () => {
  it("a person has at most five open at once; an admin answers them, nobody else", async () => {
    const p = await makePatient();
    const first = await d.rights.requestCorrection(p, { details: "My surname is Verma, not Varma" });
    expect(first).toMatchObject({
      type: "correction",
      status: "open",
      details: "My surname is Verma, not Varma",
    });
    for (let i = 2; i <= 5; i++) await d.rights.requestCorrection(p, { details: `Fix ${i}` });
    expect(await refusal(() => d.rights.requestCorrection(p, { details: "one more" }))).toMatchObject({
      code: "conflict",
      message: "rights.tooManyOpen",
    });
    expect(await d.rights.listOwnRequests(p)).toHaveLength(5);

    const expert = await makeExpert();
    expect(
      await refusal(() =>
        d.rights.resolveRightsRequest(expert, first._id, { status: "done", response: "ok" }),
      ),
    ).toMatchObject({ code: "forbidden" });
    const admin = await makeAdmin();
    const done = await d.rights.resolveRightsRequest(admin, first._id, {
      status: "done",
      response: "Corrected",
    });
    expect(done).toMatchObject({ status: "done", response: "Corrected" });
    // Answered once: a second answer finds nothing open.
    await expect(
      d.rights.resolveRightsRequest(admin, first._id, { status: "rejected", response: "again" }),
    ).rejects.toThrow();
    // One answered: room for one more.
    await d.rights.requestCorrection(p, { details: "one more" });
  });
});

describe("erasure after the notice", () => {
  it("needs the password; one open erasure at a time; nothing is erased before it is due", async () => {
    const p = await makePatient();
    expect(
      await refusal(() => d.rights.requestErasure(p, { password: "Not-the-password-1" }, p.client)),
    ).toMatchObject({ code: "invalid", message: "profile.deletePasswordWrong" });
    expect(await d.rights.openErasureOf(p.id)).toBeNull();

    const before = Date.now();
    const req = await d.rights.requestErasure(p, { password: p.password }, p.client);
    const due = new Date(req.dueAt!).getTime();
    expect(due - before).toBeGreaterThanOrEqual(48 * HOUR - 1000);
    expect(due - before).toBeLessThanOrEqual(48 * HOUR + 60_000);
    expect(await refusal(() => d.rights.requestErasure(p, { password: p.password }, p.client))).toMatchObject(
      {
        code: "conflict",
        message: "rights.erasureAlreadyRequested",
      },
    );

    await d.rights.runDueErasures(new Date(due - 60_000));
    expect(await d.accounts.findUserById(p.id)).toBeDefined();
    await d.rights.runDueErasures(new Date(due + 1_000));
    expect(await d.accounts.findUserById(p.id)).toBeUndefined();
  });

  it("the link in the notice cancels it without signing in, once", async () => {
    const p = await makePatient();
    const req = await d.rights.requestErasure(p, { password: p.password }, p.client);
    const token = await linkTokenMailedTo(p.email, "/my-data/cancel-erasure");
    expect(await d.rights.cancelLinkLive(token)).toEqual({ dueAt: req.dueAt });

    const cancelled = await d.rights.cancelErasure(null, { token });
    expect(cancelled).toMatchObject({ _id: req._id, status: "cancelled" });
    expect(await d.rights.cancelLinkLive(token)).toBeNull();
    expect(await refusal(() => d.rights.cancelErasure(null, { token }))).toMatchObject({
      code: "not_found",
      message: "rights.cancelLinkInvalid",
    });
    // A cancelled erasure is never carried out.
    await d.rights.runDueErasures(new Date(Date.now() + 100 * HOUR));
    expect(await d.accounts.findUserById(p.id)).toBeDefined();
  });

  it("the person may cancel it signed in; then a new request is possible", async () => {
    const p = await makePatient();
    await d.rights.requestErasure(p, { password: p.password }, p.client);
    expect(await d.rights.cancelErasure(p, {})).toMatchObject({ status: "cancelled" });
    expect(await refusal(() => d.rights.cancelErasure(p, {}))).toMatchObject({
      message: "rights.noOpenErasure",
    });
    expect(await d.rights.requestErasure(p, { password: p.password }, p.client)).toMatchObject({
      status: "open",
    });
  });
});

describe("eraseAccount removes what decision 0022 lists", () => {
  it("account, sessions, reports and files, codes, SMS, contact and callback messages; the audit trail keeps a pseudonym", async () => {
    const mobile = uniqueMobile();
    const p = await makePatient({ contactNumber: mobile.slice(3) });
    const report = await makeReport(p);
    const fileKey = (await reportRow(report._id))!.fileKey;
    expect(await d.records.storedExists(fileKey)).toBe(true);
    // Traces elsewhere: a reset code row, an SMS, a contact message and a callback request.
    await d.accounts.requestPasswordReset(p.email, newClient());
    await d.messaging.queueSms({ to: mobile, text: "Your opinion is ready", purpose: "notice" });
    await d.messaging.saveContactMessage(
      p,
      { name: "Asha", email: p.email, message: "Please call me about my report" },
      newClient(),
    );
    await d.messaging.saveCallbackRequest(
      p,
      { name: "Asha", countryCode: "+91", phoneNumber: mobile.slice(3), message: "Evenings" },
      newClient(),
    );
    const s = d.schema;
    expect(await countWhere(s.smsMessages, eq(s.smsMessages.to, mobile))).toBe(1);
    expect(await countWhere(s.auditEvents, eq(s.auditEvents.actorId, p.id))).toBeGreaterThan(0);

    const out = await d.rights.eraseAccount(p, { password: p.password, immediate: true }, p.client);
    expect(out.erased).toBe(true);
    expect(await d.accounts.findUserById(p.id)).toBeUndefined();
    expect(await d.accounts.resolveToken(p.token, "web")).toBeNull();
    expect(await countWhere(s.sessions, eq(s.sessions.userId, p.id))).toBe(0);
    expect(await countWhere(s.reports, eq(s.reports.patientId, p.id))).toBe(0);
    expect(await d.records.storedExists(fileKey)).toBe(false);
    expect(await countWhere(s.passwordResetTokens, eq(s.passwordResetTokens.userId, p.id))).toBe(0);
    // The last SMS (purpose "erased") may still wait for the sender, which deletes it once sent.
    expect(
      await countWhere(s.smsMessages, and(eq(s.smsMessages.to, mobile), eq(s.smsMessages.purpose, "notice"))),
    ).toBe(0);
    expect(
      await countWhere(
        s.contactMessages,
        or(eq(s.contactMessages.userId, p.id), eq(s.contactMessages.email, p.email)),
      ),
    ).toBe(0);
    expect(await countWhere(s.callbackRequests, eq(s.callbackRequests.userId, p.id))).toBe(0);
    expect(await countWhere(s.auditEvents, eq(s.auditEvents.actorId, p.id))).toBe(0);
    expect(
      await countWhere(s.auditEvents, eq(s.auditEvents.actorId, d.rights.erasedPseudonym(p.id))),
    ).toBeGreaterThan(0);
  });

  it("family members only the erased account could reach go with it; one with a centre or another manager stays", async () => {
    const s = d.schema;
    const manager = await makePatient();
    const other = await makePatient();
    const centreId = `c${Date.now()}`;
    await d.db.db().insert(s.centres).values({ id: centreId, name: "HWC Hosur", kind: "hwc" });
    const dependant = async (id: string, extra: Record<string, unknown> = {}) => {
      await d.db
        .db()
        .insert(s.patients)
        .values({ id, firstName: `Dep ${id}`, ...extra });
      await d.db
        .db()
        .insert(s.patientManagers)
        .values({ patientId: id, managerId: manager.id, relationship: "son" });
      await d.db
        .db()
        .insert(s.patientConsents)
        .values({
          id: `${id}-consent`,
          patientId: id,
          kind: "guardian",
          textVersion: "v1",
          method: "online",
          recordedBy: manager.id,
        });
    };
    const stamp = Date.now().toString(36);
    const [alone, atCentre, shared] = [`alone${stamp}`, `centre${stamp}`, `shared${stamp}`];
    await dependant(alone);
    await dependant(atCentre, { centreId });
    await dependant(shared);
    await d.db.db().insert(s.patientManagers).values({ patientId: shared, managerId: other.id });
    // The manager uploads for the lone dependant (the guardian's consent is on record).
    const file = await d.records.storeUpload(
      (async function* () {
        yield Buffer.from("%PDF-1.4\n%%EOF\n");
      })(),
      { maxBytes: 1024 * 1024, allowed: "report", fileName: "son.pdf" },
    );
    const report = await d.consultation.createReport(
      manager,
      { reportType: "Blood Test", phoneNumber: "9876543210", countryCode: "+91" },
      file,
      { patientId: alone },
    );
    expect(report.patient._id).toBe(alone);
    const fileKey = (await reportRow(report._id))!.fileKey;

    await d.rights.eraseAccount(manager, { password: manager.password, immediate: true }, manager.client);
    expect(await countWhere(s.patients, eq(s.patients.id, alone))).toBe(0);
    expect(await countWhere(s.reports, eq(s.reports.patientId, alone))).toBe(0);
    expect(await d.records.storedExists(fileKey)).toBe(false);
    expect(await countWhere(s.patients, eq(s.patients.id, atCentre))).toBe(1);
    expect(await countWhere(s.patients, eq(s.patients.id, shared))).toBe(1);
    expect(await countWhere(s.patientManagers, eq(s.patientManagers.managerId, manager.id))).toBe(0);
  });

  it("an erased expert's letters stay with the patient but no longer name the signer", async () => {
    const expert = await makeExpert({ firstName: "Ravi", lastName: "Kumar" });
    const p = await makePatient();
    const report = await makeReport(p);
    await review(expert, report);
    expect(await reportRow(report._id)).toMatchObject({ signerFirstName: "Ravi" });

    await d.rights.eraseAccount(expert, { password: expert.password, immediate: true }, expert.client);
    expect(await reportRow(report._id)).toMatchObject({
      status: "Reviewed",
      review: expect.any(String),
      signerFirstName: null,
      signerLastName: null,
      signerRegistrationNumber: null,
    });
  });

  it("without the password nothing is erased, immediate or not", async () => {
    const p = await makePatient();
    expect(
      await refusal(() =>
        d.rights.eraseAccount(p, { password: "Not-the-password-1", immediate: true }, p.client),
      ),
    ).toMatchObject({ message: "profile.deletePasswordWrong" });
    expect(await d.accounts.findUserById(p.id)).toBeDefined();
  });
});
