import { and, eq, inArray, isNull, lte, ne, or } from "drizzle-orm";
import { z } from "zod";
import { config } from "~/config.server";
import { db, exec, first, rows, transaction } from "~/db/client.server";
import { labValues, nextSteps, reports, type PatientRow } from "~/db/schema";
import { accessTo, findPatient } from "../care/index.server";
import { auditInsert, type Actor } from "../platform/index.server";
import { DomainError, zodFieldErrors } from "../platform/errors";
import { clinicTodayDate, requireStepAccess, toApiStep, type ApiNextStep } from "./next-steps.server";
import { addDays } from "./step-reminders.server";

/**
 * Closing the loop with the repeat report (decision 0114): a report of the same patient whose lab
 * values hold a tests step's analytes is offered for that step; accepted, it is attached, the step
 * is done, and the report goes first to the expert who asked for it.
 */

/** A repeat report counts for a tests step from the opinion until this long after the due date. */
export const ATTACH_DAYS_AFTER_DUE = 30;

export type StepOffer = { step: ApiNextStep; loincs: string[] };

/**
 * The tests steps of the report's patient, open or said done without a report, that this report answers: some of the step's
 * analytes among its lab values, the report uploaded between the opinion and 30 days after the
 * step's due date. What the patient's side or her centre is offered to attach.
 */
export async function stepOffersFor(actor: Actor, reportId: string): Promise<StepOffer[]> {
  const report = await first(
    db()
      .select({ id: reports.id, patientId: reports.patientId, createdAt: reports.createdAt })
      .from(reports)
      .where(eq(reports.id, String(reportId ?? ""))),
  );
  if (!report?.patientId) throw new DomainError("not_found", "steps.notFound");
  const patient = await findPatient(report.patientId);
  if (!patient || !(await mayAttach(actor, patient))) throw new DomainError("not_found", "steps.notFound");
  return offersOf(report);
}

async function mayAttach(actor: Actor, patient: PatientRow): Promise<boolean> {
  if (actor.accountType !== "Patient" && actor.accountType !== "HealthWorker") return false;
  const access = await accessTo(actor, patient);
  return !!access && access.kind !== "admin";
}

async function offersOf(report: {
  id: string;
  patientId: string | null;
  createdAt: Date;
}): Promise<StepOffer[]> {
  if (!report.patientId) return [];
  const uploaded = clinicTodayDate(report.createdAt);
  const steps = await db()
    .select()
    .from(nextSteps)
    .where(
      and(
        eq(nextSteps.patientId, report.patientId),
        eq(nextSteps.kind, "tests"),
        // Open, or said done (a reminder's "1") with no report yet: the repeat report is still welcome.
        inArray(nextSteps.state, ["open", "done"]),
        isNull(nextSteps.attachedReportId),
        ne(nextSteps.reportId, report.id),
        lte(nextSteps.createdAt, report.createdAt),
      ),
    );
  if (!steps.length) return [];
  const found = new Set(
    (
      await db().select({ loinc: labValues.loinc }).from(labValues).where(eq(labValues.reportId, report.id))
    ).map((r) => r.loinc),
  );
  const out: StepOffer[] = [];
  for (const s of steps) {
    if (uploaded > addDays(s.dueOn, ATTACH_DAYS_AFTER_DUE)) continue;
    const loincs = (JSON.parse(s.loincs ?? "[]") as string[]).filter((l) => found.has(l));
    if (loincs.length) out.push({ step: toApiStep(s), loincs });
  }
  return out;
}

/**
 * Attaches a repeat report to a tests step (the patient's side or her centre accepting the offer):
 * the step is done, and the report goes first to the expert who asked for it — a Pending report
 * nobody holds is claimed for that expert for one claim period (CLAIM_TTL_MINUTES, decision 0023),
 * so it is in that expert's list and back in the queue when the claim lapses.
 */
export async function attachRepeatReport(
  actor: Actor,
  stepId: unknown,
  input: unknown,
  opts: { ip?: string | null } = {},
): Promise<ApiNextStep> {
  const { step, access } = await requireStepAccess(actor, stepId);
  if (access.kind === "expert") throw new DomainError("not_found", "steps.notFound");
  const parsed = z
    .object({
      reportId: z
        .string({ required_error: "reminders.reportRequired" })
        .min(1, "reminders.reportRequired")
        .max(100),
    })
    .safeParse(input);
  if (!parsed.success)
    throw new DomainError("invalid", "reminders.checkFields", { fieldErrors: zodFieldErrors(parsed.error) });
  const report = await first(
    db()
      .select({ id: reports.id, patientId: reports.patientId, createdAt: reports.createdAt })
      .from(reports)
      .where(eq(reports.id, parsed.data.reportId)),
  );
  const offers = report && report.patientId === step.patientId ? await offersOf(report) : [];
  if (!report || !offers.some((o) => o.step._id === step.id))
    throw new DomainError("invalid", "reminders.notAnOffer", {
      fieldErrors: { reportId: ["reminders.notAnOffer"] },
    });
  const now = new Date();
  const ttl = config().claimTtlMs;
  const updated = await transaction(function* (tx) {
    const changed = yield* rows(
      tx
        .update(nextSteps)
        .set({
          attachedReportId: report.id,
          state: "done",
          stateAt: now,
          stateBy: actor.id,
          stateReason: null,
          updatedAt: now,
        })
        .where(and(eq(nextSteps.id, step.id), isNull(nextSteps.attachedReportId)))
        .returning({ id: nextSteps.id }),
    );
    if (!changed.length) return null;
    if (step.expertId)
      yield* exec(
        tx
          .update(reports)
          .set({
            claimedBy: step.expertId,
            claimedAt: now,
            claimExpiresAt: new Date(now.getTime() + ttl),
            claimRenewals: 0,
          })
          .where(
            and(
              eq(reports.id, report.id),
              eq(reports.status, "Pending"),
              or(isNull(reports.claimedBy), isNull(reports.claimExpiresAt), lte(reports.claimExpiresAt, now)),
            ),
          ),
      );
    yield* exec(
      auditInsert(
        tx,
        actor,
        "patient.step_attached",
        "patient",
        step.patientId,
        { step: step.id, report: report.id, by: access.kind === "centre" ? "centre" : access.patient?.kind },
        opts.ip,
      ),
    );
    const [row] = yield* rows(tx.select().from(nextSteps).where(eq(nextSteps.id, step.id)));
    return row;
  });
  if (!updated) throw new DomainError("conflict", "reminders.alreadyAttached");
  return toApiStep(updated);
}
