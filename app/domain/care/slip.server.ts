import { and, eq, sql } from "drizzle-orm";
import { randomInt } from "node:crypto";
import { db, first } from "~/db/client.server";
import { patients, users, type PatientRow } from "~/db/schema";
import { sha256 } from "~/lib/ids.server";
import type { Actor } from "../accounts/index.server";
import { DomainError } from "../platform/errors";
import { proofTries } from "../platform/index.server";
import { ensureShortId, findPatient, requirePatientAccess, traceAccess } from "./patients.server";

/**
 * The slip's take-over code (decision 0073). A centre's patient without a number of their own
 * proves a take-over with a code printed only on the slip handed to them: 10 characters of
 * Crockford's base32 (50 bits), stored as a SHA-256 with the profile's id, never in an answer
 * about the patient. Printing a slip draws a new code, so the slip printed before stops working;
 * each print is in the profile's access trail, and whoever printed the slip (other than the
 * registering worker's first slip) cannot start a take-over with its code: a second person must.
 */

// Crockford's base32 without the look-alikes (as the short ID).
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const CODE_LENGTH = 10;

/** A new code, shown as XXXX-XXXX-XX. */
function newSlipCode(): string {
  let s = "";
  for (let i = 0; i < CODE_LENGTH; i++) s += ALPHABET[randomInt(ALPHABET.length)];
  return `${s.slice(0, 4)}-${s.slice(4, 8)}-${s.slice(8)}`;
}

/** What someone typed as a code ("7k4m 2qxa bc", "7K4M-2QXA-BC") in one form, or null. */
export function normalSlipCode(input: unknown): string | null {
  const raw = String(input ?? "")
    .toUpperCase()
    .replace(/[^0-9A-Z]/g, "")
    .replace(/O/g, "0")
    .replace(/[IL]/g, "1");
  if (raw.length !== CODE_LENGTH || [...raw].some((c) => !ALPHABET.includes(c))) return null;
  return raw;
}

const codeHash = (patientId: string, normal: string) => sha256(`slip:${patientId}:${normal}`);

export type PrintedSlip = {
  patientId: string;
  shortId: string;
  /** The take-over code, shown on this slip only. */
  slipCode: string;
  printedAt: string;
  /** How many slips with a code this profile has had (1: the first). */
  prints: number;
};

/**
 * Prints a slip: a health worker of the profile's centre draws a new take-over code (the previous
 * slip's code stops working). Written into the profile's access trail ("slip printed" / "a new
 * slip printed"). A profile with its own login needs no code: refused.
 */
export async function printSlip(actor: Actor, patientId: string, ip?: string | null): Promise<PrintedSlip> {
  const access = await requirePatientAccess(actor, patientId, "registration.notYourPatient");
  if (access.kind !== "centre") throw new DomainError("forbidden", "slip.centreOnly");
  const p = access.patient;
  if (p.accountId) throw new DomainError("conflict", "family.alreadyOwnAccount");
  const shortId = await ensureShortId(p);
  const code = newSlipCode();
  const now = new Date();
  const [row] = await db()
    .update(patients)
    .set({
      slipCodeHash: codeHash(p.id, normalSlipCode(code)!),
      slipPrintedAt: now,
      slipPrintedBy: actor.id,
      slipPrints: sql`${patients.slipPrints} + 1`,
    })
    .where(eq(patients.id, p.id))
    .returning({ prints: patients.slipPrints });
  const prints = row?.prints ?? 1;
  await traceAccess(actor, access, "patient.slip_print", { prints }, ip);
  return { patientId: p.id, shortId, slipCode: code, printedAt: now.toISOString(), prints };
}

/**
 * When and by whom the slip in force was printed (never its code), for the slip screen; the caller
 * has already checked the reader may act for the profile.
 */
export async function slipPrinted(
  patientId: string,
): Promise<{ at: string; by: string; prints: number } | null> {
  const p = await findPatient(patientId);
  if (!p?.slipCodeHash || !p.slipPrintedAt) return null;
  const by = p.slipPrintedBy
    ? await first(
        db()
          .select({ firstName: users.firstName, lastName: users.lastName })
          .from(users)
          .where(and(eq(users.id, p.slipPrintedBy))),
      )
    : undefined;
  return {
    at: p.slipPrintedAt.toISOString(),
    by: by ? `${by.firstName} ${by.lastName}`.trim() : "",
    prints: p.slipPrints,
  };
}

/** Whether the take-over proof of this profile is the slip's code (a centre's patient) rather than ID + year. */
export const provesWithSlip = (p: Pick<PatientRow, "centreId">) => !!p.centreId;

const codeWrong = () =>
  new DomainError("invalid", "slip.codeWrong", { fieldErrors: { slipCode: ["slip.codeWrong"] } });

/**
 * Checks a take-over's slip code on the server (decision 0073): the code of the latest slip, 5 wrong
 * tries a day per profile (the `takeOverProof` budget, also with rate limits off), then 429. The
 * starter who printed that slip may not use its code — unless it is the first slip, printed by the
 * worker who registered the person (the registration desk; decision 0055's accepted case).
 */
export async function checkSlipCode(starter: Actor, p: PatientRow, slipCode: string | undefined) {
  if (!slipCode)
    throw new DomainError("invalid", "slip.codeNeeded", { fieldErrors: { slipCode: ["slip.codeNeeded"] } });
  if (!p.slipCodeHash)
    throw new DomainError("invalid", "slip.noSlipYet", { fieldErrors: { slipCode: ["slip.noSlipYet"] } });
  await proofTries.take("takeOverProof", p.id);
  const normal = normalSlipCode(slipCode);
  if (!normal || codeHash(p.id, normal) !== p.slipCodeHash) throw codeWrong();
  await proofTries.giveBack("takeOverProof", p.id);
  const registrationDesk = p.slipPrints === 1 && p.registeredBy === starter.id;
  if (p.slipPrintedBy === starter.id && !registrationDesk)
    throw new DomainError("forbidden", "slip.printedByYou", {
      fieldErrors: { slipCode: ["slip.printedByYou"] },
    });
}
