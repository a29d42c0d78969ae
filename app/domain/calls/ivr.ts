/**
 * What a call does when the person presses a key (decision 0080), as a state machine with no I/O:
 * the SIP line and the voice provider both drive it, and tests read it directly.
 *
 * A call that may carry an opinion starts at "identify": the greeting names no one — not the
 * person, not her centre — and asks for the year of birth (decision 0102); the centre's name
 * comes only after the right digits. Nothing medical is played before them.
 * Two wrong answers end the call. Once she is identified, the "content" prompt says which
 * opinions are ready and plays the doctor's voice note or reads the phrases, then the menu:
 * 1 again, 2 ask for a callback from the health worker or clinic, 9 the menu.
 *
 * A next step's reminder call (decision 0115) is identified the same way; then the "step" prompt
 * says which kind of step is due when and what to do (the SMS names only the kind: a phone's
 * inbox is not a keypad check) and its menu: 1 done, 2 remind
 * me tomorrow, 3 I cannot go, 9 again. Her answer ends the call with its confirmation.
 */

export type Prompt =
  | "intro" // greeting + ask for the year of birth
  | "again" // did not match, ask again
  | "content" // which opinions are ready, then what the doctor said, then the menu
  | "menu"
  | "callback" // a callback was asked for; goodbye
  | "not-verified" // goodbye after the second wrong answer
  | "no-secret" // nothing on record to check her with; goodbye
  | "none-ready" // identified, but no opinion to tell; goodbye
  | "general" // an unknown caller's short message; goodbye
  | "step" // a next step's reminder: its kind and when, then its menu
  | "step-done" // her answers to it; goodbye
  | "step-later"
  | "step-declined";

/** Prompts after which the call ends (when the audio ends). */
export const FINAL_PROMPTS: readonly Prompt[] = [
  "callback",
  "not-verified",
  "no-secret",
  "none-ready",
  "general",
  "step-done",
  "step-later",
  "step-declined",
];

/** Her answer to a next step's reminder by keypad (the same three as an SMS reply). */
export type StepAnswer = "done" | "later" | "declined";

export type IvrState = {
  step: "identify" | "menu" | "done";
  digits: string;
  wrong: number;
  verified: boolean;
  /** Content was played (the opinion heard). */
  heard: boolean;
  callbackAsked: boolean;
  /** A reminder call: what she pressed for the step. */
  stepAnswer?: StepAnswer | null;
};

export type IvrPlan = {
  /** The digits that identify her (the year of birth), or null when nothing on record can. */
  secret: string | null;
  /** The call carries no opinion (an unknown caller's general message). */
  general: boolean;
  /** Opinions ready to tell. */
  ready: number;
  /**
   * A next step's reminder call: the step's kind and when it is due, in words of her language
   * (null: the step was closed meanwhile, nothing to remind).
   */
  step?: {
    kind: "tests" | "specialist" | "facility";
    when: "soon" | "today" | "later";
    date: string;
    /** What to do, in her words ("Repeat these tests: HbA1c"); said after the digits only. */
    title?: string;
  } | null;
};

export const MAX_WRONG = 2;

export function startIvr(plan: IvrPlan): { state: IvrState; play: Prompt } {
  const state: IvrState = {
    step: "identify",
    digits: "",
    wrong: 0,
    verified: false,
    heard: false,
    callbackAsked: false,
  };
  if (plan.general) return { state: { ...state, step: "done" }, play: "general" };
  if (!plan.secret) return { state: { ...state, step: "done" }, play: "no-secret" };
  return { state, play: "intro" };
}

/** The next state after `key` (0-9, * or #) and the prompt to switch to, if any. */
export function pressKey(
  plan: IvrPlan,
  state: IvrState,
  key: string,
): { state: IvrState; play: Prompt | null } {
  if (state.step === "done") return { state, play: null };
  if (state.step === "identify") {
    if (!/^[0-9]$/.test(key)) return { state: { ...state, digits: "" }, play: null };
    const digits = state.digits + key;
    const secret = plan.secret ?? "";
    if (digits.length < secret.length) return { state: { ...state, digits }, play: null };
    if (digits === secret) {
      const verified = { ...state, digits: "", verified: true };
      if (plan.step) return { state: { ...verified, step: "menu" }, play: "step" };
      if (plan.ready === 0) return { state: { ...verified, step: "done" }, play: "none-ready" };
      return { state: { ...verified, step: "menu", heard: true }, play: "content" };
    }
    const wrong = state.wrong + 1;
    if (wrong >= MAX_WRONG)
      return { state: { ...state, digits: "", wrong, step: "done" }, play: "not-verified" };
    return { state: { ...state, digits: "", wrong }, play: "again" };
  }
  // The menu.
  if (plan.step) {
    const answer: StepAnswer | null =
      key === "1" ? "done" : key === "2" ? "later" : key === "3" ? "declined" : null;
    if (answer) return { state: { ...state, step: "done", stepAnswer: answer }, play: `step-${answer}` };
    return { state, play: key === "9" ? "step" : null };
  }
  if (key === "1") return { state, play: "content" };
  if (key === "2") return { state: { ...state, step: "done", callbackAsked: true }, play: "callback" };
  if (key === "9") return { state, play: "menu" };
  return { state, play: null };
}

/** What happened on a call, as the admins' list and the queue record it (never what was said). */
export function outcomeOf(state: IvrState | null, answered: boolean, general: boolean): string {
  if (!answered) return "no-answer";
  if (general) return "general-heard";
  if (!state) return "hung-up";
  if (state.stepAnswer) return `step-${state.stepAnswer}`;
  if (state.callbackAsked) return "callback-asked";
  if (state.heard) return "heard";
  if (state.verified) return "verified";
  if (state.wrong >= MAX_WRONG) return "not-verified";
  return "hung-up";
}

/** Looks a sentence up in the person's language (i18next's `t`, or any function like it). */
export type Sentences = (key: string, vars?: Record<string, unknown>) => string;

/**
 * The fixed sentences of a prompt, in order (the opinions themselves come between "content"'s
 * first sentences and its menu: prompts.server.ts). Who the call is from — the centre's name — is
 * said only once the year of birth was keyed and matched ("content", "none-ready"): a greeting
 * that named her or her centre would tell whoever picks up whose call it is, and where she is
 * treated, before the keypad check (decision 0102).
 */
export function promptSentences(
  prompt: Prompt,
  plan: Pick<IvrPlan, "ready" | "step"> & { name: string },
  t: Sentences,
): { before: string[]; after: string[] } {
  const from = () => t("phonecall.from", { name: plan.name });
  switch (prompt) {
    case "intro":
      return { before: [t("phonecall.greeting"), t("phonecall.askYear")], after: [] };
    case "again":
      return { before: [t("phonecall.askAgain")], after: [] };
    case "content":
      return {
        before: [
          from(),
          plan.ready === 1 ? t("phonecall.readyOne") : t("phonecall.readyMany", { count: plan.ready }),
        ],
        after: [t("phonecall.menu")],
      };
    case "menu":
      return { before: [t("phonecall.menu")], after: [] };
    case "callback":
      return { before: [t("phonecall.callbackAsked")], after: [] };
    case "not-verified":
      return { before: [t("phonecall.notVerified")], after: [] };
    case "no-secret":
      return { before: [t("phonecall.noSecret")], after: [] };
    case "none-ready":
      return { before: [from(), t("phonecall.noneReady")], after: [] };
    case "general":
      return { before: [t("phonecall.general")], after: [] };
    case "step": {
      const what = t(STEP_WHAT[plan.step?.kind ?? "tests"]);
      const date = plan.step?.date ?? "";
      return {
        before: [
          from(),
          t(STEP_WHEN[plan.step?.when ?? "soon"], { what, date }),
          ...(plan.step?.title ? [`${plan.step.title}.`] : []),
        ],
        after: [t("phonecall.stepMenu")],
      };
    }
    case "step-done":
      return { before: [t("reminders.reply.done")], after: [] };
    case "step-later":
      return { before: [t("reminders.reply.later")], after: [] };
    case "step-declined":
      return { before: [t("reminders.reply.declined")], after: [] };
  }
}

/** A step's kind in a few words, and the reminder's sentence by when (every key named, for the catalogue check). */
const STEP_WHAT = {
  tests: "reminders.what.tests",
  specialist: "reminders.what.specialist",
  facility: "reminders.what.facility",
} as const;
const STEP_WHEN = {
  soon: "phonecall.stepSoon",
  today: "phonecall.stepToday",
  later: "phonecall.stepLate",
} as const;
