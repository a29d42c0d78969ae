import { and, count, eq, isNull } from "drizzle-orm";
import { db, exec, first, isUniqueViolation, transaction } from "~/db/client.server";
import { patientConsents, patientManagers, patients, users, type PatientRow } from "~/db/schema";
import {
  ADULT_AGE,
  familyMemberSchema,
  type FamilyMemberInput,
  type FamilyRelationship,
} from "~/schemas/family";
import { newId } from "~/lib/ids.server";
import { auditInsert } from "../platform/index.server";
import { DomainError, zodFieldErrors } from "../platform/errors";
import type { Actor } from "../platform/index.server";
import {
  ensureShortId,
  familyProfiles,
  newShortId,
  toApiPatient,
  type ApiPatientProfile,
} from "./patients.server";

/**
 * Family under one phone (decision 0030): a patient account adds the people whose reports it sends
 * and reads — children, elderly parents, anyone who agreed. Each becomes a patient profile of its
 * own (no login) managed by the account; the consent behind it is recorded like a centre's: a
 * guardian's for a minor, the person's own (confirmed by the account holder) for an adult.
 */

/** Versions of the consent texts shown on the add form; a new wording gets a new version. */
export const GUARDIAN_CONSENT_VERSION = "family-guardian-2026-11";
export const MEMBER_CONSENT_VERSION = "family-member-2026-11";

/** Enough for any household; a cap keeps one account from making profiles without end. */
export const FAMILY_MAX = 20;

/**
 * Age in whole years from a year of birth (the year is all we keep). Someone who turns 18 this
 * year counts as 18: the person at the counter answers "how old are you" the same way.
 */
export function ageOf(birthYear: number | null, now = new Date()): number | null {
  return birthYear === null ? null : now.getUTCFullYear() - birthYear;
}

/** Under 18 — or of an unknown age, which is treated the same way wherever it matters (take-over). */
export function isMinor(p: Pick<PatientRow, "birthYear">, now = new Date()): boolean {
  const age = ageOf(p.birthYear, now);
  return age === null || age < ADULT_AGE;
}

/**
 * The account holder's relationship to the member ("parent" of a daughter): kept on the consent
 * and as whose phone the member's number is.
 */
export function holderRelationship(member: FamilyRelationship): string {
  switch (member) {
    case "daughter":
    case "son":
      return "parent";
    case "father":
    case "mother":
      return "child";
    case "spouse":
      return "spouse";
    default:
      return "family";
  }
}

export type ApiFamilyMember = ApiPatientProfile & {
  /** Who they are to the account holder ("" for the holder's own profile). */
  relationship: string;
  /** The account holder's own profile. */
  self: boolean;
  age: number | null;
  minor: boolean;
  /** An adult without a login of their own, whose profile they may take over with their own number. */
  canTakeOver: boolean;
};

function toMember(p: PatientRow & { relationship: string }, actorId: string): ApiFamilyMember {
  const self = p.accountId === actorId;
  const minor = isMinor(p);
  return {
    ...toApiPatient(p),
    relationship: p.relationship,
    self,
    age: ageOf(p.birthYear),
    minor,
    canTakeOver: !self && !p.accountId && !minor,
  };
}

function patientsOnly(actor: Actor) {
  if (actor.accountType !== "Patient") throw new DomainError("forbidden", "family.patientsOnly");
}

/** The profiles the patient account acts for: its own first, then the members it manages. */
export async function listFamily(actor: Actor): Promise<ApiFamilyMember[]> {
  patientsOnly(actor);
  const rows = await familyProfiles(actor);
  // Every profile shows a short ID to read out at a centre (an account's own from before gets one now).
  for (const r of rows) if (!r.shortId) r.shortId = await ensureShortId(r);
  return rows.map((r) => toMember(r, actor.id));
}

/**
 * Adds a family member: a profile managed by the account, with the consent that allows it (a
 * guardian's for a minor, the person's own for an adult: `guardianConsent` / `memberConsent`
 * must be given for the age entered — without it nothing is saved). The member's number is the
 * account holder's (a family phone) when they have one.
 */
export async function addFamilyMember(
  actor: Actor,
  raw: unknown,
  opts: { ip?: string | null } = {},
): Promise<ApiFamilyMember> {
  patientsOnly(actor);
  const parsed = familyMemberSchema.safeParse(raw);
  if (!parsed.success)
    throw new DomainError("invalid", "family.addFailed", { fieldErrors: zodFieldErrors(parsed.error) });
  const input: FamilyMemberInput = parsed.data;
  const now = new Date();
  const year = now.getUTCFullYear();
  if (input.birthYear === undefined && input.age === undefined)
    throw new DomainError("invalid", "family.ageRequired", { fieldErrors: { age: ["family.ageRequired"] } });
  if (input.birthYear !== undefined && input.birthYear > year)
    throw new DomainError("invalid", "family.birthYearInvalid", {
      fieldErrors: { birthYear: ["family.birthYearInvalid"] },
    });
  const birthYear = input.birthYear ?? year - input.age!;
  const minor = isMinor({ birthYear }, now);
  const consentField = minor ? "guardianConsent" : "memberConsent";
  const consentKey = minor ? "family.guardianConsentRequired" : "family.memberConsentRequired";
  if (input[consentField] !== true)
    throw new DomainError("invalid", consentKey, { fieldErrors: { [consentField]: [consentKey] } });

  const [{ n }] = await db()
    .select({ n: count() })
    .from(patientManagers)
    .where(and(eq(patientManagers.managerId, actor.id), isNull(patientManagers.revokedAt)));
  if (n >= FAMILY_MAX) throw new DomainError("conflict", "family.tooMany", { values: { max: FAMILY_MAX } });

  const holder = await first(
    db()
      .select({ phone: users.phone, firstName: users.firstName, lastName: users.lastName })
      .from(users)
      .where(eq(users.id, actor.id)),
  );
  if (!holder) throw new DomainError("not_authenticated", "api.notAuthenticated");
  const id = newId();
  const byRelation = holderRelationship(input.relationship);
  for (let attempt = 0; ; attempt++) {
    try {
      await transaction(function* (tx) {
        yield* exec(
          tx.insert(patients).values({
            id,
            accountId: null,
            firstName: input.firstName,
            lastName: input.lastName ?? "",
            sex: input.sex,
            birthYear,
            birthYearEstimated: input.birthYear === undefined,
            locale: input.preferredLanguage,
            phone: holder.phone ?? null,
            phoneOwner: holder.phone ? "family" : "none",
            phoneRelationship: holder.phone ? byRelation : "",
            registeredBy: actor.id,
            shortId: newShortId(),
            createdAt: now,
            updatedAt: now,
          }),
        );
        yield* exec(
          tx.insert(patientManagers).values({
            patientId: id,
            managerId: actor.id,
            relationship: input.relationship,
            createdAt: now,
          }),
        );
        yield* exec(
          tx.insert(patientConsents).values({
            id: newId(),
            patientId: id,
            kind: minor ? "guardian" : "family",
            granted: true,
            textVersion: minor ? GUARDIAN_CONSENT_VERSION : MEMBER_CONSENT_VERSION,
            // The text was read in the account holder's language.
            locale: actor.locale || "en",
            method: "online",
            recordedBy: actor.id,
            recordedByName: `${holder.firstName} ${holder.lastName}`.trim(),
            // For a child: a parent, or (a younger sibling, a grandchild) a guardian.
            relationship: minor && byRelation !== "parent" ? "guardian" : byRelation,
            createdAt: now,
          }),
        );
        yield* exec(
          auditInsert(
            tx,
            actor,
            "patient.family_add",
            "patient",
            id,
            { by: "manager", relationship: input.relationship, consent: minor ? "guardian" : "family" },
            opts.ip,
          ),
        );
      });
      break;
    } catch (err) {
      // A short ID drawn twice (one in a billion): draw again.
      if (!isUniqueViolation(err) || attempt === 3) throw err;
    }
  }
  const row = (await first(db().select().from(patients).where(eq(patients.id, id))))!;
  return toMember({ ...row, relationship: input.relationship }, actor.id);
}

/** One choice of the "whose reports" switcher: a profile the account acts for. */
export type WhoseOption = { id: string; name: string; relationship: string; self: boolean };

/**
 * The "whose reports" switcher's choices for a screen: the account's own profile and its family
 * members (none for other account types, and none when there is nobody to switch to).
 */
export async function whoseOptions(actor: Pick<Actor, "id" | "accountType">): Promise<WhoseOption[]> {
  const rows = await familyProfiles(actor);
  if (rows.length < 2) return [];
  return rows.map((r) => ({
    id: r.id,
    name: `${r.firstName} ${r.lastName}`.trim(),
    relationship: r.relationship,
    self: r.accountId === actor.id,
  }));
}
