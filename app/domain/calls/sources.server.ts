import type { CallWindowName } from "~/config-phone-line.server";
import type { StepAnswer } from "./ivr";

/**
 * What a call says and whom it is for come from the contexts that own those facts, handed to the
 * calls context rather than fetched from it (decision 0118): care gives the person a call is for
 * and proves a number by a missed call; consultation gives the opinions a call may tell, a
 * reminder's step, and takes her keypad answer. Each registers its part when it is loaded
 * (`provideCallSources` in its index), so the calls context sits below both and they ask it for a
 * call (`queueCall`) without a circle. A part not provided is a fault of the process's wiring,
 * named when first asked for.
 */

/** The person a call is for, as the call needs her. */
export type CallPatient = {
  id: string;
  firstName: string;
  locale: string;
  centreId: string | null;
  centreAccessRevokedAt: Date | null;
  birthYear: number | null;
  accountId: string | null;
  callWindow: CallWindowName | null;
};

/** One opinion a call may tell, in words of her language (decision 0080). */
export type PhoneOpinion = {
  reportId: string;
  /** The stored 8 kHz copy of the expert's explanation, if there is one. */
  phoneNoteKey: string | null;
  /** The phrase-book entries the expert chose, in her language. */
  phrases: string[];
  /** The written opinion (the call reads it out only in English, the language it was written in). */
  written: string[];
  /** The opinion's open next steps, as sentences of her language (decision 0114). */
  steps: string[];
};

/** A next step a reminder call is about (decision 0115), in her words. */
export type CallStep = {
  kind: "tests" | "specialist" | "facility";
  when: "soon" | "today" | "later";
  date: string;
  /** What to do, in her words (the catalogue's and the specialty's names; a facility's as written). */
  title: string;
};

export type CallSources = {
  patient(id: string): Promise<CallPatient | null>;
  /** The numbers a missed call from `number` proves, for the profiles that asked (decision 0102). */
  proveByMissedCall(number: string): Promise<unknown>;
  opinions(patientId: string, locale: string): Promise<PhoneOpinion[]>;
  /** The step a reminder call is about, read when it is placed; null when it is closed or gone. */
  step(stepId: string | null, locale: string): Promise<CallStep | null>;
  answerStep(stepId: string, answer: StepAnswer, locale: string): Promise<void>;
};

const sources: Partial<CallSources> = {};

/** A context hands the calls context its part of what calls need. */
export function provideCallSources(part: Partial<CallSources>): void {
  Object.assign(sources, part);
}

/** The part `name`, as provided. */
export function source<K extends keyof CallSources>(name: K): CallSources[K] {
  const s = sources[name];
  if (!s) throw new Error(`calls: nothing provides "${name}" in this process (decision 0118)`);
  return s;
}
