import { and, eq, isNotNull, isNull } from "drizzle-orm";
import { exec, isUniqueViolation, rows, transaction } from "~/db/client.server";
import { patientManagers, patients, profiles, users, type UserRow } from "~/db/schema";
import { completeTakeOverSchema, startTakeOverSchema, type CompleteTakeOverInput } from "~/schemas/family";
import { maskPhone } from "~/utils/phone.server";
import {
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
import { limit } from "../platform/index.server";
import { isMinor } from "./family.server";
import { findPatient, requirePatientAccess, traceAccess } from "./patients.server";
import { revokeLinksMadeBy } from "./access.server";

/**
 * Taking a profile over (decision 0030): an adult family member — or a centre's patient — gets a
 * login of their own for the profile someone else has managed. The manager or the centre's health
 * worker starts it with the person's own mobile number; the SMS code goes to THAT number, so only
 * the person holding the phone completes it (on any phone, signed out, without JavaScript).
 * Completing it makes a patient account whose id IS the profile's id — every report, opinion and
 * link stays the person's, and the API's patientId is theirs — and the person decides whether the
 * manager (or centre) keeps access. The code is a verification code like a signup's (purpose
 * "takeover": 10 minutes, single use, 5 tries); the SMS budgets are the signup codes'.
 */

type Pending = { patientId: string; startedBy: string };

const numberTaken = () =>
  new DomainError("conflict", "family.numberTaken", { fieldErrors: { phone: ["family.numberTaken"] } });

/** Why this profile cannot be taken over, if it cannot. */
function assertTakeable(p: { accountId: string | null; birthYear: number | null }) {
  if (p.accountId) throw new DomainError("conflict", "family.alreadyOwnAccount");
  if (isMinor(p)) throw new DomainError("invalid", "family.minorCannotTakeOver");
}

/**
 * Starts a take-over: the family manager or a health worker of the profile's centre names the
 * person's own mobile number, which gets a code. A number that already has an account is refused
 * (the person logs in with it instead; an admin can help join the two).
 */
export async function startTakeOver(
  actor: Actor,
  patientId: string,
  raw: unknown,
  client: Client,
): Promise<{ phone: string; expiresInMinutes: number }> {
  const access = await requirePatientAccess(actor, patientId, "family.notYours");
  if (access.kind !== "manager" && access.kind !== "centre")
    throw new DomainError("forbidden", "family.takeOverNotYours");
  const parsed = startTakeOverSchema.safeParse(raw);
  if (!parsed.success)
    throw new DomainError("invalid", "family.takeOverFailed", { fieldErrors: zodFieldErrors(parsed.error) });
  assertTakeable(access.patient);
  const phone = smsPhone(parsed.data.phone);
  // The budgets first: "this number has an account" must not be asked for number after number.
  await limitSmsCode(phone, client, "signup", true);
  if (await findUserByPhone(phone)) throw numberTaken();
  const pending: Pending = { patientId: access.patient.id, startedBy: actor.id };
  await issueCode({ phone }, JSON.stringify(pending), access.patient.locale, "takeover");
  await traceAccess(actor, access, "patient.takeover_start", {}, client.ip);
  return { phone: maskPhone(phone), expiresInMinutes: 10 };
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
  if (await findUserByPhone(phone)) throw numberTaken();
  assertPasswordNotCommon(input.password, "password");
  const passwordHash = await hashPassword(input.password);
  const now = new Date();
  const contactNumber = phoneDigits(phone);
  try {
    await transaction(function* (tx) {
      yield* exec(
        tx.insert(users).values({
          // The profile's id: the person's reports, links and the API's patientId stay theirs.
          id: patient.id,
          email: "",
          phone,
          passwordHash,
          firstName: patient.firstName,
          lastName: patient.lastName,
          accountType: "Patient",
          countryCode: "+91",
          contactNumber,
          approved: true,
          locale: patient.locale,
          createdAt: now,
          updatedAt: now,
        }),
      );
      yield* exec(tx.insert(profiles).values({ userId: patient.id, contactNumber, updatedAt: now }));
      const took = yield* rows(
        tx
          .update(patients)
          .set({
            accountId: patient.id,
            takenOverAt: now,
            phone,
            phoneOwner: "self",
            phoneRelationship: "",
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
        yield* exec(
          tx
            .update(patients)
            .set({ centreAccessRevokedAt: now })
            .where(
              and(
                eq(patients.id, patient.id),
                isNotNull(patients.centreId),
                isNull(patients.centreAccessRevokedAt),
              ),
            ),
        );
      }
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
  return { id: p.id, name: `${p.firstName} ${p.lastName}`.trim(), by: access.kind, blocked };
}
