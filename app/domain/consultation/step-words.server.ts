import type { TFunction } from "i18next";
import { formatDay } from "~/lib/format";
import { SPECIALTY_KEYS, type Specialty } from "~/schemas/specialties";
import { localName } from "../records/labs";
import type { ApiNextStep } from "./next-steps.server";

/**
 * An opinion's next steps in the reader's words (decision 0114): built from the step's kind, the
 * lab catalogue's names in her language, the specialty's label and the due date in her locale —
 * never translated free text. Only a facility's name and the reason are the expert's own words.
 * The patient's screen, her centre's, the opinion letter and the phone call all read them here.
 */

export type StepWords = {
  _id: string;
  kind: ApiNextStep["kind"];
  /** What to do: "Repeat these tests: …", "See a specialist: …", "Go to …". */
  title: string;
  /** facility: why, as the expert wrote it. */
  reason: string | null;
  /** When: "Today", "By 05 Mar 2026". */
  due: string;
  dueOn: string;
  state: ApiNextStep["state"];
  stateLabel: string;
  stateReason: string | null;
  referral: { code: string; seen: string | null; note: string | null } | null;
};

const STATE_KEYS: Record<ApiNextStep["state"], string> = {
  open: "steps.state.open",
  done: "steps.state.done",
  visited: "steps.state.visited",
  declined: "steps.state.declined",
  unreachable: "steps.state.unreachable",
};

/** The test's name for a reader of `locale`: hers, else the catalogue's English one. */
const testName = (test: { loinc: string; name: string }, locale: string) =>
  localName(test.loinc, locale) ?? test.name;

/** A due date (YYYY-MM-DD, the clinic's calendar) as the reader's locale writes it. */
export function dueDay(dueOn: string, locale: string): string {
  return formatDay(`${dueOn}T12:00:00Z`, locale, "UTC");
}

/** What the step asks, in the reader's language. */
export function stepTitle(step: ApiNextStep, t: TFunction, locale: string): string {
  if (step.kind === "tests")
    return t("steps.say.tests", { tests: (step.tests ?? []).map((x) => testName(x, locale)).join(", ") });
  if (step.kind === "specialist")
    return t("steps.say.specialist", {
      specialty: step.specialty ? t(SPECIALTY_KEYS[step.specialty as Specialty] ?? step.specialty) : "",
    });
  return step.facility ? t("steps.say.facility", { facility: step.facility }) : t("steps.say.nearest");
}

/** When it is due, in the reader's language. */
export function stepDue(step: ApiNextStep, t: TFunction, locale: string): string {
  if (step.urgency === "today") return t("steps.say.dueToday");
  return t("steps.say.dueBy", { date: dueDay(step.dueOn, locale) });
}

export function stepWords(step: ApiNextStep, t: TFunction, locale: string): StepWords {
  return {
    _id: step._id,
    kind: step.kind,
    title: stepTitle(step, t, locale),
    reason: step.reason,
    due: stepDue(step, t, locale),
    dueOn: step.dueOn,
    state: step.state,
    stateLabel: t(STATE_KEYS[step.state]),
    stateReason: step.stateReason,
    referral: step.referral
      ? {
          code: step.referral.code,
          seen: step.referral.seenAt ? formatDay(step.referral.seenAt, locale) : null,
          note: step.referral.note,
        }
      : null,
  };
}

/**
 * The steps as a phone call says them, in her language, from phrases only: what and when for each
 * (a facility's name as written; the expert's reason is not read out).
 */
export function spokenSteps(steps: readonly ApiNextStep[], t: TFunction, locale: string): string[] {
  const open = steps.filter((s) => s.state === "open");
  if (!open.length) return [];
  return [
    t("steps.call.intro", { count: open.length }),
    ...open.map((s) => `${stepTitle(s, t, locale)}. ${stepDue(s, t, locale)}.`),
  ];
}
