import { eq } from "drizzle-orm";
import { db, first } from "~/db/client.server";
import { centres, type PhoneCallRow } from "~/db/schema";
import { findPatient } from "../care/index.server";
import { opinionsForCall, type PhoneOpinion } from "../consultation/index.server";
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
  call: Pick<PhoneCallRow, "id" | "patientId" | "purpose" | "locale">,
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
  const patient = await findPatient(call.patientId);
  if (!patient) return general;
  let name = "CareBridge";
  if (patient.centreId && !patient.centreAccessRevokedAt) {
    const centre = await first(
      db().select({ name: centres.name }).from(centres).where(eq(centres.id, patient.centreId)),
    );
    if (centre) name = centre.name;
  }
  const opinions = await opinionsForCall(patient.id);
  return {
    callId: call.id,
    locale: patient.locale || call.locale,
    name,
    general: false,
    secret: patient.birthYear ? String(patient.birthYear) : null,
    ready: opinions.length,
    opinions,
  };
}
