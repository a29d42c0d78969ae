import { inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  freshDomain,
  makeExpert,
  makePatient,
  makeReport,
  refusal,
  review,
  type Domain,
  type Person,
} from "../helpers/factories";

/*
 * Consent without HTTP: records are appended only when something changes, withdrawing review
 * consent takes the waiting reports out of the queue (reviewed ones stay), uploading again needs
 * consent, and a withdrawn contact consent hides the number from everyone but the patient.
 * The screens and the API stay in tests/integration/privacy.test.ts and rights.test.ts.
 */

let d: Domain;
beforeAll(async () => {
  d = await freshDomain();
});
afterAll(() => d?.close());

const page = { page: 1, pageSize: 100 };
const settings = { via: "settings" as const, locale: "en" };

function change(p: Person, purpose: "review" | "contact" | "statistics", granted: boolean) {
  return d.rights.changeConsent(p, { purpose, granted }, settings);
}

async function pendingIds(expert: Person) {
  return (await d.consultation.listPendingReports(expert, page)).items.map((r) => r._id);
}

describe("review consent", () => {
  it("withdrawing it takes the waiting reports out of the queue and deletes their files; reviewed ones stay", async () => {
    const p = await makePatient();
    const expert = await makeExpert();
    const waiting = [await makeReport(p), await makeReport(p, { urgency: "urgent" })];
    const reviewed = await makeReport(p);
    await review(expert, reviewed);
    const claimed = await makeReport(p);
    await d.consultation.claimReport(expert, claimed._id);
    expect(await pendingIds(expert)).toEqual(expect.arrayContaining([...waiting, claimed].map((r) => r._id)));
    const s = d.schema;
    const keys = (
      await d.db
        .db()
        .select({ key: s.reports.fileKey })
        .from(s.reports)
        .where(
          inArray(
            s.reports.id,
            [...waiting, claimed].map((r) => r._id),
          ),
        )
    ).map((r) => r.key);
    expect(keys).toHaveLength(3);
    for (const k of keys) expect(await d.records.storedExists(k)).toBe(true);

    const overview = await d.rights.consentOverview(p, "en");
    expect(overview.withdrawEffect).toEqual({ pendingReports: 3, reviewedReports: 1 });

    const after = await change(p, "review", false);
    expect(after.withdrawnReports).toBe(3);
    expect(after.consents.find((c) => c.purpose === "review")).toMatchObject({
      granted: false,
      recorded: true,
    });
    const queue = await pendingIds(expert);
    for (const r of [...waiting, claimed]) {
      expect(queue).not.toContain(r._id);
      expect(await refusal(() => d.consultation.openReportFile(p, r._id, null))).toMatchObject({
        code: "not_found",
      });
    }
    for (const k of keys) expect(await d.records.storedExists(k)).toBe(false);
    const mine = await d.consultation.listPatientReports(p, p.id, page);
    expect(mine.items.map((r) => r._id)).toEqual([reviewed._id]);
  });

  it("after a withdrawal an upload needs the consent box again, which gives consent anew", async () => {
    const p = await makePatient();
    await makeReport(p);
    await change(p, "review", false);
    expect(await refusal(() => makeReport(p, { consent: false }))).toMatchObject({
      code: "invalid",
      message: "reports.consentRequired",
    });
    const r = await makeReport(p, { consent: true });
    expect(r.status).toBe("Pending");
    const overview = await d.rights.consentOverview(p, "en");
    expect(overview.consents.find((c) => c.purpose === "review")).toMatchObject({
      granted: true,
      via: "upload",
    });
  });

  it("a change is recorded once: the same answer again adds no record", async () => {
    const p = await makePatient();
    await change(p, "statistics", true);
    await change(p, "statistics", true);
    await change(p, "statistics", false);
    await change(p, "statistics", false);
    const { history, consents } = await d.rights.consentOverview(p, "en");
    expect(history.filter((h) => h.purpose === "statistics").map((h) => h.granted)).toEqual([false, true]);
    expect(consents.find((c) => c.purpose === "statistics")).toMatchObject({ granted: false });
  });

  it("only patients have consents", async () => {
    const expert = await makeExpert();
    expect(await refusal(() => change(expert, "review", false))).toMatchObject({
      code: "forbidden",
      message: "rights.consentsPatientsOnly",
    });
  });
});

describe("contact consent", () => {
  it("withdrawn: experts see the number masked, the patient still sees it", async () => {
    const p = await makePatient();
    const expert = await makeExpert();
    const r = await makeReport(p);
    const seen = async (who: Person) =>
      who.accountType === "Patient"
        ? (await d.consultation.listPatientReports(who, p.id, page)).items.find((x) => x._id === r._id)!
            .phoneNumber
        : (await d.consultation.listPendingReports(who, page)).items.find((x) => x._id === r._id)!
            .phoneNumber;
    expect(await seen(expert)).toBe("+919876543210");
    await change(p, "contact", false);
    expect(await seen(expert)).toBe(d.rights.HIDDEN_PHONE);
    expect(await seen(p)).toBe("+919876543210");
    await change(p, "contact", true);
    expect(await seen(expert)).toBe("+919876543210");
  });
});
