import { and, eq, isNotNull } from "drizzle-orm";
import { exec, first, isUniqueViolation, transaction, db } from "~/db/client.server";
import { reports, type ReportRow } from "~/db/schema";
import { secondOpinionSchema, type SecondOpinionInput } from "~/schemas/reports";
import { newId } from "~/lib/ids.server";
import { auditInsert } from "../platform/index.server";
import { DomainError, zodFieldErrors } from "../platform/errors";
import { expertsWithSpecialties, specialtiesOf, specialtiesFor, type Actor } from "../accounts/index.server";
import { notify } from "../messaging/index.server";
import { hidePhonesOfRefusers } from "../rights/index.server";
import { liveClaim, type ApiReport } from "./api-report.server";
import { findJoined, findRow, fromJoined } from "./report-rows.server";

/**
 * A second opinion from another specialty (decision 0038). It is a new `reports` row linked to the
 * case's first report (`second_of`): the same patient and stored file, the urgency copied, and
 * routed by the specialty asked for — so the queue, claims and their limits, the overdue digest
 * and turnaround treat it as they treat any report. The patient sees it inside the case.
 */

/**
 * Who may ask: the expert of the first opinion (its reviewer, or the expert holding its claim
 * while writing) and admins. The specialty must be another than the first opinion's (its
 * expert's specialties; without an expert yet, those that read the report's type) and must have
 * an approved expert other than the first one, else the request would wait for nobody. One open
 * request per case and specialty: the partial unique index decides between simultaneous ones.
 */
export async function requestSecondOpinion(
  actor: Actor,
  reportId: string,
  input: SecondOpinionInput | Record<string, unknown>,
  opts: { ip?: string | null } = {},
): Promise<ApiReport> {
  if (actor.accountType === "Expert") {
    if (!actor.approved) throw new DomainError("forbidden", "reports.awaitApproval");
  } else if (actor.accountType !== "Admin") {
    throw new DomainError("forbidden", "panel.whoMayAsk");
  }
  const row = await findRow(reportId);
  if (!row) throw new DomainError("not_found", "reports.notFound");
  if (row.secondOf) throw new DomainError("invalid", "panel.askOnFirst");
  const firstExpert = row.status === "Reviewed" ? row.expertId : liveClaim(row) ? row.claimedBy : null;
  if (actor.accountType === "Expert" && firstExpert !== actor.id) {
    throw new DomainError("forbidden", "panel.whoMayAsk");
  }
  const parsed = secondOpinionSchema.safeParse(input);
  if (!parsed.success) {
    throw new DomainError("invalid", "panel.askFailed", { fieldErrors: zodFieldErrors(parsed.error) });
  }
  const { specialty, note } = parsed.data;
  const firstSpecialties = firstExpert ? await specialtiesOf(firstExpert) : specialtiesFor(row.reportType);
  if (firstSpecialties.includes(specialty)) {
    throw new DomainError("invalid", "panel.askFailed", {
      fieldErrors: { specialty: ["panel.sameSpecialty"] },
    });
  }
  const experts = (await expertsWithSpecialties([specialty])).filter((e) => e.id !== firstExpert);
  if (!experts.length) {
    throw new DomainError("invalid", "panel.askFailed", {
      fieldErrors: { specialty: ["panel.noExpertOfSpecialty"] },
    });
  }
  const now = new Date();
  const second: ReportRow = {
    ...row,
    id: newId(),
    status: "Pending",
    review: null,
    expertId: null,
    reviewedAt: null,
    claimedBy: null,
    claimedAt: null,
    claimExpiresAt: null,
    claimRenewals: 0,
    findings: null,
    recommendations: null,
    seeDoctorSoon: false,
    letterCode: null,
    signerFirstName: null,
    signerLastName: null,
    signerRegistrationNumber: null,
    signerRegistrationCouncil: null,
    followupExpertId: null,
    overdueNotifiedAt: null,
    secondOf: row.id,
    secondSpecialty: specialty,
    secondNote: note,
    secondRequestedBy: actor.id,
    agreement: null,
    agreementReason: null,
    createdAt: now,
    updatedAt: now,
  };
  const open = () =>
    first(
      db()
        .select({ id: reports.id })
        .from(reports)
        .where(
          and(
            eq(reports.secondOf, row.id),
            eq(reports.secondSpecialty, specialty),
            eq(reports.status, "Pending"),
            isNotNull(reports.secondOf),
          ),
        ),
    );
  if (await open()) throw new DomainError("conflict", "panel.alreadyAsked");
  try {
    await transaction(function* (tx) {
      yield* exec(tx.insert(reports).values(second));
      yield* exec(
        auditInsert(
          tx,
          actor,
          "report.second_opinion_request",
          "report",
          row.id,
          { second: second.id, specialty },
          opts.ip,
        ),
      );
    });
  } catch (err) {
    // The same request at the same moment: the index let one in.
    if (isUniqueViolation(err)) throw new DomainError("conflict", "panel.alreadyAsked");
    throw err;
  }
  for (const expert of experts) {
    notify(expert, {
      subject: second.priority === 0 ? "mail.newUrgentReportSubject" : "mail.newReportSubject",
      body: "mail.newReportBody",
      action: "mail.newReportAction",
      path: "/dashboard/pending-report",
    });
  }
  const joined = (await findJoined(second.id))!;
  return (await hidePhonesOfRefusers(actor, [fromJoined(joined)]))[0];
}
