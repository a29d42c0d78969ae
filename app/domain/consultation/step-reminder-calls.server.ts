import { eq } from "drizzle-orm";
import { db, first } from "~/db/client.server";
import { nextSteps } from "~/db/schema";
import { intlTag, isLocale } from "~/i18n/config";
import { getT } from "~/i18n/i18n.server";
import { log } from "~/lib/log.server";
import { clinicTodayDate, toApiStep } from "./next-steps.server";
import { stepTitle } from "./step-words.server";
import { applyAnswer, type ReminderAnswer } from "./step-reminders.server";
import type { CallStep } from "../calls/index.server";

/*
 * A next step's reminder by phone call (decision 0115): what the call says of the step once she
 * keyed her year of birth — its kind, when it is due and what to do, in words of her language (the
 * catalogue's names, never machine-translated free text) — and her answer
 * pressed on the keypad, written as an SMS reply is.
 */

/** The step a reminder call is about, read when the call is placed; null when it is closed or gone. */
export async function reminderCallStep(stepId: string | null, locale: string): Promise<CallStep | null> {
  if (!stepId) return null;
  const step = await first(db().select().from(nextSteps).where(eq(nextSteps.id, stepId)));
  if (!step || step.state !== "open" || step.remindOff) return null;
  const today = clinicTodayDate();
  const when = step.dueOn > today ? "soon" : step.dueOn === today ? "today" : "later";
  // A date said aloud: the day and the month's name (the year only when it is not this one).
  const due = new Date(`${step.dueOn}T12:00:00Z`);
  const sameYear = step.dueOn.slice(0, 4) === today.slice(0, 4);
  const date = new Intl.DateTimeFormat(intlTag(locale), {
    day: "numeric",
    month: "long",
    ...(sameYear ? {} : { year: "numeric" }),
    timeZone: "UTC",
  }).format(due);
  const t = await getT(isLocale(locale) ? locale : "en");
  return { kind: step.kind, when, date, title: stepTitle(toApiStep(step), t, locale) };
}

/** Her keypad answer on a reminder call, for the step the call was about. */
export async function answerStepByCall(
  stepId: string,
  answer: ReminderAnswer,
  locale: string,
): Promise<void> {
  const step = await first(
    db()
      .select({ id: nextSteps.id, patientId: nextSteps.patientId })
      .from(nextSteps)
      .where(eq(nextSteps.id, stepId)),
  );
  if (!step) return;
  await applyAnswer(step, answer, "call", locale);
  log("info", "step reminder answered", { step: step.id, answer, by: "call" });
}
