import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  claim,
  freshDomain,
  makeCentre,
  makeExpert,
  makeHealthWorker,
  makePatient,
  mailsTo,
  refusal,
  review,
  uniqueMobile,
  type Domain,
  type Person,
} from "../helpers/factories";
import { samplePdf, samplePng } from "../helpers/files";
import { checkConsentShown, FACILITATED_CONSENT_VERSIONS } from "~/schemas/consent-versions";

/*
 * Registering at a centre without HTTP: the consent rules and what a refusal leaves behind (nothing,
 * not even the photo), the short ID, who sees the centre's queue, the consent photo kept by the
 * file sweep, follow-up questions on the patient's behalf, and who is told when the opinion is
 * ready. The HTTP side (multipart, statuses, screens, Kannel) is tests/integration/centre-registration.test.ts.
 */

let d: Domain;
let centre: { id: string; name: string };
let otherCentre: { id: string; name: string };
let worker: Person;
let colleague: Person;
let stranger: Person;

async function* chunks(buf: Buffer) {
  yield new Uint8Array(buf);
}

const storePhoto = () =>
  d.records.storeUpload(chunks(samplePng()), {
    maxBytes: 1_000_000,
    allowed: "image",
    fileName: "thumb.png",
  });

const BASE = {
  firstName: "Kamla",
  lastName: "Devi",
  sex: "female",
  age: "70",
  locality: "Rampur",
  preferredLanguage: "hi",
  phoneOwner: "none",
  consent: "granted",
  consentMethod: "verbal",
};

beforeAll(async () => {
  d = await freshDomain();
  centre = await makeCentre({ name: "Arogya Mandir Rampur" });
  otherCentre = await makeCentre({ name: "PHC Sonpur", kind: "phc" });
  worker = await makeHealthWorker(centre, { firstName: "Sunita" });
  colleague = await makeHealthWorker(centre);
  stranger = await makeHealthWorker(otherCentre);
});
afterAll(() => d?.close());

describe("registerPatient", () => {
  it("registers with the consent and a short ID; the year from an age is marked estimated", async () => {
    const p = await d.care.registerPatient(worker, BASE, null);
    expect(p.shortId).toMatch(/^CB-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{2}$/);
    expect(p.birthYearEstimated).toBe(true);
    expect(p.centreId).toBe(centre.id);
    expect(p.consent).toMatchObject({ method: "verbal", recordedByName: `Sunita ${worker.lastName}` });
    expect(await d.care.hasConsentFor(p._id)).toBe(true);
    expect(d.care.normalShortId(p.shortId!.toLowerCase().replace(/-/g, ""))).toBe(p.shortId);
  });

  it("a refusal leaves nothing behind, not even the photo", async () => {
    const photo = await storePhoto();
    const before = (await d.db.db().select().from(d.schema.patients)).length;
    const err = await refusal(() =>
      d.care.registerPatient(worker, { ...BASE, consent: "refused", consentMethod: "thumbprint" }, photo),
    );
    expect(err.message).toBe("registration.notRegistered");
    expect((await d.db.db().select().from(d.schema.patients)).length).toBe(before);
    expect(await d.records.storedExists(photo.key)).toBe(false);
  });

  it("each method's proof: witness name, photo; a bad field removes the photo", async () => {
    const noWitness = await refusal(() =>
      d.care.registerPatient(worker, { ...BASE, consentMethod: "witnessed" }, null),
    );
    expect(noWitness.extra.fieldErrors.witnessName).toEqual(["registration.witnessRequired"]);
    const noPhoto = await refusal(() =>
      d.care.registerPatient(worker, { ...BASE, consentMethod: "signature" }, null),
    );
    expect(noPhoto.extra.fieldErrors.evidence).toEqual(["registration.evidenceRequired"]);
    const photo = await storePhoto();
    await refusal(() =>
      d.care.registerPatient(worker, { ...BASE, consentMethod: "signature", firstName: "" }, photo),
    );
    expect(await d.records.storedExists(photo.key)).toBe(false);
    const kept = await storePhoto();
    const p = await d.care.registerPatient(worker, { ...BASE, consentMethod: "signature" }, kept);
    expect(p.consent?.hasEvidence).toBe(true);
    expect(await d.records.storedExists(kept.key)).toBe(true);
    // The hourly sweep of files nobody refers to keeps the consent photo.
    await d.records.sweepLeftovers(Date.now() + 86_400_000);
    expect(await d.records.storedExists(kept.key)).toBe(true);
  });

  it("only approved health workers of a centre register", async () => {
    const waiting = await makeHealthWorker(centre, { approved: false });
    const patient = await makePatient();
    const expert = await makeExpert();
    for (const who of [waiting, patient, expert]) {
      const err = await refusal(() => d.care.registerPatient(who, BASE, null));
      expect(err.code).toBe("forbidden");
    }
  });
});

describe("consent read aloud offline and sent later (decision 0064)", () => {
  const CURRENT = FACILITATED_CONSENT_VERSIONS.at(-1)!;
  const HOUR = 3_600_000;

  it("the version in use when it was read is accepted and the time is kept, in the API and My data", async () => {
    const shownAt = new Date(Math.max(Date.now() - 2 * HOUR, Date.parse(CURRENT.from) + 1000));
    const p = await d.care.registerPatient(
      worker,
      { ...BASE, consentTextVersion: CURRENT.version, consentShownAt: shownAt.toISOString() },
      null,
    );
    expect(p.consent).toMatchObject({ textVersion: CURRENT.version, shownAt: shownAt.toISOString() });
    const read = await d.care.getCarePatient(worker, p._id, { trace: false });
    expect(read.consent?.shownAt).toBe(shownAt.toISOString());
    expect((await d.rights.profileConsents(p._id))[0].shownAt).toBe(shownAt.toISOString());
  });

  it("without a time it is as before: the text in use now, shown now", async () => {
    const p = await d.care.registerPatient(worker, { ...BASE, consentTextVersion: CURRENT.version }, null);
    expect(p.consent).toMatchObject({ textVersion: CURRENT.version, shownAt: null });
  });

  it("refused, saving nothing: a time ahead of the clock, before the text was in use, or not a time", async () => {
    const before = (await d.db.db().select().from(d.schema.patients)).length;
    const at = async (consentShownAt: string, consentTextVersion = CURRENT.version) =>
      (
        await refusal(() =>
          d.care.registerPatient(worker, { ...BASE, consentTextVersion, consentShownAt }, null),
        )
      ).extra.fieldErrors;
    expect(await at(new Date(Date.now() + 10 * 60_000).toISOString())).toEqual({
      consentShownAt: ["registration.consentShownFuture"],
    });
    // Before the current text began: not in use then (or, once that is over 30 days ago, too old).
    const early = await at(new Date(Date.parse(CURRENT.from) - HOUR).toISOString());
    expect(early.consentShownAt[0]).toMatch(/^registration\.consentShown(NotCurrent|TooOld)$/);
    expect(await at(new Date(Date.now() - 31 * 24 * HOUR).toISOString())).toEqual({
      consentShownAt: ["registration.consentShownTooOld"],
    });
    expect(await at("yesterday")).toEqual({ consentShownAt: ["registration.consentShownAtInvalid"] });
    expect(await at(new Date().toISOString(), "facilitated-2020-01")).toEqual({
      consentTextVersion: ["registration.consentTextChanged"],
    });
    expect((await d.db.db().select().from(d.schema.patients)).length).toBe(before);
  });

  it("the rule itself: a version is accepted only for times it was in use, within the bounds", () => {
    const versions = [
      { version: "v-old", from: "2026-05-01T00:00:00+05:30", until: "2026-11-01T00:00:00+05:30" },
      { version: "v-new", from: "2026-11-01T00:00:00+05:30", until: null },
    ];
    const now = new Date("2026-11-20T12:00:00Z");
    const check = (version: string, at?: string) =>
      checkConsentShown(version, at ? new Date(at) : undefined, now, versions);
    // An older version read while it was in use, sent later.
    expect(check("v-old", "2026-10-31T18:00:00+05:30")).toEqual({ ok: true, version: "v-old" });
    // The same version read after it stopped being in use.
    expect(check("v-old", "2026-11-02T10:00:00+05:30")).toMatchObject({
      ok: false,
      field: "consentShownAt",
      message: "registration.consentShownNotCurrent",
    });
    expect(check("v-new", "2026-10-31T18:00:00+05:30")).toMatchObject({ ok: false });
    // No version named: the one in use then.
    expect(check("", "2026-10-31T18:00:00+05:30")).toEqual({ ok: true, version: "v-old" });
    // Online (no time): only the version in use now.
    expect(check("v-new")).toEqual({ ok: true, version: "v-new" });
    expect(check("v-old")).toMatchObject({ ok: false, field: "consentTextVersion" });
    // Clock skew: up to 5 minutes ahead counts as now; more is refused; 30 days is the limit back.
    expect(check("v-new", "2026-11-20T12:04:00Z")).toEqual({ ok: true, version: "v-new" });
    expect(check("v-new", "2026-11-20T12:06:00Z")).toMatchObject({
      message: "registration.consentShownFuture",
    });
    expect(check("v-old", "2026-10-20T11:59:00Z")).toMatchObject({
      message: "registration.consentShownTooOld",
    });
  });
});

describe("the centre's patients", () => {
  it("the queue has the worker's own centre only; a revoked centre loses the patient", async () => {
    const p = await d.care.registerPatient(worker, { ...BASE, firstName: "Revoka" }, null);
    const mine = await d.care.centreQueue(colleague, { page: 1, pageSize: 100 }, { q: "revoka" });
    expect(mine.items.map((i) => i._id)).toEqual([p._id]);
    expect((await d.care.centreQueue(stranger, { page: 1, pageSize: 100 })).items).toEqual([]);
    expect((await refusal(() => d.care.getCarePatient(stranger, p._id))).code).toBe("forbidden");
    const { eq } = await import("drizzle-orm");
    await d.db
      .db()
      .update(d.schema.patients)
      .set({ centreAccessRevokedAt: new Date() })
      .where(eq(d.schema.patients.id, p._id));
    expect((await d.care.centreQueue(worker, { page: 1, pageSize: 100 }, { q: "revoka" })).items).toEqual([]);
    expect((await refusal(() => d.care.getCarePatient(worker, p._id))).code).toBe("forbidden");
  });
});

describe("when the opinion is ready, and after", () => {
  it("tells the centre's approved, unsuspended workers and texts the phone without the name", async () => {
    const suspended = await makeHealthWorker(centre, { suspended: true });
    const waiting = await makeHealthWorker(centre, { approved: false });
    const phone = uniqueMobile();
    const p = await d.care.registerPatient(
      worker,
      { ...BASE, firstName: "Sukhiya", phoneOwner: "family", phone, phoneRelationship: "son" },
      null,
    );
    const file = await d.records.storeUpload(chunks(samplePdf("hb")), {
      maxBytes: 1_000_000,
      allowed: "report",
      fileName: "hb.pdf",
    });
    const report = await d.consultation.createReport(
      worker,
      {
        reportType: "Blood Test",
        phoneNumber: "9876543210",
        countryCode: "+91",
        consent: "on",
        patientId: p._id,
      },
      file,
    );
    const expert = await makeExpert();
    await claim(expert, report);
    await review(expert, report, "Mild anaemia");
    const heard = await mailsTo(worker.email, /opinion is ready/);
    expect(heard[0].subject).toContain(p.shortId!);
    expect(heard[0].body).not.toContain("Sukhiya");
    expect(await mailsTo(colleague.email, /opinion is ready/)).toHaveLength(1);
    expect(await mailsTo(suspended.email, /opinion is ready/, 300)).toEqual([]);
    expect(await mailsTo(waiting.email, /opinion is ready/, 300)).toEqual([]);
    expect(await mailsTo(stranger.email, /opinion is ready/, 300)).toEqual([]);
    const { eq } = await import("drizzle-orm");
    const sms = await d.db.db().select().from(d.schema.smsMessages).where(eq(d.schema.smsMessages.to, phone));
    expect(sms).toHaveLength(1);
    expect(sms[0].purpose).toBe("opinion-ready");
    expect(sms[0].text).toContain(centre.name);
    expect(sms[0].text).not.toMatch(/Sukhiya|anaemia|Blood/i);

    // The worker asks the question the patient dictates; another centre's worker may not.
    const f = await d.consultation.askFollowUp(worker, report._id, { question: "Can she eat jaggery?" });
    expect(f.question).toBe("Can she eat jaggery?");
    expect(
      (await refusal(() => d.consultation.askFollowUp(stranger, report._id, { question: "?" }))).code,
    ).toBe("forbidden");
    const queue = await d.care.centreQueue(worker, { page: 1, pageSize: 100 }, { q: p.shortId! });
    expect(queue.items[0]).toMatchObject({ opinionReady: true, followUpsPending: 1 });
  });
});

describe("a family account's members", () => {
  it("uploads for a member it manages (with the consent given for them) and asks on their behalf", async () => {
    const parent = await makePatient();
    const { randomBytes } = await import("node:crypto");
    const dependantId = randomBytes(12).toString("hex");
    await d.db.db().insert(d.schema.patients).values({ id: dependantId, firstName: "Chhoti", locale: "hi" });
    await d.db
      .db()
      .insert(d.schema.patientManagers)
      .values({ patientId: dependantId, managerId: parent.id, relationship: "daughter" });
    const upload = async () =>
      d.consultation.createReport(
        parent,
        {
          reportType: "Blood Test",
          phoneNumber: "9876543210",
          countryCode: "+91",
          consent: "on",
          patientId: dependantId,
        },
        await d.records.storeUpload(chunks(samplePdf("x")), {
          maxBytes: 1_000_000,
          allowed: "report",
          fileName: "x.pdf",
        }),
      );
    // Without a consent recorded for the member, nothing is filed.
    expect((await refusal(upload)).extra.fieldErrors.patientId).toEqual(["care.consentMissing"]);
    await d.db
      .db()
      .insert(d.schema.patientConsents)
      .values({
        id: randomBytes(12).toString("hex"),
        patientId: dependantId,
        kind: "family",
        textVersion: "family-2026-11",
        method: "online",
        recordedBy: parent.id,
      });
    const report = await upload();
    expect(report.patient._id).toBe(dependantId);
    expect((await d.care.familyProfiles(parent)).map((p) => p.id)).toEqual([parent.id, dependantId]);
    const expert = await makeExpert();
    await claim(expert, report);
    await review(expert, report);
    await d.consultation.askFollowUp(parent, report._id, { question: "Should she fast?" });
    const { and, eq } = await import("drizzle-orm");
    const trail = await d.db
      .db()
      .select()
      .from(d.schema.auditEvents)
      .where(
        and(
          eq(d.schema.auditEvents.subjectId, dependantId),
          eq(d.schema.auditEvents.action, "patient.followup_ask"),
        ),
      );
    expect(trail).toHaveLength(1);
  });
});
