import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  claim,
  freshDomain,
  makeExpert,
  pdfBytes,
  review,
  makeAdmin,
  makeCentre,
  makeHealthWorker,
  refusal,
  type Domain,
  type Person,
} from "../helpers/factories";
import { samplePng } from "../helpers/files";
import { wav } from "../helpers/audio";

/*
 * Held items without HTTP (decision 0065): a suspended worker's ended session still names them to
 * the outbox (and nothing else), a moved worker's items recorded at the old centre are refused, a
 * refused item is kept once per Idempotency-Key with its file, and an admin hands it to another
 * worker of the centre exactly once. The HTTP side is tests/integration/held-items.test.ts.
 */

let d: Domain;
let centre: { id: string; name: string };
let otherCentre: { id: string; name: string };
let admin: Person;
let colleague: Person;
let outsider: Person;

async function* chunks(buf: Buffer) {
  yield new Uint8Array(buf);
}
const storePhoto = () =>
  d.records.storeUpload(chunks(samplePng()), {
    maxBytes: 1_000_000,
    allowed: "image",
    fileName: "thumb.png",
  });

const REGISTRATION = {
  firstName: "Kamla",
  lastName: "Offline",
  sex: "female",
  age: "70",
  locality: "Rampur",
  preferredLanguage: "hi",
  phoneOwner: "none",
  consent: "granted",
  consentMethod: "thumbprint",
};

beforeAll(async () => {
  d = await freshDomain();
  centre = await makeCentre({ name: "Arogya Mandir Rampur" });
  otherCentre = await makeCentre({ name: "PHC Sonpur", kind: "phc" });
  admin = await makeAdmin();
  colleague = await makeHealthWorker(centre, { firstName: "Rekha" });
  outsider = await makeHealthWorker(otherCentre);
});
afterAll(() => d?.close());

const heldRows = (workerId: string) =>
  d.db
    .db()
    .select()
    .from(d.schema.heldItems)
    .then((rows) => rows.filter((r) => r.workerId === workerId));

describe("a suspended worker's outbox", () => {
  it("is told why through the ended session's tombstone, which signs nobody in", async () => {
    const worker = await makeHealthWorker(centre, { firstName: "Sunita", lastName: "Suspended" });
    await d.care.updateHealthWorker(admin, worker.id, { suspended: true });
    expect(await d.accounts.resolveToken(worker.token, "web")).toBeNull();
    const refused = await d.consultation.outboxRefusal({
      actor: null,
      endedToken: worker.token,
      claimedCentreId: null,
    });
    expect(refused).toMatchObject({ reason: "suspended", centre: { _id: centre.id, name: centre.name } });
    // Another token, or the same after reinstatement, is nobody.
    expect(
      await d.consultation.outboxRefusal({ actor: null, endedToken: "x".repeat(43), claimedCentreId: null }),
    ).toBeNull();
    await d.care.updateHealthWorker(admin, worker.id, { suspended: false });
    expect(await d.accounts.endedSessionOf(worker.token)).toBeNull();
  });

  it("keeps a refused registration once per key, with its photo, and hands it over exactly once", async () => {
    const worker = await makeHealthWorker(centre, { firstName: "Sunita", lastName: "Held" });
    await d.care.updateHealthWorker(admin, worker.id, { suspended: true });
    const refused = (await d.consultation.outboxRefusal({
      actor: null,
      endedToken: worker.token,
      claimedCentreId: centre.id,
    }))!;
    const hold = async () =>
      d.consultation.holdItem(
        refused,
        { kind: "register", key: "item-1", fields: REGISTRATION, file: await storePhoto() },
        worker.client,
      );
    const [first, again] = await Promise.all([hold(), hold()]);
    expect(first!._id).toBe(again!._id);
    const rows = await heldRows(worker.id);
    expect(rows).toHaveLength(1);
    expect(await d.records.storedExists(rows[0].fileKey!)).toBe(true);
    // The leftover sweep keeps the held photo.
    await d.records.sweepLeftovers(Date.now() + 3_600_000);
    expect(await d.records.storedExists(rows[0].fileKey!)).toBe(true);

    const list = await d.consultation.listHeldItems(admin, centre.id, { page: 1, pageSize: 20 });
    expect(list.items.map((i) => i._id)).toContain(first!._id);
    expect(JSON.stringify(list.items)).not.toContain("Kamla"); // no patient content in the list
    expect(
      (await refusal(() => d.consultation.listHeldItems(colleague, centre.id, { page: 1, pageSize: 20 })))
        .code,
    ).toBe("forbidden");

    const hand = (to: Person, by: Person = admin) =>
      d.consultation.handOverHeldItem(by, centre.id, first!._id, { workerId: to.id });
    expect((await refusal(() => hand(colleague, colleague))).code).toBe("forbidden");
    expect(await refusal(() => hand(outsider))).toMatchObject({
      code: "invalid",
      message: "held.workerNotHere",
    });
    const suspendedColleague = await makeHealthWorker(centre, { suspended: true });
    expect(await refusal(() => hand(suspendedColleague))).toMatchObject({ message: "held.workerSuspended" });
    expect(
      await refusal(() =>
        d.consultation.handOverHeldItem(admin, otherCentre.id, first!._id, { workerId: outsider.id }),
      ),
    ).toMatchObject({ code: "not_found" });

    // Two admins at once: one registration, the other told it is gone.
    const outcomes = await Promise.allSettled([hand(colleague), hand(colleague)]);
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    const lost = outcomes.find((o) => o.status === "rejected") as PromiseRejectedResult;
    expect(lost.reason).toMatchObject({ code: "conflict", message: "held.alreadyHanded" });
    const done = (await heldRows(worker.id))[0];
    expect(done).toMatchObject({ status: "handed", handedTo: colleague.id, fileKey: null });
    const patients = (await d.db.db().select().from(d.schema.patients)).filter(
      (p) => p.lastName === "Offline",
    );
    expect(patients).toHaveLength(1);
    expect(patients[0]).toMatchObject({ id: done.resultId, centreId: centre.id, registeredBy: colleague.id });
    const consent = (await d.db.db().select().from(d.schema.patientConsents)).find(
      (c) => c.patientId === patients[0].id,
    )!;
    // The consent stays the one the suspended worker read aloud, with its photo.
    expect(consent).toMatchObject({
      recordedBy: worker.id,
      recordedByName: "Sunita Held",
      method: "thumbprint",
    });
    expect(await d.records.storedExists(consent.evidenceKey!)).toBe(true);
    expect(await d.records.storedExists(rows[0].fileKey!)).toBe(false);
    expect((await refusal(() => hand(colleague))).code).toBe("conflict");
  });

  it("a refused hand-over (the recorded fields no longer pass) leaves it held", async () => {
    const worker = await makeHealthWorker(centre);
    await d.care.updateHealthWorker(admin, worker.id, { suspended: true });
    const refused = (await d.consultation.outboxRefusal({
      actor: null,
      endedToken: worker.token,
      claimedCentreId: null,
    }))!;
    const item = await d.consultation.holdItem(
      refused,
      {
        kind: "register",
        key: "k",
        fields: { ...REGISTRATION, consentMethod: "verbal", age: "" },
        file: null,
      },
      worker.client,
    );
    const r = await refusal(() =>
      d.consultation.handOverHeldItem(admin, centre.id, item!._id, { workerId: colleague.id }),
    );
    expect(r.code).toBe("invalid");
    expect((await heldRows(worker.id))[0]).toMatchObject({ status: "held", handedTo: null });
  });
});

describe("a moved worker's outbox", () => {
  it("refuses items recorded at the old centre and keeps them there; the new centre's go on", async () => {
    const worker = await makeHealthWorker(centre, { firstName: "Meena", lastName: "Moved" });
    await d.care.updateHealthWorker(admin, worker.id, { centreId: otherCentre.id });
    const actor = (await d.accounts.resolveToken(worker.token, "web"))!;
    expect(
      await d.consultation.outboxRefusal({ actor, endedToken: null, claimedCentreId: centre.id }),
    ).toMatchObject({
      reason: "moved",
      centre: { _id: centre.id },
      movedTo: { _id: otherCentre.id, name: otherCentre.name },
    });
    expect(
      await d.consultation.outboxRefusal({ actor, endedToken: null, claimedCentreId: otherCentre.id }),
    ).toBeNull();
    // A centre they never worked at is not theirs to leave items at.
    const third = await makeCentre();
    expect(
      await d.consultation.outboxRefusal({ actor, endedToken: null, claimedCentreId: third.id }),
    ).toBeNull();
  });
});

describe("held uploads, voice notes and follow-ups", () => {
  it("are filed for the patient as the worker they are handed to", async () => {
    const worker = await makeHealthWorker(centre);
    const patient = await d.care.registerPatient(worker, { ...REGISTRATION, consentMethod: "verbal" }, null);
    const pdf = () => d.records.storeUpload(chunks(pdfBytes()), { maxBytes: 1_000_000, allowed: "report" });
    const upload = {
      reportType: "Blood Test",
      phoneNumber: "98765 43210",
      countryCode: "+91",
      patientId: patient._id,
    };
    const report = await d.consultation.createReport(worker, upload, await pdf());
    const expert = await makeExpert();
    await claim(expert, report);
    await review(expert, report);
    await d.care.updateHealthWorker(admin, worker.id, { suspended: true });
    const refused = (await d.consultation.outboxRefusal({
      actor: null,
      endedToken: worker.token,
      claimedCentreId: null,
    }))!;
    const heldUpload = await d.consultation.holdItem(
      refused,
      { kind: "upload", key: "u", fields: upload, file: await pdf() },
      worker.client,
    );
    const heldQuestion = await d.consultation.holdItem(
      refused,
      {
        kind: "follow-up",
        key: "f",
        fields: { question: "Should she fast before the next test?", reportId: report._id },
        file: null,
      },
      worker.client,
    );
    const heldVoice = await d.consultation.holdItem(
      refused,
      {
        kind: "voice",
        key: "v",
        fields: { kind: "description", language: "hi", reportId: report._id },
        file: await d.records.storeUpload(chunks(wav(1)), {
          maxBytes: 1024 * 1024,
          allowed: "audio",
          fileName: "v.wav",
        }),
      },
      worker.client,
    );
    const spoken = await d.consultation.handOverHeldItem(admin, centre.id, heldVoice!._id, {
      workerId: colleague.id,
    });
    const notes = await d.db.db().select().from(d.schema.voiceNotes);
    expect(notes.find((n) => n.id === spoken.resultId)).toMatchObject({
      reportId: report._id,
      authorId: colleague.id,
    });
    const filed = await d.consultation.handOverHeldItem(admin, centre.id, heldUpload!._id, {
      workerId: colleague.id,
    });
    const reports = await d.db.db().select().from(d.schema.reports);
    expect(reports.find((r) => r.id === filed.resultId)).toMatchObject({
      patientId: patient._id,
      centreId: centre.id,
    });
    const asked = await d.consultation.handOverHeldItem(admin, centre.id, heldQuestion!._id, {
      workerId: colleague.id,
    });
    const followUps = await d.db.db().select().from(d.schema.reportFollowups);
    expect(followUps.find((f) => f.id === asked.resultId)).toMatchObject({ reportId: report._id });
  });
});
