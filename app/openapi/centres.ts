import type { Endpoint } from "./endpoint";

/** Centres and health workers: admins create centres, health workers sign up for one and are approved, moved or suspended (decision 0030). */
export const CENTRE_ENDPOINTS: Endpoint[] = [];
