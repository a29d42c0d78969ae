import { z } from "zod";
import { CENTRE_KINDS, HEALTH_WORKER_ROLES } from "~/db/types";
import { strictBoolean } from "./strict";
import {
  CENTRE_KIND_KEYS,
  CENTRE_NAME_MAX,
  HEALTH_WORKER_STATUSES,
  NO_WORKERS_KEYS,
  PLACE_MAX,
  WORKER_ID_MAX,
  WORKER_REJECTION_MAX,
  WORKER_ROLE_KEYS,
  WORKER_STATUS_KEYS,
} from "./limits";

export { CENTRE_KIND_KEYS, CENTRE_NAME_MAX, PLACE_MAX, WORKER_ID_MAX, WORKER_ROLE_KEYS };

/**
 * Centres and health workers (decision 0030): the admin's centre form, a health worker's details at
 * signup, and the admin's decisions about health workers. Shared by the screens (Conform), the API
 * and the OpenAPI document. Messages are i18n keys.
 */

/** i18n key of each health worker role's name. */

const text = (requiredKey: string, max: number, tooLongKey: string) =>
  z
    .string({ required_error: requiredKey, invalid_type_error: requiredKey })
    .trim()
    .min(1, requiredKey)
    .max(max, tooLongKey);

export const centreKindField = z.enum(CENTRE_KINDS, {
  errorMap: () => ({ message: "centres.kindInvalid" }),
});

/** An Indian PIN code: six digits, the first not 0. */
export const pinCodeField = z
  .string({ required_error: "centres.pinRequired", invalid_type_error: "centres.pinInvalid" })
  .trim()
  .min(1, "centres.pinRequired")
  .regex(/^[1-9]\d{5}$/, "centres.pinInvalid");

const centreFields = {
  name: text("centres.nameRequired", CENTRE_NAME_MAX, "centres.nameTooLong"),
  kind: centreKindField,
  district: text("centres.districtRequired", PLACE_MAX, "centres.placeTooLong"),
  state: text("centres.stateRequired", PLACE_MAX, "centres.placeTooLong"),
  pinCode: pinCodeField,
};

/** A new centre: every field. */
export const centreSchema = z.object(centreFields);
export type CentreInput = z.infer<typeof centreSchema>;

/** Changing a centre: any of its fields (at least one). */
export const centreUpdateSchema = z
  .object({
    name: centreFields.name.optional(),
    kind: centreFields.kind.optional(),
    district: centreFields.district.optional(),
    state: centreFields.state.optional(),
    pinCode: centreFields.pinCode.optional(),
  })
  .refine((v) => Object.values(v).some((x) => x !== undefined), {
    message: "centres.nothingToChange",
    path: ["name"],
  });
export type CentreUpdate = z.infer<typeof centreUpdateSchema>;

/** An id of a centre as a field (a select on screens). */
export const centreIdField = z
  .string({ required_error: "centres.centreRequired", invalid_type_error: "centres.centreRequired" })
  .trim()
  .min(1, "centres.centreRequired")
  .max(64, "centres.centreUnknown");

export const workerRoleField = z.enum(HEALTH_WORKER_ROLES, {
  errorMap: () => ({ message: "centres.roleInvalid" }),
});

export const workerIdField = z
  .string({ required_error: "centres.workerIdRequired", invalid_type_error: "centres.workerIdRequired" })
  .trim()
  .min(1, "centres.workerIdRequired")
  .max(WORKER_ID_MAX, "centres.workerIdInvalid")
  .regex(/^[\p{L}\p{N}][\p{L}\p{N} /._-]*$/u, "centres.workerIdInvalid");

/**
 * A health worker's details at signup (screen and API): their centre, role and ID. Read as text
 * here and checked by `requireHealthWorkerDetails` only when the account is a health worker: the
 * screen sends these fields (hidden) whatever account type is chosen, and a patient must never be
 * refused over a field they cannot see.
 */
export const healthWorkerSignupFields = {
  centreId: z
    .string({ invalid_type_error: "centres.centreUnknown" })
    .trim()
    .optional()
    .describe("Health workers: the centre's id (GET /centres/directory)"),
  workerRole: z
    .string({ invalid_type_error: "centres.roleInvalid" })
    .trim()
    .optional()
    .describe(`Health workers: ${HEALTH_WORKER_ROLES.join(", ")}`),
  workerId: z
    .string({ invalid_type_error: "centres.workerIdInvalid" })
    .trim()
    .optional()
    .describe(
      "Health workers: the ID their programme gave them (at most 40 letters, digits, spaces, / . - _)",
    ),
};

/** A health worker must say where they work, as what and their ID (screen and API alike). */
export function requireHealthWorkerDetails(
  v: { accountType: string; centreId?: string; workerRole?: string; workerId?: string },
  ctx: z.RefinementCtx,
) {
  if (v.accountType !== "HealthWorker") return;
  for (const [key, schema, requiredKey] of [
    ["centreId", centreIdField, "centres.centreRequired"],
    ["workerRole", workerRoleField, "centres.roleRequired"],
    ["workerId", workerIdField, "centres.workerIdRequired"],
  ] as const) {
    if (!v[key]) {
      ctx.addIssue({ code: "custom", path: [key], message: requiredKey });
      continue;
    }
    const r = schema.safeParse(v[key]);
    if (!r.success) ctx.addIssue({ code: "custom", path: [key], message: r.error.issues[0].message });
  }
}

export { HEALTH_WORKER_STATUSES, NO_WORKERS_KEYS, WORKER_REJECTION_MAX, WORKER_STATUS_KEYS };
export type HealthWorkerStatus = (typeof HEALTH_WORKER_STATUSES)[number];

/** The admin's list of health workers: by status (pending first by default) and optionally one centre. */
export const healthWorkerQuerySchema = z.object({
  status: z
    .enum(HEALTH_WORKER_STATUSES, { errorMap: () => ({ message: "centres.statusInvalid" }) })
    .default("pending"),
  centreId: z.string().trim().max(64, "centres.centreUnknown").optional(),
});

/** Declining a health worker's application: a reason they are told. */
export const rejectWorkerSchema = z.object({
  reason: z
    .string({
      required_error: "centres.rejectReasonRequired",
      invalid_type_error: "centres.rejectReasonRequired",
    })
    .trim()
    .min(1, "centres.rejectReasonRequired")
    .max(WORKER_REJECTION_MAX, "centres.rejectReasonTooLong"),
});

/** The admin changes a health worker: moves them to another centre, suspends or lifts a suspension. */
export const updateWorkerSchema = z
  .object({
    centreId: centreIdField.optional(),
    suspended: strictBoolean().optional(),
  })
  .refine((v) => v.centreId !== undefined || v.suspended !== undefined, {
    message: "centres.nothingToChange",
    path: ["centreId"],
  });
export type UpdateWorkerInput = z.infer<typeof updateWorkerSchema>;

/** A role as the signup schema checked it (it reads the field as text). */
export function isHealthWorkerRole(v: unknown): v is (typeof HEALTH_WORKER_ROLES)[number] {
  return (HEALTH_WORKER_ROLES as readonly unknown[]).includes(v);
}

/** Held items (decision 0065): the message keys of their kind, why they are held, and their state. */
export const HELD_KIND_KEYS: Record<string, string> = {
  register: "held.kind.register",
  upload: "held.kind.upload",
  voice: "held.kind.voice",
  "follow-up": "held.kind.follow-up",
};
export const HELD_REASON_KEYS: Record<string, string> = {
  suspended: "held.reason.suspended",
  moved: "held.reason.moved",
};
export const HELD_STATUS_KEYS: Record<string, string> = {
  held: "held.status.held",
  handing: "held.status.handing",
  handed: "held.status.handed",
};
