import { randomInt } from "node:crypto";
import { and, asc, eq } from "drizzle-orm";
import { config } from "~/config.server";
import {
  db,
  exec,
  first,
  inList,
  listParam,
  preparedOnce,
  rows,
  transaction,
  type DB,
  type TxSteps,
} from "~/db/client.server";
import { nextSteps, reports, type StepKind, type StepState, type StepUrgency } from "~/db/schema";
import { wallClock } from "~/lib/clock";
import { newId } from "~/lib/ids.server";
import { stepDays, stepStateSchema, type NextStepData } from "~/schemas/next-steps";
import { analyteByLoinc } from "../records/labs";
import { accessTo, findPatient, type PatientAccess } from "../care/index.server";
import { audit, type Actor } from "../platform/index.server";
import { DomainError, zodFieldErrors } from "../platform/errors";

/**
 * An opinion's next steps (decision 0114): repeat tests, see a specialist, go to a facility —
 * signed with the opinion in its transaction and, like it, never rewritten afterwards; only where
 * a step stands changes (done, visited, declined with a reason, unreachable), a repeat report is
 * attached, a facility acknowledges its referral, or reminders are switched off. Each step is due
 * `in_days` after the opinion, on the clinic's calendar.
 *
 * Who sees and closes a step: the patient (and a family member who manages her profile), the
 * health worker of the centre that registered her, the expert who asked for it or holds the
 * opinion's follow-ups. Admins see the figures, not the steps.
 */

export type ApiNextStep = {
  _id: string;
  reportId: string;
  position: number;
  kind: StepKind;
  /** tests: the analytes, by LOINC code, with the catalogue's English name. */
  tests: { loinc: string; name: string }[] | null;
  specialty: string | null;
  /** facility: its name; null with kind "facility": the nearest hospital. */
  facility: string | null;
  urgency: StepUrgency | null;
  reason: string | null;
  inDays: number;
  /** YYYY-MM-DD, the clinic's date. */
  dueOn: string;
  state: StepState;
  stateReason: string | null;
  stateAt: string | null;
  attachedReportId: string | null;
  /** facility: the referral's code and the facility's acknowledgement. */
  referral: { code: string; seenAt: string | null; note: string | null } | null;
  remindOff: boolean;
};

export type StepRow = typeof nextSteps.$inferSelect;

/** The clinic's date `days` after `instant`, YYYY-MM-DD. */
export function clinicDateAfter(instant: Date | number, days: number): string {
  const w = wallClock(new Date(instant).getTime(), config().clinic.timeZone);
  const d = new Date(Date.UTC(w.year, w.month - 1, w.day + days));
  return d.toISOString().slice(0, 10);
}

/** The clinic's today, YYYY-MM-DD. */
export function clinicTodayDate(now: Date | number = Date.now()): string {
  return clinicDateAfter(now, 0);
}

/**
 * What only the domain knows about steps given with an opinion: every analyte is in the lab
 * catalogue. Refused as the review form's field errors (`nextSteps.i.loincs`, as zod names it), nothing signed.
 */
export function checkSteps(steps: readonly NextStepData[]): void {
  const errors: Record<string, string[]> = {};
  steps.forEach((s, i) => {
    if (s.kind === "tests" && s.loincs.some((l) => !analyteByLoinc(l)))
      errors[`nextSteps.${i}.loincs`] = ["steps.testUnknown"];
    if (s.kind === "tests" && new Set(s.loincs).size !== s.loincs.length)
      errors[`nextSteps.${i}.loincs`] = ["steps.testTwice"];
  });
  if (Object.keys(errors).length)
    throw new DomainError("invalid", "reports.reviewFailed", { fieldErrors: errors });
}

// Crockford's base32 without look-alikes: read aloud over a phone, typed at a facility's desk.
const CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTVWXYZ";

/** A referral code, R-XXXX-XXXX (30^8, about 6.5e11; the lookup is rate-limited). */
export function newReferralCode(): string {
  let s = "";
  for (let i = 0; i < 8; i++) s += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return `R-${s.slice(0, 4)}-${s.slice(4)}`;
}

/** What someone typed as a referral code ("r 7k4m 2q9x", "7K4M2Q9X") as R-XXXX-XXXX, or null. */
export function normalReferralCode(input: unknown): string | null {
  const raw = String(input ?? "")
    .toUpperCase()
    .replace(/[^0-9A-Z]/g, "")
    .replace(/^R(?=.{8}$)/, "");
  if (raw.length !== 8 || [...raw].some((c) => !CODE_ALPHABET.includes(c))) return null;
  return `R-${raw.slice(0, 4)}-${raw.slice(4)}`;
}

/**
 * Writes the steps signed with an opinion, inside the signing transaction (so a refused signature
 * leaves none behind, and the first review wins for its steps too).
 */
export function* signSteps(
  tx: DB,
  opinion: { reportId: string; patientId: string; centreId: string | null; expertId: string; signedAt: Date },
  steps: readonly NextStepData[],
): TxSteps<void> {
  if (!steps.length) return;
  yield* exec(
    tx.insert(nextSteps).values(
      steps.map((s, position) => {
        const inDays = stepDays(s);
        return {
          id: newId(),
          reportId: opinion.reportId,
          patientId: opinion.patientId,
          centreId: opinion.centreId,
          expertId: opinion.expertId,
          position,
          kind: s.kind,
          loincs: s.kind === "tests" ? JSON.stringify(s.loincs) : null,
          specialty: s.kind === "specialist" ? s.specialty : null,
          facility: s.kind === "facility" ? s.facility : null,
          urgency: s.kind === "tests" ? null : s.urgency,
          reason: s.kind === "facility" ? s.reason : null,
          inDays,
          dueOn: clinicDateAfter(opinion.signedAt, inDays),
          referralCode: s.kind === "facility" ? newReferralCode() : null,
          createdAt: opinion.signedAt,
          updatedAt: opinion.signedAt,
        };
      }),
    ),
  );
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** A row as the API and the screens read it. */
export function toApiStep(row: StepRow): ApiNextStep {
  const loincs: string[] = row.loincs ? JSON.parse(row.loincs) : [];
  return {
    _id: row.id,
    reportId: row.reportId,
    position: row.position,
    kind: row.kind,
    tests:
      row.kind === "tests"
        ? loincs.map((loinc) => ({ loinc, name: analyteByLoinc(loinc)?.name ?? loinc }))
        : null,
    specialty: row.specialty,
    facility: row.facility,
    urgency: row.urgency,
    reason: row.reason,
    inDays: row.inDays,
    dueOn: row.dueOn,
    state: row.state,
    stateReason: row.stateReason,
    stateAt: iso(row.stateAt),
    attachedReportId: row.attachedReportId,
    referral: row.referralCode
      ? { code: row.referralCode, seenAt: iso(row.referralSeenAt), note: row.referralNote }
      : null,
    remindOff: row.remindOff,
  };
}

/** The steps of many opinions, in the order the expert gave them, by report id. */
export async function stepsFor(reportIds: readonly string[]): Promise<Map<string, ApiNextStep[]>> {
  const ids = [...new Set(reportIds)];
  const out = new Map<string, ApiNextStep[]>(ids.map((id) => [id, []]));
  if (!ids.length) return out;
  // Prepared once: building the select cost more than running it, on every list that shows steps.
  const query = preparedOnce("next_steps_of_reports", (d) =>
    d
      .select()
      .from(nextSteps)
      .where(inList(nextSteps.reportId, "ids"))
      .orderBy(asc(nextSteps.reportId), asc(nextSteps.position)),
  );
  const found = await query.execute({ ids: listParam(ids) });
  for (const row of found) out.get(row.reportId)!.push(toApiStep(row));
  return out;
}

/**
 * Puts each reviewed report's steps on it (decision 0114), asked for in one query however many
 * reports there are. The caller decides who may see them: the patient's side, her centre, the
 * expert who gave the opinion — not admins (they see the figures), not experts awaiting approval.
 */
export async function withSteps<T extends { _id: string; status: string; nextSteps?: ApiNextStep[] }>(
  items: T[],
): Promise<T[]> {
  const reviewed = items.filter((r) => r.status === "Reviewed");
  if (!reviewed.length) return items;
  const steps = await stepsFor(reviewed.map((r) => r._id));
  for (const r of reviewed) r.nextSteps = steps.get(r._id) ?? [];
  return items;
}

/** How `actor` relates to a step: the patient's side, her centre, or the expert who asked. */
export type StepAccess = { kind: "patient" | "centre" | "expert"; patient?: PatientAccess };

/**
 * The step and how `actor` may act on it; an unknown step and one `actor` may not see get the same
 * refusal, so ids cannot be probed.
 */
export async function requireStepAccess(
  actor: Actor,
  stepId: unknown,
): Promise<{ step: StepRow; access: StepAccess }> {
  const refused = () => new DomainError("not_found", "steps.notFound");
  if (typeof stepId !== "string" || !stepId || stepId.length > 100) throw refused();
  const step = await first(db().select().from(nextSteps).where(eq(nextSteps.id, stepId)));
  if (!step) throw refused();
  if (actor.accountType === "Expert") {
    if (!actor.approved) throw refused();
    if (step.expertId === actor.id) return { step, access: { kind: "expert" } };
    const held = await first(
      db()
        .select({ id: reports.id })
        .from(reports)
        .where(and(eq(reports.id, step.reportId), eq(reports.followupExpertId, actor.id))),
    );
    if (held) return { step, access: { kind: "expert" } };
    throw refused();
  }
  if (actor.accountType === "Patient" || actor.accountType === "HealthWorker") {
    const patient = await findPatient(step.patientId);
    const access = patient ? await accessTo(actor, patient) : null;
    if (access && access.kind !== "admin")
      return { step, access: { kind: access.kind === "centre" ? "centre" : "patient", patient: access } };
  }
  throw refused();
}

/** Which closings each side may record: the patient says done or that she cannot go; her centre and the expert any. */
const MAY_SET: Record<StepAccess["kind"], readonly StepState[]> = {
  patient: ["open", "done", "declined"],
  centre: ["open", "done", "visited", "declined", "unreachable"],
  expert: ["open", "done", "declined", "unreachable"],
};

/**
 * Records where a step stands (or opens it again), audited; the same state twice is a no-op.
 * A declined step needs the reason.
 */
export async function setStepState(
  actor: Actor,
  stepId: unknown,
  input: unknown,
  opts: { ip?: string | null } = {},
): Promise<ApiNextStep> {
  const { step, access } = await requireStepAccess(actor, stepId);
  const parsed = stepStateSchema.safeParse(input);
  if (!parsed.success)
    throw new DomainError("invalid", "steps.stateFailed", { fieldErrors: zodFieldErrors(parsed.error) });
  const { state, reason } = parsed.data;
  if (!MAY_SET[access.kind].includes(state))
    throw new DomainError("invalid", "steps.stateFailed", {
      fieldErrors: { state: ["steps.stateNotYours"] },
    });
  const now = new Date();
  const updated = await transaction(function* (tx) {
    const open = state === "open";
    yield* exec(
      tx
        .update(nextSteps)
        .set({
          state,
          stateReason: open ? null : reason,
          stateAt: open ? null : now,
          stateBy: open ? null : actor.id,
          updatedAt: now,
        })
        .where(eq(nextSteps.id, step.id)),
    );
    const [row] = yield* rows(tx.select().from(nextSteps).where(eq(nextSteps.id, step.id)));
    return row;
  });
  await audit(
    actor,
    "patient.step_state",
    "patient",
    step.patientId,
    { step: step.id, state, by: access.kind },
    opts.ip,
  );
  return toApiStep(updated);
}
