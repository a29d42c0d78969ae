import { eq } from "drizzle-orm";
import { db, first } from "~/db/client.server";
import { centres, profiles, type PhoneCallRow } from "~/db/schema";
import { source, type PhoneOpinion } from "./sources.server";
import type { IvrPlan } from "./ivr";

/**
 * What one call will say (decision 0080), read when it is placed: who it is from (the centre's
 * name, or CareBridge — said only after the keypad check, decision 0102), the digits that identify the person (her year of birth on the
 * profile), and the opinions it may tell. A general call (an unknown caller's) carries nothing of
 * anyone's.
 */
export type CallPlan = IvrPlan & {
  callId: string;
  locale: string;
  /** Who the call is from, said once she is identified (never in the greeting): her centre, or CareBridge. */
  name: string;
  opinions: PhoneOpinion[];
};

export async function planFor(
  call: Pick<PhoneCallRow, "id" | "patientId" | "purpose" | "locale" | "stepId">,
): Promise<CallPlan> {
  const general: CallPlan = {
    callId: call.id,
    locale: call.locale,
    name: "CareBridge",
    general: true,
    secret: null,
    ready: 0,
    opinions: [],
  };
  if (call.purpose === "general" || !call.patientId) return general;
  const patient = await source("patient")(call.patientId);
  if (!patient) return general;
  let name = "CareBridge";
  if (patient.centreId && !patient.centreAccessRevokedAt) {
    const centre = await first(
      db().select({ name: centres.name }).from(centres).where(eq(centres.id, patient.centreId)),
    );
    if (centre) name = centre.name;
  }
  const locale = patient.locale || call.locale;
  const secret = await yearOfBirth(patient);
  const base = { callId: call.id, locale, name, general: false, secret };
  // A next step's reminder (decision 0115): the step only, no opinion; null once it is closed.
  if (call.purpose === "step-reminder")
    return { ...base, ready: 0, opinions: [], step: await source("step")(call.stepId, locale) };
  const opinions = await source("opinions")(patient.id, locale);
  return { ...base, ready: opinions.length, opinions };
}

/**
 * The digits that identify her: the year of birth on her profile (a centre's or a family's
 * registration), else the year of the date of birth on her own account's profile.
 */
async function yearOfBirth(patient: {
  birthYear: number | null;
  accountId: string | null;
}): Promise<string | null> {
  if (patient.birthYear) return String(patient.birthYear);
  if (!patient.accountId) return null;
  const row = await first(
    db()
      .select({ dateOfBirth: profiles.dateOfBirth })
      .from(profiles)
      .where(eq(profiles.userId, patient.accountId)),
  );
  const year = /^(\d{4})-\d{2}-\d{2}/.exec(row?.dateOfBirth ?? "")?.[1];
  return year ?? null;
}
