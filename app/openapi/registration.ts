import type { Endpoint } from "./endpoint";

/** Registering a patient at a centre with their facilitated consent, the centre queue, printing (decision 0030). */
export const REGISTRATION_ENDPOINTS: Endpoint[] = [];
