import { HEALTH_WORKER_ROLES } from "~/db/types";

/**
 * Limits and choices the forms show in the browser (maxlength, select options), kept apart from the
 * zod schemas that enforce them on the server, so a screen that shows a form without checking it
 * as you type loads no zod (decision 0036). The schema modules re-export them.
 */

/** Country codes offered on the signup form's contact number. */
export const SIGNUP_COUNTRY_CODES = ["+91", "+1", "+44", "+61", "+81"] as const;

/** An expert's registration number and council (decision 0013). */
export const REGISTRATION_MAX = 40;
export const COUNCIL_MAX = 120;

/** A health worker's ID at their centre (decision 0030). */
export const WORKER_ID_MAX = 40;

/** i18n key of each health worker role's name. */
export const WORKER_ROLE_KEYS: Record<(typeof HEALTH_WORKER_ROLES)[number], string> = {
  cho: "centres.roleCho",
  anm: "centres.roleAnm",
  asha: "centres.roleAsha",
  vle: "centres.roleVle",
  doctor: "centres.roleDoctor",
  other: "centres.roleOther",
};
