import { and, asc, desc, eq, inArray, isNull, sql } from "drizzle-orm";
import type { TFunction } from "i18next";
import { db, first, unindexed } from "~/db/client.server";
import {
  labValues,
  type LabValueRow,
  auditEvents,
  centres,
  consentRecords,
  patientConsents,
  patientManagers,
  profiles,
  reports,
  shareLinks,
  users,
  type AccountType,
  type PatientRow,
  type ReportRow,
  type UserRow,
} from "~/db/schema";
import { isLocale, type Locale } from "~/i18n/config";
import { getT } from "~/i18n/i18n.server";
import { parseDetail } from "../platform/index.server";
import { expertDetailsFor, type ApiExpertDetails } from "../accounts/index.server";
import { followUpsFor, stepsFor, type ApiFollowUp, type ApiNextStep } from "../consultation/index.server";

/**
 * What a FHIR export is made from (decision 0018): one consistent read of the patient's rows —
 * the profile, their login, family managers, centres, consents, reports with their follow-ups,
 * the file openings and exports of their data, and everyone these name.
 */

export type Person = { id: string; firstName: string; lastName: string; accountType: AccountType };

export type EventRow = typeof auditEvents.$inferSelect;

type ManagerRow = {
  managerId: string;
  firstName: string;
  lastName: string;
  relationship: string;
  gender: string | null;
  since: Date;
};

export type Snapshot = {
  /** The patient profile (decision 0030). */
  patient: PatientRow;
  /** Their own login, when they have one (a patient account, or a profile taken over). */
  account: UserRow | undefined;
  profile: typeof profiles.$inferSelect | undefined;
  /** Family logins acting for the profile now. */
  managers: ManagerRow[];
  /** The centre that registered them, and every centre a consent for them was recorded at. */
  centres: Map<string, typeof centres.$inferSelect>;
  /** Consents given for the profile by others (facilitated, a guardian's, a family member's). */
  profileConsents: (typeof patientConsents.$inferSelect)[];
  reports: ReportRow[];
  /** Lab values an expert checked (confirmed, corrected, added) on reviewed reports, by report (decision 0084). */
  labValues: Map<string, LabValueRow[]>;
  followUps: Map<string, ApiFollowUp[]>;
  /** The opinions' next steps, by report (decision 0114). */
  steps: Map<string, ApiNextStep[]>;
  /** Everyone the export names besides the patient (reviewers, answerers, who opened files), by id. */
  people: Map<string, Person>;
  expertDetails: Map<string, ApiExpertDetails>;
  consents: (typeof consentRecords.$inferSelect)[];
  events: EventRow[];
  /** The patient's own words for each sharing link an event went through, by link id. */
  shareLabels: Map<string, string>;
  locale: Locale;
  t: TFunction;
  at: Date;
};

/**
 * The file openings and exports a patient sees: who opened a report's file or letter — signed in,
 * or through one of the patient's sharing links (no actor) — and who exported their data.
 */
const REPORT_EVENTS = [
  "report.file_open",
  "report.letter_open",
  "share.file_open",
  "share.letter_open",
] as const;
export const LETTER_EVENTS = new Set(["report.letter_open", "share.letter_open"]);
export const SHARE_EVENTS = new Set(["share.file_open", "share.letter_open"]);
export const EXPORT_EVENT = "account.data_export" as const;
const BATCH = 500;

/** The sharing link a "share.*" event went through ("" when the detail has none). */
export function linkIdOf(e: EventRow): string {
  const detail = parseDetail(e.detail) as { linkId?: unknown } | null;
  return typeof detail?.linkId === "string" ? detail.linkId : "";
}

export async function snapshot(patient: PatientRow, account: UserRow | undefined): Promise<Snapshot> {
  const at = new Date();
  const [profile, reportRows, consents, managers, givenByOthers] = await Promise.all([
    account ? first(db().select().from(profiles).where(eq(profiles.userId, account.id))) : undefined,
    db()
      .select()
      .from(reports)
      // reports_patient_created_idx (patient_id, created_at, id)
      .where(eq(reports.patientId, patient.id))
      .orderBy(desc(reports.createdAt), desc(reports.id)),
    db()
      .select()
      .from(consentRecords)
      // consent_records_user_idx (user_id, purpose, created_at, id)
      .where(eq(consentRecords.userId, account?.id ?? ""))
      .orderBy(asc(consentRecords.purpose), asc(consentRecords.createdAt), asc(consentRecords.id)),
    db()
      .select({
        managerId: patientManagers.managerId,
        firstName: users.firstName,
        lastName: users.lastName,
        relationship: patientManagers.relationship,
        gender: profiles.gender,
        since: patientManagers.createdAt,
      })
      .from(patientManagers)
      .innerJoin(users, eq(users.id, patientManagers.managerId))
      .leftJoin(profiles, eq(profiles.userId, patientManagers.managerId))
      .where(and(eq(patientManagers.patientId, patient.id), isNull(patientManagers.revokedAt)))
      .orderBy(asc(patientManagers.createdAt), asc(patientManagers.managerId)),
    db()
      .select()
      .from(patientConsents)
      // patient_consents_patient_idx (patient_id, created_at, id)
      .where(eq(patientConsents.patientId, patient.id))
      .orderBy(asc(patientConsents.createdAt), asc(patientConsents.id)),
  ]);
  const centreIds = [
    ...new Set([patient.centreId, ...givenByOthers.map((c) => c.centreId)].filter((c): c is string => !!c)),
  ];
  const centreRows = new Map<string, typeof centres.$inferSelect>();
  if (centreIds.length)
    for (const c of await db().select().from(centres).where(inArray(centres.id, centreIds)))
      centreRows.set(c.id, c);
  const reportIds = reportRows.map((r) => r.id);
  const [followUps, steps] = await Promise.all([followUpsFor(reportIds), stepsFor(reportIds)]);
  const labRows = new Map<string, LabValueRow[]>();
  const reviewedIds = reportRows.filter((r) => r.status === "Reviewed").map((r) => r.id);
  for (let i = 0; i < reviewedIds.length; i += BATCH) {
    const found = await db()
      .select()
      .from(labValues)
      .where(
        and(
          inArray(labValues.reportId, reviewedIds.slice(i, i + BATCH)),
          inArray(labValues.status, ["confirmed", "corrected", "added"]),
        ),
      )
      .orderBy(asc(labValues.reportId), asc(labValues.page), asc(labValues.createdAt), asc(labValues.id));
    for (const v of found) labRows.set(v.reportId, [...(labRows.get(v.reportId) ?? []), v]);
  }

  const events: EventRow[] = [];
  for (let i = 0; i < reportIds.length; i += BATCH) {
    events.push(
      ...(await db()
        .select()
        .from(auditEvents)
        .where(
          and(
            // audit_events_subject_idx (subject_type, subject_id, created_at, id)
            eq(auditEvents.subjectType, "report"),
            inArray(auditEvents.subjectId, reportIds.slice(i, i + BATCH)),
            inArray(unindexed(auditEvents.action), [...REPORT_EVENTS]),
          ),
        )),
    );
  }
  events.push(
    ...(await db()
      .select()
      .from(auditEvents)
      .where(
        and(
          eq(auditEvents.subjectType, "user"),
          eq(auditEvents.subjectId, patient.id),
          sql`${unindexed(auditEvents.action)} = ${EXPORT_EVENT}`,
        ),
      )),
  );
  events.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));

  const wanted = new Set<string>();
  for (const r of reportRows) {
    if (r.expertId) wanted.add(r.expertId);
    if (r.followupExpertId) wanted.add(r.followupExpertId);
  }
  for (const list of followUps.values()) for (const f of list) if (f.answeredBy) wanted.add(f.answeredBy._id);
  for (const e of events) if (e.actorId) wanted.add(e.actorId);
  wanted.delete(patient.id);
  const people = new Map<string, Person>();
  const ids = [...wanted];
  for (let i = 0; i < ids.length; i += BATCH) {
    const found = await db()
      .select({
        id: users.id,
        firstName: users.firstName,
        lastName: users.lastName,
        accountType: users.accountType,
      })
      .from(users)
      .where(inArray(users.id, ids.slice(i, i + BATCH)));
    for (const p of found) people.set(p.id, p);
  }
  const linkIds = [
    ...new Set(
      events
        .filter((e) => SHARE_EVENTS.has(e.action))
        .map((e) => linkIdOf(e))
        .filter((id) => !!id),
    ),
  ];
  const shareLabels = new Map<string, string>();
  for (let i = 0; i < linkIds.length; i += BATCH) {
    const found = await db()
      .select({ id: shareLinks.id, label: shareLinks.label })
      .from(shareLinks)
      .where(inArray(shareLinks.id, linkIds.slice(i, i + BATCH)));
    for (const l of found) shareLabels.set(l.id, l.label);
  }
  const experts = [...people.values()].filter((p) => p.accountType === "Expert").map((p) => p.id);
  const locale: Locale = isLocale(patient.locale) ? patient.locale : "en";
  return {
    patient,
    account,
    profile,
    managers,
    centres: centreRows,
    profileConsents: givenByOthers,
    reports: reportRows,
    labValues: labRows,
    followUps,
    steps,
    people,
    expertDetails: await expertDetailsFor(experts),
    consents,
    events,
    shareLabels,
    locale,
    t: await getT(locale),
    at,
  };
}
