import { and, eq, isNotNull, isNull } from "drizzle-orm";
import { newId, newToken, sha256 } from "~/lib/ids.server";
import { exec, isUniqueViolation, rows, transaction } from "~/db/client.server";
import { patientManagers, patients, takeOvers, type PatientRow, type UserRow } from "~/db/schema";
import { completeTakeOverSchema, startTakeOverSchema, type CompleteTakeOverInput } from "~/schemas/family";
import { maskPhone } from "~/lib/phone.server";
import {
  createProfileLogin,
  assertPasswordNotCommon,
  checkCode,
  checkedPhone,
  issueCode,
  latestCode,
  limitSmsCode,
  phoneDigits,
  smsPhone,
  hashPassword,
  type Actor,
  findUserById,
  findUserByPhone,
} from "../accounts/index.server";
import type { Client } from "../platform/client";
import { auditInsert } from "../platform/index.server";
import { DomainError, zodFieldErrors } from "../platform/errors";
import { limit, proofTries } from "../platform/index.server";
import { isMinor } from "./family.server";
import { accessTo, findPatient, normalShortId, requirePatientAccess, traceAccess } from "./patients.server";
import { revokeLinksMadeBy } from "./access.server";
import { announceTakeOver, type TakeOverPrevious } from "./takeover-notice.server";
import { checkSlipCode, provesWithSlip } from "./slip.server";

/**
 * Taking a profile over (decision 0030): an adult family member — or a centre's patient — gets a
 * login of their own for the profile someone else has managed. The manager or the centre's health
 * worker starts it with the person's own mobile number; the SMS code goes to THAT number, so only
 * the person holding the phone completes it (on any phone, signed out, without JavaScript).
 * Completing it makes a patient account whose id IS the profile's id — every report, opinion and
 * link stays the person's, and the API's patientId is theirs — and the person decides whether the
 * manager (or centre) keeps access. The code is a verification code like a signup's (purpose
 * "takeover": 10 minutes, single use, 5 tries); the SMS budgets are the signup codes'.
 *
 * Proving the person is the patient (decision 0055): where the profile has the person's own
 * number the code goes only there; otherwise the starter gives the person's number with the slip
 * ID and year of birth only the person holds (5 wrong tries a day per profile). The code completes
 * only while its starter may still act for the profile (a suspended, moved or declined worker's
 * code is dead). A completed take-over is recorded (table take_overs), announced to the previous
 * number, the managers and the centre with a "this was not me" link, and an admin may undo it for
 * 7 days (takeover-review.server.ts).
 */

type Pending = {
  patientId: string;
  startedBy: string;
  startedAs: "manager" | "centre";
  /** The slip proved with (its print count): a slip printed since makes the code dead (0073). */
  slip?: number;
};

const numberTaken = () =>
  new DomainError("conflict", "family.numberTaken", { fieldErrors: { phone: ["family.numberTaken"] } });

/** Why this profile cannot be taken over, if it cannot. */
function assertTakeable(p: { accountId: string | null; birthYear: number | null }) {
  if (p.accountId) throw new DomainError("conflict", "family.alreadyOwnAccount");
  if (isMinor(p)) throw new DomainError("invalid", "family.minorCannotTakeOver");
}

/** The profile's own number, where it has one: the only number a take-over code may go to. */
function ownNumber(p: Pick<PatientRow, "phone" | "phoneOwner">): string | null {
  return p.phoneOwner === "self" && p.phone ? p.phone : null;
}

const proofWrong = () =>
  new DomainError("invalid", "family.takeOverProofWrong", {
    fieldErrors: { shortId: ["family.takeOverProofWrong"], birthYear: ["family.takeOverProofWrong"] },
  });

/**
 * What only the person holds — the short ID on their slip and their year of birth — checked on
 * the server; 5 wrong tries a day per profile (counted even with rate limits off), then 429.
 */
async function checkProof(p: PatientRow, input: { shortId?: string; birthYear?: number }) {
  if (!input.shortId || input.birthYear === undefined)
    throw new DomainError("invalid", "family.takeOverProofNeeded", {
      fieldErrors: {
        ...(input.shortId ? {} : { shortId: ["family.takeOverProofNeeded"] }),
        ...(input.birthYear === undefined ? { birthYear: ["family.takeOverProofNeeded"] } : {}),
      },
    });
  await proofTries.take("takeOverProof", p.id);
  const slip = normalShortId(input.shortId);
  if (!p.shortId || slip !== p.shortId || input.birthYear !== p.birthYear) throw proofWrong();
  await proofTries.giveBack("takeOverProof", p.id);
}

/**
 * Starts a take-over: the family manager or a health worker of the profile's centre. Where the
 * profile has the person's own number the code goes there (another number is refused); otherwise
 * the starter names the person's own mobile number and gives the slip ID and year of birth. A
 * number that already has an account is refused (the person logs in with it instead).
 */
export async function startTakeOver(
  actor: Actor,
  patientId: string,
  raw: unknown,
  client: Client,
): Promise<{ phone: string; toOwnNumber: boolean; expiresInMinutes: number }> {
  const access = await requirePatientAccess(actor, patientId, "family.notYours");
  if (access.kind !== "manager" && access.kind !== "centre")
    throw new DomainError("forbidden", "family.takeOverNotYours");
  const parsed = startTakeOverSchema.safeParse(raw);
  if (!parsed.success)
    throw new DomainError("invalid", "family.takeOverFailed", { fieldErrors: zodFieldErrors(parsed.error) });
  assertTakeable(access.patient);
  const own = ownNumber(access.patient);
  let phone: string;
  if (own) {
    // The code goes only to the person's own number: another number is refused, never used.
    if (parsed.data.phone !== undefined && smsPhone(parsed.data.phone) !== own)
      throw new DomainError("invalid", "family.takeOverOwnNumberOnly", {
        fieldErrors: { phone: ["family.takeOverOwnNumberOnly"] },
      });
    phone = smsPhone(own);
  } else {
    if (!parsed.data.phone)
      throw new DomainError("invalid", "family.takeOverFailed", {
        fieldErrors: { phone: ["accounts.mobileRequired"] },
      });
    phone = smsPhone(parsed.data.phone);
    // A centre's patient proves it with the code on their latest slip, which no answer about
    // them carries (decision 0073); a profile a family made, with the slip ID and year of birth.
    if (provesWithSlip(access.patient)) await checkSlipCode(actor, access.patient, parsed.data.slipCode);
    else await checkProof(access.patient, parsed.data);
  }
  // The budgets first: "this number has an account" must not be asked for number after number.
  await limitSmsCode(phone, client, "signup", true);
  if (await findUserByPhone(phone)) throw numberTaken();
  const pending: Pending = {
    patientId: access.patient.id,
    startedBy: actor.id,
    startedAs: access.kind,
    ...(!own && provesWithSlip(access.patient) ? { slip: access.patient.slipPrints } : {}),
  };
  await issueCode({ phone }, JSON.stringify(pending), access.patient.locale, "takeover");
  await traceAccess(actor, access, "patient.takeover_start", { toOwnNumber: !!own }, client.ip);
  return { phone: maskPhone(phone), toOwnNumber: !!own, expiresInMinutes: 10 };
}

/** Whether whoever started a take-over may still act for the profile (not suspended, moved or declined). */
async function starterMayStill(pending: Partial<Pending>, patient: PatientRow): Promise<boolean> {
  const starter = pending.startedBy ? await findUserById(pending.startedBy) : undefined;
  if (!starter || starter.suspendedAt) return false;
  const access = await accessTo({ ...starter, sessionId: "" } as Actor, patient);
  return access?.kind === "manager" || access?.kind === "centre";
}

/**
 * Completes a take-over with the code sent to `phone`: the person's own patient account (phone
 * identity, like a phone signup) under the profile's id; with `keepAccess` false the family
 * managers' and the centre's access end in the same transaction.
 */
export async function completeTakeOver(raw: unknown, client: Client): Promise<UserRow> {
  const parsed = completeTakeOverSchema.safeParse(raw);
  if (!parsed.success)
    throw new DomainError("invalid", "family.takeOverFailed", { fieldErrors: zodFieldErrors(parsed.error) });
  const input: CompleteTakeOverInput = parsed.data;
  const phone = checkedPhone(input.phone);
  await limit("verifyCode", phone, client);
  const row = await latestCode({ phone }, "takeover");
  await checkCode(row, input.code);
  const pending = JSON.parse(row!.payload ?? "{}") as Partial<Pending>;
  const patient = pending.patientId ? await findPatient(pending.patientId) : undefined;
  if (!patient)
    throw new DomainError("invalid", "accounts.otpExpired", {
      fieldErrors: { code: ["accounts.otpExpired"] },
    });
  assertTakeable(patient);
  // A code whose starter was suspended, moved or declined since no longer completes.
  if (!(await starterMayStill(pending, patient)))
    throw new DomainError("invalid", "family.takeOverCancelled", {
      fieldErrors: { code: ["family.takeOverCancelled"] },
    });
  // A new slip printed since the start ends the code its old slip's code started (decision 0073).
  if (pending.slip !== undefined && patient.slipPrints !== pending.slip)
    throw new DomainError("invalid", "family.takeOverCancelled", {
      fieldErrors: { code: ["family.takeOverCancelled"] },
    });
  // Where the profile has the person's own number, only a code sent there completes.
  const own = ownNumber(patient);
  if (own && own !== phone) throw new DomainError("invalid", "family.takeOverCancelled");
  if (await findUserByPhone(phone)) throw numberTaken();
  assertPasswordNotCommon(input.password, "password");
  const passwordHash = await hashPassword(input.password);
  const now = new Date();
  const contactNumber = phoneDigits(phone);
  const token = newToken(18);
  const previous: TakeOverPrevious = {
    phone: patient.phone,
    phoneOwner: patient.phoneOwner,
    phoneRelationship: patient.phoneRelationship,
    managers: [],
    centre: false,
  };
  try {
    await transaction(function* (tx) {
      // The profile's id becomes the login's: the person's reports, links and patientId stay theirs.
      yield* createProfileLogin(
        tx,
        {
          id: patient.id,
          phone,
          passwordHash,
          firstName: patient.firstName,
          lastName: patient.lastName,
          contactNumber,
          locale: patient.locale,
        },
        now,
      );
      const took = yield* rows(
        tx
          .update(patients)
          .set({
            accountId: patient.id,
            takenOverAt: now,
            phone,
            phoneOwner: "self",
            phoneRelationship: "",
            // The slip's code did its one job (decision 0073).
            slipCodeHash: null,
            updatedAt: now,
          })
          .where(and(eq(patients.id, patient.id), isNull(patients.accountId)))
          .returning({ id: patients.id }),
      );
      // Someone completed the same take-over a moment earlier: undo this one.
      if (took.length !== 1) throw new DomainError("conflict", "family.alreadyOwnAccount");
      if (!input.keepAccess) {
        const ended = yield* rows(
          tx
            .update(patientManagers)
            .set({ revokedAt: now })
            .where(and(eq(patientManagers.patientId, patient.id), isNull(patientManagers.revokedAt)))
            .returning({ managerId: patientManagers.managerId }),
        );
        // The links those managers made for her end with their access.
        for (const m of ended) yield* revokeLinksMadeBy(tx, patient.id, m.managerId);
        previous.managers = ended.map((m) => m.managerId);
        const centre = yield* rows(
          tx
            .update(patients)
            .set({ centreAccessRevokedAt: now })
            .where(
              and(
                eq(patients.id, patient.id),
                isNotNull(patients.centreId),
                isNull(patients.centreAccessRevokedAt),
              ),
            )
            .returning({ id: patients.id }),
        );
        previous.centre = centre.length === 1;
      }
      yield* exec(
        tx.insert(takeOvers).values({
          id: newId(),
          patientId: patient.id,
          startedBy: pending.startedBy ?? null,
          startedAs: pending.startedAs ?? "manager",
          phone,
          previous: JSON.stringify(previous),
          keepAccess: input.keepAccess,
          reportTokenHash: sha256(token),
          createdAt: now,
        }),
      );
      yield* exec(
        auditInsert(
          tx,
          { id: patient.id },
          "patient.takeover",
          "patient",
          patient.id,
          { keepAccess: input.keepAccess, startedBy: pending.startedBy ?? null },
          client.ip,
        ),
      );
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw numberTaken();
    throw err;
  }
  await announceTakeOver(patient, previous, phone, token);
  return (await findUserById(patient.id))!;
}

/**
 * The take-over screen's profile: whom the manager or health worker is about to hand their profile
 * to, and why it cannot be done when it cannot (a minor, a profile that has its own login).
 */
export async function takeOverTarget(actor: Actor, patientId: string) {
  const access = await requirePatientAccess(actor, patientId, "family.notYours");
  if (access.kind !== "manager" && access.kind !== "centre")
    throw new DomainError("forbidden", "family.takeOverNotYours");
  const p = access.patient;
  let blocked: string | null = null;
  try {
    assertTakeable(p);
  } catch (err) {
    blocked = (err as DomainError).message;
  }
  const own = ownNumber(p);
  return {
    id: p.id,
    name: `${p.firstName} ${p.lastName}`.trim(),
    by: access.kind,
    blocked,
    // Where the code will go when the profile has the person's own number; else proof is asked:
    // the slip's take-over code for a centre's patient (decision 0073), else the slip ID and year.
    ownPhone: own ? maskPhone(own) : null,
    proof: own ? null : provesWithSlip(p) ? ("slip" as const) : ("birth" as const),
  };
}
