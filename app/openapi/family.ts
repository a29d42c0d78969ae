import type { Endpoint } from "./endpoint";

/** Family under one phone: dependants, whose reports, taking a profile over, revoking access (decision 0030). */
export const FAMILY_ENDPOINTS: Endpoint[] = [];
