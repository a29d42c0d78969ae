import { and, between, desc, eq, gt, inArray, ne, or, sql } from "drizzle-orm";
import { z } from "zod";
import { config } from "~/config.server";
import { strictBoolean } from "~/schemas/strict";
import { db, exec, first, transaction } from "~/db/client.server";
import { nextSteps, patients } from "~/db/schema";
import { getT } from "~/i18n/i18n.server";
import { zonedInstant } from "~/lib/clock";
import { log } from "~/lib/log.server";
import { maskPhone } from "~/lib/phone.server";
import { site } from "~/site";
import { findPatient, profilesAtNumber, reminderContact } from "../care/index.server";
import { queueMail, queueSms, simpleHtml } from "../messaging/index.server";
import { queueCall } from "../calls/index.server";
import {
  audit,
  auditInsert,
  countJobsAsked,
  defineJobKind,
  defineSchedule,
  startJobs,
  type Actor,
} from "../platform/index.server";
import { DomainError, zodFieldErrors } from "../platform/errors";
import {
  clinicDateAfter,
  clinicTodayDate,
  requireStepAccess,
  toApiStep,
  type ApiNextStep,
  type StepRow,
} from "./next-steps.server";

/**
 * Reminders of an opinion's next steps, and the patient's answers (decision 0114).
 *
 * Each open step with reminders on is reminded REMIND_DAYS_BEFORE days before its due date and on
 * it (and, after "remind me later", on the day it was put off to), at her hour of the clinic's day
 * (`patients.remind_hour`, CLINIC_TIME_ZONE), by her channel (`patients.remind_by`). The reminders
 * are jobs of the one runner (decision 0113): a scan (kind "step-remind-scan", one job per slot of
 * REMIND_SCAN_SECONDS, so nodes scan each slot once) asks for each due reminder as a job of kind
 * "step-remind" keyed `step-remind:<patient>:<step>:<date>:<which>` — asked again by another node
 * or after a restart, it is the same job. A reminder whose moment passed more than a day ago is
 * never sent late. At most REMIND_DAILY_CAP reminders are asked for one patient in a clinic day
 * (counted from the keys). At send time the step is read again: closed, switched off or put off,
 * nothing goes.
 *
 * Her answer ("1" done, "2" later, "3" I cannot go), by SMS reply, closes or puts off the step she
 * was last reminded of at that number.
 */

export const REMIND_KIND = "step-remind";
export const SCAN_KIND = "step-remind-scan";

export type ReminderWhich = "before" | "due" | "later";
export type ReminderMoment = { which: ReminderWhich; date: string; at: number };
type RemindJob = { stepId: string; patientId: string; date: string; which: ReminderWhich };

const DAY_MS = 86_400_000;

function dateParts(date: string) {
  const [year, month, day] = date.split("-").map(Number);
  return { year, month, day };
}

/** `date` moved by `days` on the calendar (YYYY-MM-DD). */
export function addDays(date: string, days: number): string {
  const { year, month, day } = dateParts(date);
  return new Date(Date.UTC(year, month - 1, day + days)).toISOString().slice(0, 10);
}

/** The instant the clinic's clock reads `hour`:00 on `date`. */
export function clinicInstant(date: string, hour: number): number {
  return zonedInstant(config().clinic.timeZone, { ...dateParts(date), hour, minute: 0 });
}

/**
 * When a step is reminded: `daysBefore` days before it is due, on the day, and on the day she put
 * it off to (when that is another day), each at her hour of the clinic's day.
 */
export function reminderMoments(
  step: Pick<StepRow, "dueOn" | "snoozedUntil">,
  hour: number,
  daysBefore = config().reminders.daysBefore,
): ReminderMoment[] {
  const out: ReminderMoment[] = [];
  const before = addDays(step.dueOn, -daysBefore);
  out.push({ which: "before", date: before, at: clinicInstant(before, hour) });
  out.push({ which: "due", date: step.dueOn, at: clinicInstant(step.dueOn, hour) });
  const later = step.snoozedUntil;
  if (later && later !== before && later !== step.dueOn)
    out.push({ which: "later", date: later, at: clinicInstant(later, hour) });
  return out;
}

/** A reminder's key: one job per step, day and moment, whichever node asks. */
export function reminderKey(patientId: string, stepId: string, m: Pick<ReminderMoment, "date" | "which">) {
  return `step-remind:${patientId}:${stepId}:${m.date}:${m.which}`;
}

/**
 * A reminder may go at `now`: the step is open with reminders on, she did not switch them all off,
 * it is not put off beyond today, and the moment has come within the last day (never a late one;
 * never one from before the opinion).
 */
function dueNow(
  step: Pick<StepRow, "state" | "remindOff" | "snoozedUntil" | "createdAt">,
  remindBy: string,
  m: ReminderMoment,
  now: number,
): boolean {
  if (step.state !== "open" || step.remindOff || remindBy === "none") return false;
  if (step.snoozedUntil && step.snoozedUntil > clinicTodayDate(now)) return false;
  return m.at <= now && now - m.at < DAY_MS && m.at >= step.createdAt.getTime() - 60_000;
}

/** The clinic day's reminders already asked for one patient (the daily cap). */
async function askedToday(patientId: string, now: number): Promise<number> {
  const midnight = clinicInstant(clinicTodayDate(now), 0);
  return countJobsAsked(REMIND_KIND, `step-remind:${patientId}:`, new Date(midnight));
}

/**
 * Asks for every reminder due at `now` (each once: the runner joins a key asked before), at most
 * the daily cap per patient. Returns how many were asked for now.
 */
export async function scanStepReminders(now: Date | number = Date.now()): Promise<number> {
  const at = new Date(now).getTime();
  const today = clinicTodayDate(at);
  const { daysBefore, dailyCap } = config().reminders;
  const found = await db()
    .select({ step: nextSteps, remindBy: patients.remindBy, remindHour: patients.remindHour })
    .from(nextSteps)
    .innerJoin(patients, eq(patients.id, nextSteps.patientId))
    .where(
      and(
        eq(nextSteps.state, "open"),
        eq(nextSteps.remindOff, false),
        ne(patients.remindBy, "none"),
        or(
          between(nextSteps.dueOn, addDays(today, -1), addDays(today, daysBefore + 1)),
          between(nextSteps.snoozedUntil, addDays(today, -1), today),
        ),
      ),
    )
    .orderBy(nextSteps.patientId, nextSteps.dueOn, nextSteps.position);
  let asked = 0;
  const left = new Map<string, number>();
  for (const { step, remindBy, remindHour } of found) {
    for (const m of reminderMoments(step, remindHour, daysBefore)) {
      if (!dueNow(step, remindBy, m, at)) continue;
      if (!left.has(step.patientId))
        left.set(step.patientId, dailyCap - (await askedToday(step.patientId, at)));
      if (left.get(step.patientId)! <= 0) break;
      const job = await remindJobs.enqueue(
        { stepId: step.id, patientId: step.patientId, date: m.date, which: m.which },
        { key: reminderKey(step.patientId, step.id, m) },
      );
      if (!job.joined) {
        asked++;
        left.set(step.patientId, left.get(step.patientId)! - 1);
      }
    }
  }
  return asked;
}

/** What a step is, in a few words of her language: never its medical content. */
function stepWords(t: (k: string) => string, kind: StepRow["kind"]) {
  return t(WHAT[kind]);
}

/** Each kind's few words, and each reminder's text by when it comes (every key named, for the catalogue check). */
const WHAT: Record<StepRow["kind"], string> = {
  tests: "reminders.what.tests",
  specialist: "reminders.what.specialist",
  facility: "reminders.what.facility",
};
const SMS_TEXT = {
  soon: "reminders.sms.soon",
  today: "reminders.sms.today",
  later: "reminders.sms.later",
} as const;
const MAIL_TEXT = {
  soon: "reminders.mail.body.soon",
  today: "reminders.mail.body.today",
  later: "reminders.mail.body.later",
} as const;

/**
 * One reminder (the job "step-remind"). The step is read again: closed, switched off or put off
 * since the scan, nothing goes. A run after a runner died mid-way may send it twice at most (the
 * runner's at-least-once); the trail line and the count are written with the message.
 */
async function sendReminder(job: RemindJob): Promise<string> {
  const step = await first(db().select().from(nextSteps).where(eq(nextSteps.id, job.stepId)));
  const patient = step ? await findPatient(step.patientId) : undefined;
  if (!step || !patient) return "gone";
  const m = { which: job.which, date: job.date, at: clinicInstant(job.date, patient.remindHour) };
  if (!dueNow(step, patient.remindBy, { ...m, at: Math.min(m.at, Date.now()) }, Date.now())) return "skipped";
  const contact = await reminderContact(patient);
  const t = await getT(contact.locale);
  const vars = { product: site.productName, what: stepWords(t, step.kind), date: step.dueOn };
  const when = job.which === "due" ? "today" : job.which === "later" ? "later" : "soon";
  let channel: "sms" | "call" | "email" | null = null;
  if (patient.remindBy === "call" && contact.call) {
    // A call through the line to her proven number (decision 0115); refused (another call
    // waiting for that number, its calls for the day used, a country not called): by SMS instead.
    const call = await queueCall({
      number: contact.call,
      patientId: patient.id,
      purpose: "step-reminder",
      locale: contact.locale,
      at: new Date(),
      stepId: step.id,
    });
    if (call.queued) channel = "call";
    else log("info", "step reminder call not queued: by SMS instead", { step: step.id, reason: call.reason });
  }
  if (!channel && patient.remindBy === "email" && contact.email) {
    const text = t(MAIL_TEXT[when], vars);
    await queueMail({
      to: contact.email,
      subject: t("reminders.mail.subject", vars),
      text: `${text}\n\n${config().appUrl}/dashboard/previous-report`,
      html: simpleHtml([text], {
        label: t("reminders.mail.action"),
        href: `${config().appUrl}/dashboard/previous-report`,
      }),
      purpose: "notice",
    });
    channel = "email";
  } else if (!channel && contact.sms) {
    await queueSms({ to: contact.sms, text: t(SMS_TEXT[when], vars), purpose: "step-reminder" });
    channel = "sms";
  }
  if (!channel) {
    log("info", "step reminder not sent: no way to reach her", { step: step.id });
    return "unreachable";
  }
  await transaction(function* (tx) {
    yield* exec(
      tx
        .update(nextSteps)
        .set({ remindersSent: sql`${nextSteps.remindersSent} + 1`, updatedAt: new Date() })
        .where(eq(nextSteps.id, step.id)),
    );
    yield* exec(
      auditInsert(tx, null, "patient.step_reminded", "patient", patient.id, {
        step: step.id,
        which: job.which,
        channel,
      }),
    );
  });
  log("info", "step reminder sent", { step: step.id, which: job.which, channel });
  return "sent";
}

export const remindJobs = defineJobKind<RemindJob>(REMIND_KIND, {
  run: (job) => sendReminder(job),
  maxAttempts: 4,
  backoff: [60_000, 300_000, 1_800_000],
});

/** The scan for reminders due, one slot of REMIND_SCAN_SECONDS at a time (the runner's schedule). */
const scanSchedule = defineSchedule(SCAN_KIND, {
  run: async () => String(await scanStepReminders()),
  everyMs: () => config().reminders.scanMs,
  lookMs: () => config().reminders.scanMs,
  maxAttempts: 2,
  backoff: [30_000],
  pollMs: 30_000,
});

/** Sends the reminders asked for and due (the runner's loop does this; tests call it). */
export function runStepReminders() {
  return remindJobs.runDue();
}

/** Asks for the scan of the current slot (the same slot from every node is one job). */
export async function askForScan(now = Date.now()): Promise<void> {
  await scanSchedule.askDue(now);
}

/** Starts this process's reminders: the reminders' kind and the scan's schedule. */
export function startStepReminders(): void {
  startJobs([REMIND_KIND]);
  scanSchedule.start();
}

export function stopStepReminders(): Promise<void> {
  return scanSchedule.stop();
}

// ---------------------------------------------------------------------------------------------
// Her answer

export type ReminderAnswer = "done" | "later" | "declined";

/** "1", "1 done", "2", " 3 " … → the answer; anything else null. */
export function readAnswer(text: string): ReminderAnswer | null {
  const m = /^\s*([123])(?:\D|$)/.exec(String(text ?? ""));
  if (!m) return null;
  return m[1] === "1" ? "done" : m[1] === "2" ? "later" : "declined";
}

/**
 * Her answer to a reminder from `number`: the step last reminded to a profile at that number (the
 * open one most recently reminded). Returns what was done, for the reply text, or null when no
 * step is waiting for an answer there.
 */
export async function answerReminder(
  number: string,
  text: string,
): Promise<{ answer: ReminderAnswer | null; step: StepRow | null; locale: string }> {
  const answer = readAnswer(text);
  const ids = number ? await profilesAtNumber(number) : [];
  const step = ids.length
    ? await first(
        db()
          .select()
          .from(nextSteps)
          .where(
            and(
              inArray(nextSteps.patientId, ids),
              eq(nextSteps.state, "open"),
              gt(nextSteps.remindersSent, 0),
            ),
          )
          .orderBy(desc(nextSteps.updatedAt)),
      )
    : undefined;
  const patient = step ? await findPatient(step.patientId) : undefined;
  const locale = patient?.locale ?? "en";
  if (!step || !answer || !patient) return { answer: step ? null : answer, step: step ?? null, locale };
  await applyAnswer(step, answer, "sms", locale);
  log("info", "step reminder answered", { step: step.id, answer, from: maskPhone(number) });
  return { answer, step, locale };
}

/**
 * Her answer written (an SMS reply or a keypad press, decision 0115): "later" puts the step off to
 * tomorrow; "done" and "declined" close it (declined with the reason in her language). Only an
 * open step changes; the answer is a line in her access trail either way.
 */
export async function applyAnswer(
  step: Pick<StepRow, "id" | "patientId">,
  answer: ReminderAnswer,
  by: "sms" | "call",
  locale: string,
): Promise<void> {
  const t = await getT(locale === "hi" || locale === "bn" || locale === "ta" ? locale : "en");
  const now = new Date();
  await transaction(function* (tx) {
    const values =
      answer === "later"
        ? { snoozedUntil: clinicDateAfter(now, 1), updatedAt: now }
        : {
            state: answer,
            stateReason: answer === "declined" ? t("reminders.cannotGoReason") : null,
            stateAt: now,
            stateBy: null,
            snoozedUntil: null,
            updatedAt: now,
          };
    yield* exec(
      tx
        .update(nextSteps)
        .set(values)
        .where(and(eq(nextSteps.id, step.id), eq(nextSteps.state, "open"))),
    );
    yield* exec(
      auditInsert(tx, null, "patient.step_answered", "patient", step.patientId, {
        step: step.id,
        answer,
        by,
      }),
    );
  });
}

// ---------------------------------------------------------------------------------------------
// One step's reminders switched off (or on)

const remindersOffSchema = z.object({ off: strictBoolean("reminders.offRequired") });

/** The patient's side or her centre switches one step's reminders off or on again. */
export async function setStepReminders(
  actor: Actor,
  stepId: unknown,
  input: unknown,
  opts: { ip?: string | null } = {},
): Promise<ApiNextStep> {
  const { step, access } = await requireStepAccess(actor, stepId);
  if (access.kind === "expert") throw new DomainError("not_found", "steps.notFound");
  const parsed = remindersOffSchema.safeParse(input);
  if (!parsed.success)
    throw new DomainError("invalid", "reminders.checkFields", { fieldErrors: zodFieldErrors(parsed.error) });
  const now = new Date();
  await db()
    .update(nextSteps)
    .set({ remindOff: parsed.data.off, updatedAt: now })
    .where(eq(nextSteps.id, step.id));
  await audit(
    actor,
    "patient.step_reminders",
    "patient",
    step.patientId,
    { step: step.id, off: parsed.data.off, by: access.kind === "centre" ? "centre" : access.patient?.kind },
    opts.ip,
  );
  return toApiStep({ ...step, remindOff: parsed.data.off, updatedAt: now });
}
