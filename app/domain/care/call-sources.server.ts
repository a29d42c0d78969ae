import { provideCallSources } from "../calls/index.server";
import { findPatient } from "./patients.server";
import { proveByMissedCall } from "./proven-numbers.server";

/**
 * Care's part of what a call needs (decision 0118): the person a call is for, and a missed call
 * that proves her number. Loaded with the context's index.
 */
provideCallSources({
  patient: async (id) => (await findPatient(id)) ?? null,
  proveByMissedCall,
});
