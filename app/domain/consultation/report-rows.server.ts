import { asc, desc, eq, sql, type SQL } from "drizzle-orm";
import { alias } from "~/db/alias";
import { db, first } from "~/db/client.server";
import { patients, reports, users, type ReportRow } from "~/db/schema";
import type { ReportType } from "~/schemas/reports";
import { DomainError } from "../platform/errors";
import { specialtiesColumn, specialtiesFromColumn } from "../accounts/index.server";
import { refusesCallsColumn } from "../rights/index.server";
import type { Actor } from "../platform/index.server";
import { reportTypesFor } from "~/schemas/specialties";
import { toApiReport, type ApiReport } from "./api-report.server";

/**
 * Reading reports: the joined report row (patient, reviewer, claimer, the patient's refusal of
 * calls, the reviewer's specialties) that every list and screen starts from, the list orders, and
 * the checks shared by the report modules.
 */

const patientUser = alias(users, "patient");
const expertUser = alias(users, "expert");
const claimerUser = alias(users, "claimer");

export function selectReports() {
  return selectReportsWith({});
}

/** The joined report rows with `extra` columns beside them (e.g. the list's total). */
export function selectReportsWith<E extends Record<string, SQL>>(extra: E) {
  return db()
    .select({
      ...extra,
      // Whether the patient refuses calls (the contact gate), so no list asks for it separately.
      refusesCalls: refusesCallsColumn(patients.id),
      // The reviewer's specialties (ordered by fromJoined), so that no list asks for them apart.
      reviewerSpecialties: specialtiesColumn(reports.expertId),
      report: reports,
      // The report's person is its patient profile (decision 0030); the e-mail is their own account's.
      patient: {
        id: patients.id,
        firstName: patients.firstName,
        lastName: patients.lastName,
        email: sql<string>`coalesce(${patientUser.email}, '')`,
      },
      expert: { id: expertUser.id, firstName: expertUser.firstName, lastName: expertUser.lastName },
      claimer: { id: claimerUser.id, firstName: claimerUser.firstName, lastName: claimerUser.lastName },
    })
    .from(reports)
    .innerJoin(patients, eq(patients.id, reports.patientId))
    .leftJoin(patientUser, eq(patientUser.id, patients.accountId))
    .leftJoin(expertUser, eq(expertUser.id, reports.expertId))
    .leftJoin(claimerUser, eq(claimerUser.id, reports.claimedBy));
}

export type Joined = Awaited<ReturnType<typeof selectReports>>[number];

export const byCreated = [desc(reports.createdAt), desc(reports.id)];
export const byReviewed = [desc(reports.reviewedAt), desc(reports.id)];
/** The review queue: urgent first (priority 0), then oldest. */
export const byQueue = [asc(reports.priority), asc(reports.createdAt), asc(reports.id)];

export function fromJoined(r: Joined, mask = false) {
  const item = toApiReport(r.report, r.patient, r.expert, { mask, claimer: r.claimer });
  if (item.expert) item.expert.specialties = specialtiesFromColumn(r.reviewerSpecialties);
  return item;
}

export async function findJoined(reportId: string): Promise<Joined | undefined> {
  if (typeof reportId !== "string" || !reportId || reportId.length > 100) return undefined;
  return first(selectReports().where(eq(reports.id, reportId)));
}

export async function findRow(reportId: string): Promise<ReportRow | undefined> {
  if (typeof reportId !== "string" || !reportId || reportId.length > 100) return undefined;
  return first(db().select().from(reports).where(eq(reports.id, reportId)));
}

/** Whether a report is for an expert of these specialties: a second opinion by the specialty asked for, else by its type. */
export function matches(
  report: Pick<ApiReport, "reportType" | "secondSpecialty">,
  specialties: readonly string[],
) {
  if (report.secondSpecialty) return specialties.includes(report.secondSpecialty);
  return reportTypesFor(specialties).includes(report.reportType as ReportType);
}

export function requireApprovedExpert(actor: Actor) {
  if (actor.accountType !== "Expert") throw new DomainError("forbidden", "reports.onlyExperts");
  if (!actor.approved) throw new DomainError("forbidden", "reports.awaitApproval");
}
