import { and, desc, eq, isNull, sql } from "drizzle-orm";
import { randomInt } from "node:crypto";
import { db, first, isUniqueViolation, preparedOnce } from "~/db/client.server";
import { healthWorkers, patientConsents, patientManagers, patients, type PatientRow } from "~/db/schema";
import { audit } from "../platform/index.server";
import { DomainError } from "../platform/errors";
import type { Actor, PatientAction } from "../platform/index.server";

/**
 * Patient profiles (decision 0030): the person whose health it is, apart from the login that acts
 * for them. One rule decides who may act for a profile, and every report, letter, follow-up,
 * sharing link and export asks it:
 *
 * - "self": the profile's own account (a patient account's profile has the account's id);
 * - "manager": a family login the profile is managed by, until the person revokes it;
 * - "centre": an approved health worker of the centre that registered the profile, until revoked;
 * - "admin": admins.
 *
 * Experts reach reports through the review rules (consultation), never through this one.
 */

export type PatientAccessKind = "self" | "manager" | "centre" | "admin";
export type PatientAccess = { kind: PatientAccessKind; patient: PatientRow; relationship?: string };

export async function findPatient(patientId: string): Promise<PatientRow | undefined> {
  if (typeof patientId !== "string" || !patientId || patientId.length > 100) return undefined;
  // Asked on every request for a person's reports: built and prepared once.
  const query = preparedOnce("patient_by_id", (d) =>
    d
      .select()
      .from(patients)
      .where(eq(patients.id, sql.placeholder("id")))
      .limit(1),
  );
  return (await query.execute({ id: patientId }))[0];
}

/** The centre an approved health worker works at, or null. */
export async function workerCentreId(actor: Pick<Actor, "id" | "accountType" | "approved">) {
  if (actor.accountType !== "HealthWorker" || !actor.approved) return null;
  const row = await first(
    db()
      .select({ centreId: healthWorkers.centreId })
      .from(healthWorkers)
      .where(eq(healthWorkers.userId, actor.id)),
  );
  return row?.centreId ?? null;
}

/** How `actor` may act for the profile, or null when not at all. */
export async function patientAccess(actor: Actor, patientId: string): Promise<PatientAccess | null> {
  const patient = await findPatient(patientId);
  if (!patient) return null;
  return accessTo(actor, patient);
}

/** patientAccess for a profile row already read. */
export async function accessTo(actor: Actor, patient: PatientRow): Promise<PatientAccess | null> {
  if (actor.accountType === "Admin") return { kind: "admin", patient };
  if (actor.accountType === "Patient") {
    if (patient.accountId === actor.id) return { kind: "self", patient };
    const managed = await first(
      db()
        .select({ relationship: patientManagers.relationship })
        .from(patientManagers)
        .where(
          and(
            eq(patientManagers.patientId, patient.id),
            eq(patientManagers.managerId, actor.id),
            isNull(patientManagers.revokedAt),
          ),
        ),
    );
    return managed ? { kind: "manager", patient, relationship: managed.relationship } : null;
  }
  if (actor.accountType === "HealthWorker") {
    const centreId = await workerCentreId(actor);
    if (centreId && patient.centreId === centreId && !patient.centreAccessRevokedAt)
      return { kind: "centre", patient };
  }
  return null;
}

/**
 * The profile if `actor` may act for it. An unknown profile is not_found for admins; for anyone
 * else an unknown and a forbidden profile get the same refusal, so ids cannot be probed.
 */
export async function requirePatientAccess(
  actor: Actor,
  patientId: string,
  refusal = "reports.notYourReports",
): Promise<PatientAccess> {
  const patient = await findPatient(patientId);
  if (!patient && actor.accountType === "Admin")
    throw new DomainError("not_found", "reports.patientNotFound");
  const access = patient ? await accessTo(actor, patient) : null;
  if (!access) throw new DomainError("forbidden", refusal);
  return access;
}

/** A patient account acting for its own profile, known without reading the profile's row. */
export type OwnProfileAccess = { kind: "self"; patient?: undefined };

/**
 * requirePatientAccess for a caller that needs only how `actor` may act, not the profile's row. A
 * patient account's own profile has the account's id (decision 0030; the migration that brought
 * profiles gave every earlier patient account one, and a take-over gives the new account the
 * profile's id): "self" is then known without asking the database — one round trip fewer on the
 * patient's own list. Anyone else is asked exactly as requirePatientAccess asks.
 */
export async function requirePatientAccessKind(
  actor: Actor,
  patientId: string,
  refusal?: string,
): Promise<PatientAccess | OwnProfileAccess> {
  if (actor.accountType === "Patient" && patientId === actor.id) return { kind: "self" };
  return requirePatientAccess(actor, patientId, refusal);
}

/**
 * Writes an action by someone other than the person into the profile's access trail ("Opened by …
 * (health worker, <centre>)"); the person's own actions and admins' are in the audit log as before.
 */
export async function traceAccess(
  actor: Actor,
  access: PatientAccess | OwnProfileAccess,
  action: PatientAction,
  detail: Record<string, unknown> = {},
  ip?: string | null,
) {
  if (access.kind !== "manager" && access.kind !== "centre") return;
  await audit(actor, action, "patient", access.patient.id, { by: access.kind, ...detail }, ip);
}

/** Whether a consent given for the profile by someone else (facilitated or a guardian's) is in force. */
export async function hasConsentFor(patientId: string): Promise<boolean> {
  const [latest] = await db()
    .select({ granted: patientConsents.granted })
    .from(patientConsents)
    .where(eq(patientConsents.patientId, patientId))
    .orderBy(desc(patientConsents.createdAt), desc(patientConsents.id))
    .limit(1);
  return !!latest?.granted;
}

// Crockford's base32 without the look-alikes (no I, L, O, U): easy to read aloud and to type.
const SHORT_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** A short ID for a slip: CB-XXXX-XX (32^6, about a billion; a clash draws again). */
export function newShortId(): string {
  let s = "";
  for (let i = 0; i < 6; i++) s += SHORT_ALPHABET[randomInt(SHORT_ALPHABET.length)];
  return `CB-${s.slice(0, 4)}-${s.slice(4)}`;
}

/** Normalises what someone typed as a short ID ("cb 7k4m 2q", "7K4M2Q") to CB-7K4M-2Q, or null. */
export function normalShortId(input: string): string | null {
  const raw = String(input ?? "")
    .toUpperCase()
    .replace(/[^0-9A-Z]/g, "")
    .replace(/^CB/, "")
    .replace(/O/g, "0")
    .replace(/[IL]/g, "1");
  if (raw.length !== 6 || [...raw].some((c) => !SHORT_ALPHABET.includes(c))) return null;
  return `CB-${raw.slice(0, 4)}-${raw.slice(4)}`;
}

/** The profile's short ID, given one now if it has none (profiles from before short IDs). */
export async function ensureShortId(patient: Pick<PatientRow, "id" | "shortId">): Promise<string> {
  if (patient.shortId) return patient.shortId;
  for (let attempt = 0; ; attempt++) {
    const shortId = newShortId();
    try {
      const [row] = await db()
        .update(patients)
        .set({ shortId })
        .where(and(eq(patients.id, patient.id), isNull(patients.shortId)))
        .returning({ shortId: patients.shortId });
      if (row) return row.shortId!;
      const again = await findPatient(patient.id);
      if (!again) throw new DomainError("not_found", "reports.patientNotFound");
      return again.shortId!;
    } catch (err) {
      if (!isUniqueViolation(err) || attempt === 4) throw err;
    }
  }
}

/** What a report's patient looks like in the API and on screens. */
export type ApiPatientProfile = {
  _id: string;
  shortId: string | null;
  firstName: string;
  lastName: string;
  sex: string | null;
  birthYear: number | null;
  birthYearEstimated: boolean;
  locality: string;
  preferredLanguage: string;
  phone: string | null;
  phoneOwner: string;
  phoneRelationship: string;
  centreId: string | null;
  hasOwnAccount: boolean;
  createdAt: string;
};

export function toApiPatient(p: PatientRow): ApiPatientProfile {
  return {
    _id: p.id,
    shortId: p.shortId,
    firstName: p.firstName,
    lastName: p.lastName,
    sex: p.sex,
    birthYear: p.birthYear,
    birthYearEstimated: p.birthYearEstimated,
    locality: p.locality,
    preferredLanguage: p.locale,
    phone: p.phone,
    phoneOwner: p.phoneOwner,
    phoneRelationship: p.phoneRelationship,
    centreId: p.centreId,
    hasOwnAccount: !!p.accountId,
    createdAt: p.createdAt.toISOString(),
  };
}

/**
 * The profiles a patient account acts for: its own first, then the family members it manages
 * (access not revoked), oldest first. Empty for other account types.
 */
export async function familyProfiles(
  actor: Pick<Actor, "id" | "accountType">,
): Promise<(PatientRow & { relationship: string })[]> {
  if (actor.accountType !== "Patient") return [];
  const own = await first(db().select().from(patients).where(eq(patients.accountId, actor.id)));
  const managed = await db()
    .select({ patient: patients, relationship: patientManagers.relationship })
    .from(patientManagers)
    .innerJoin(patients, eq(patients.id, patientManagers.patientId))
    .where(and(eq(patientManagers.managerId, actor.id), isNull(patientManagers.revokedAt)))
    .orderBy(patientManagers.createdAt, patients.id);
  return [
    ...(own ? [{ ...own, relationship: "" }] : []),
    ...managed.map((m) => ({ ...m.patient, relationship: m.relationship })),
  ];
}
