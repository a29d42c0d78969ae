import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  freshDomain,
  makeAdmin,
  makeCentrePatient,
  makeDependant,
  makeExpert,
  makePatient,
  makeReport,
  makeShareLink,
  refusal,
  type Domain,
} from "../helpers/factories";

/*
 * The person in control of their profile, without HTTP: who may act for them, revoking a family
 * manager and the centre (at once, once, only by the person), and the access trail's entries and
 * wording. The screens and the API are in tests/integration/patient-control.test.ts.
 */

let d: Domain;
beforeAll(async () => {
  d = await freshDomain();
});
afterAll(() => d?.close());

const page = { page: 1, pageSize: 50 };

describe("who can act for a person, and revoking it", () => {
  it("lists the managers and the centre; revoking a manager ends their access at once, once", async () => {
    const mother = await makePatient({ firstName: "Lakshmi" });
    const son = await makePatient({ firstName: "Ravi" });
    const { worker, centreId } = await makeCentrePatient({ patient: mother.id, centreName: "HWC Sinnar" });
    await d.db
      .db()
      .insert(d.schema.patientManagers)
      .values({ patientId: mother.id, managerId: son.id, relationship: "mother", createdAt: new Date() });
    const before = await d.care.accessHolders(mother);
    expect(before.managers.map((m) => m.managerId)).toEqual([son.id]);
    expect(before.centre).toMatchObject({ _id: centreId, name: "HWC Sinnar" });
    expect((await d.care.patientAccess(son, mother.id))?.kind).toBe("manager");

    // A link her son made for her report, and one she made herself.
    const report = await makeReport(mother);
    const sons = await makeShareLink(son, report);
    const hers = await makeShareLink(mother, report);
    const linkRow = async (id: string) => {
      const { eq } = await import("drizzle-orm");
      const [row] = await d.db.db().select().from(d.schema.shareLinks).where(eq(d.schema.shareLinks.id, id));
      return row;
    };
    expect(await linkRow(sons._id)).toMatchObject({ createdBy: son.id, revokedAt: null });

    const after = await d.care.revokeManager(mother, son.id, { ip: "10.0.0.1" });
    expect(after.managers).toEqual([]);
    // The links he made for her end with his access; hers stay.
    expect((await linkRow(sons._id))!.revokedAt).not.toBeNull();
    expect(await linkRow(hers._id)).toMatchObject({ createdBy: mother.id, revokedAt: null });
    expect(await d.care.patientAccess(son, mother.id)).toBeNull();
    expect((await refusal(() => d.care.revokeManager(mother, son.id))).code).toBe("not_found");
    // The worker still may, until the centre is revoked too.
    expect((await d.care.patientAccess(worker, mother.id))?.kind).toBe("centre");
    await d.care.revokeCentreAccess(mother);
    expect(await d.care.patientAccess(worker, mother.id)).toBeNull();
    expect((await refusal(() => d.care.revokeCentreAccess(mother))).code).toBe("not_found");

    const trail = await d.care.accessTrail(mother, { locale: "en" }, page);
    expect(trail.items.map((e) => e.text)).toEqual([
      "Access of HWC Sinnar ended by you",
      `Access of Ravi ${son.lastName} ended by you`,
      `Sharing link made by Ravi ${son.lastName} (family)`,
    ]);
  });

  it("only the person revokes: a manager, a health worker, an expert or an admin cannot", async () => {
    const parent = await makePatient();
    const child = await makeDependant(parent);
    const { worker } = await makeCentrePatient();
    for (const actor of [worker, await makeExpert(), await makeAdmin()])
      expect((await refusal(() => d.care.revokeCentreAccess(actor))).code).toBe("forbidden");
    // The parent has no manager of their own: revoking themself from the child is not this function's.
    expect((await refusal(() => d.care.revokeManager(parent, parent.id))).code).toBe("not_found");
    expect((await d.care.patientAccess(parent, child))?.kind).toBe("manager");
  });
});

describe("the access trail", () => {
  it("records what a manager and a health worker did, worded with who and where; the person's own acts are not in it", async () => {
    const mother = await makePatient({ firstName: "Lakshmi" });
    const son = await makePatient({ firstName: "Ravi", lastName: "Kumar" });
    const { worker } = await makeCentrePatient({ patient: mother.id, centreName: "PHC Igatpuri" });
    await d.db
      .db()
      .insert(d.schema.patientManagers)
      .values({ patientId: mother.id, managerId: son.id, relationship: "mother", createdAt: new Date() });
    const report = await makeReport(mother);
    // The trail is newest first by the millisecond: each act a few milliseconds after the one
    // before, so no two share one (within a millisecond the order is not defined).
    const later = () => new Promise((r) => setTimeout(r, 5));
    await d.consultation.listPatientReports(mother, mother.id, page);
    await later();
    await d.consultation.listPatientReports(son, mother.id, page);
    await later();
    await d.consultation.listPatientReports(worker, mother.id, page);
    await later();
    const file = await d.consultation.openReportFile(son, report._id);
    file.stream.destroy();

    const en = await d.care.accessTrail(mother, { locale: "en" }, page);
    expect(en.items.map((e) => e.text)).toEqual([
      "Report file opened by Ravi Kumar (family)",
      `List of reports opened by Sunita ${worker.lastName} (health worker, PHC Igatpuri)`,
      "List of reports opened by Ravi Kumar (family)",
    ]);
    expect(en.items[0]).toMatchObject({ by: "manager", reportId: report._id, actor: { _id: son.id } });
    expect(en.items[1]).toMatchObject({ by: "centre", centre: { name: "PHC Igatpuri" } });
    const ta = await d.care.accessTrail(mother, { locale: "ta" }, page);
    expect(ta.items[2].text).toBe("Ravi Kumar (குடும்பம்) அறிக்கைகளின் பட்டியலைத் திறந்தார்");

    // Who reads it: the person and admins; not the manager of a person with a login, nor a stranger.
    expect(
      (await refusal(() => d.care.accessTrail(son, { patientId: mother.id, locale: "en" }, page))).code,
    ).toBe("forbidden");
    expect(
      (await refusal(() => d.care.accessTrail(worker, { patientId: mother.id, locale: "en" }, page))).code,
    ).toBe("forbidden");
    const admin = await makeAdmin();
    expect((await d.care.accessTrail(admin, { patientId: mother.id, locale: "en" }, page)).total).toBe(3);
    expect(
      (await refusal(() => d.care.accessTrail(admin, { patientId: "nope", locale: "en" }, page))).code,
    ).toBe("not_found");
  });

  it("every action a profile's trail can hold has its sentence in all four languages, never a code", async () => {
    const { patientId, worker } = await makeCentrePatient({ centreName: "HWC Niphad" });
    const actions = d.platform.PATIENT_ACTIONS; // the list the audit type allows for a profile
    expect(actions.length).toBeGreaterThan(15);
    for (const action of actions)
      await d.platform.audit(worker, action, "patient", patientId, { by: "centre" });
    const admin = await makeAdmin();
    const sentences: Record<string, string[]> = {};
    for (const locale of ["en", "hi", "bn", "ta"]) {
      const trail = await d.care.accessTrail(admin, { patientId, locale }, page);
      expect(trail.items.map((e) => e.action).sort()).toEqual([...actions].sort());
      sentences[locale] = trail.items.map((e) => e.text);
      for (const e of trail.items)
        expect(e.text, `${locale} ${e.action}`).not.toMatch(/[a-z]_[a-z]|patient\.|\{\{|takeover/);
      // Each action its own sentence: none fell back to the one for an unknown action.
      expect(new Set(sentences[locale]).size, locale).toBe(actions.length);
    }
    for (const locale of ["hi", "bn", "ta"])
      for (const [i, text] of sentences[locale].entries()) expect(text, locale).not.toBe(sentences.en[i]);
  });

  it("a centre's registration reads 'Registered by … at …'", async () => {
    const { patientId, worker } = await makeCentrePatient({ centreName: "HWC Nandgaon" });
    await d.platform.audit(worker, "patient.registered", "patient", patientId, { centreId: null });
    const admin = await makeAdmin();
    const trail = await d.care.accessTrail(admin, { patientId, locale: "en" }, page);
    expect(trail.items[0].text).toBe(`Registered by Sunita ${worker.lastName} at HWC Nandgaon`);
  });
});

describe("repeats in a trail are one line (decision 0073)", () => {
  it("the same person doing the same thing within minutes reads '…, 3 times'; others and later ones stay apart", async () => {
    const { patientId, worker } = await makeCentrePatient({ centreName: "PHC Manmad" });
    const other = await makeCentrePatient({ centreName: "PHC Yeola" });
    const { desc, eq } = await import("drizzle-orm");
    const events = d.schema.auditEvents;
    const base = Date.parse("2026-11-26T12:42:00Z");
    // Oldest first: the worker opens the list 3 times in a minute, a colleague once, the worker
    // again 40 minutes later, then twice 20 minutes apart (not one reading).
    const acts: [typeof worker, number][] = [
      [worker, 0],
      [worker, 20_000],
      [worker, 55_000],
      [other.worker, 70_000],
      [worker, 40 * 60_000],
      [worker, 60 * 60_000],
      [worker, 80 * 60_000],
    ];
    for (const [who, at] of acts) {
      await d.platform.audit(who, "patient.reports_open", "patient", patientId, { by: "centre" });
      const [last] = await d.db
        .db()
        .select({ id: events.id })
        .from(events)
        .where(eq(events.subjectId, patientId))
        .orderBy(desc(events.createdAt))
        .limit(1);
      await d.db
        .db()
        .update(events)
        .set({ createdAt: new Date(base + at) })
        .where(eq(events.id, last.id));
    }
    const admin = await makeAdmin();
    const trail = await d.care.accessTrail(admin, { patientId, locale: "en" }, page);
    expect(trail.items.map((e) => e.count)).toEqual([1, 1, 1, 1, 3]);
    const read = trail.items[4];
    expect(read.text).toBe(
      `List of reports opened by Sunita ${worker.lastName} (health worker, PHC Manmad), 3 times`,
    );
    expect(read).toMatchObject({
      at: new Date(base + 55_000).toISOString(),
      firstAt: new Date(base).toISOString(),
    });
    expect(trail.total).toBe(7); // the events themselves are all kept
    const hi = await d.care.accessTrail(admin, { patientId, locale: "hi" }, page);
    expect(hi.items[4].text).toMatch(/, 3 बार$/);
  });

  it("the report card's views fold the same way (the rule the card draws with)", async () => {
    const { foldRepeats } = await import("~/domain/platform/repeats");
    const at = (min: number) => new Date(Date.parse("2026-11-26T12:42:00Z") - min * 60_000).toISOString();
    const view = (name: string, min: number) => ({ name, at: at(min) });
    const lines = foldRepeats(
      [view("X", 0), view("X", 0.5), view("X", 1), view("Y", 2), view("X", 3), view("X", 30)],
      (a, b) => a.name === b.name,
    );
    expect(lines.map((l) => [l.name, l.count])).toEqual([
      ["X", 3],
      ["Y", 1],
      ["X", 1],
      ["X", 1],
    ]);
    expect(lines[0]).toMatchObject({ at: at(0), firstAt: at(1) });
  });
});

describe("consents given by others", () => {
  it("the person's consent overview lists the facilitated consent; a manager reads a dependant's", async () => {
    const mother = await makePatient();
    await makeCentrePatient({ patient: mother.id, centreName: "HWC Sinnar" });
    const overview = await d.rights.consentOverview(mother, "en");
    expect(overview.profileConsents).toEqual([
      expect.objectContaining({
        kind: "facilitated",
        method: "witnessed",
        witnessName: "Gita Bai",
        centre: expect.objectContaining({ name: "HWC Sinnar" }),
      }),
    ]);
    const parent = await makePatient();
    const child = await makeDependant(parent);
    const theirs = await d.rights.consentOverview(parent, "en", { patientId: child });
    expect(theirs.profileConsents).toEqual([expect.objectContaining({ kind: "guardian", method: "online" })]);
    expect((await refusal(() => d.rights.consentOverview(mother, "en", { patientId: child }))).code).toBe(
      "forbidden",
    );
  });
});
