import { and, asc, eq, inArray, isNull, or, sql } from "drizzle-orm";
import { config } from "~/config.server";
import { db, first } from "~/db/client.server";
import { patientManagers, patients, provenNumbers, users, type PatientRow } from "~/db/schema";
import { newId } from "~/lib/ids.server";
import { log } from "~/lib/log.server";
import { callableNumber, maskPhone, smsNumber } from "~/lib/phone.server";
import { phoneCandidate } from "~/lib/phone-shape";
import { numberProofSchema } from "~/schemas/calls";
import { checkCode, issueCode, latestCode, limitSmsCode, type Actor } from "../accounts/index.server";
import type { Client } from "../platform/client";
import { DomainError, zodFieldErrors } from "../platform/errors";
import { audit, limit, proofTries } from "../platform/index.server";
import { patientAccess, traceAccess, type PatientAccess } from "./patients.server";

/**
 * A number is called only once proven to be hers (decision 0102). The number a call about a profile
 * would go to (`callCandidateOf`, the rule of decision 0093) is proven when it is the mobile number an
 * account proved with an SMS code — her own account's, or for a member without a login of their
 * own, the managing family account's (a phone signup, a code login, a take-over) — or when a row of
 * `proven_numbers` says so: a 6-digit code sent to it by SMS and typed back (`sendNumberProof`,
 * `checkNumberProof`), or a missed call from it to the clinic's number (`proveByMissedCall`). A
 * contact number typed at sign-up, a profile's number typed by a family manager or a centre, is not
 * proven until then. Each proof is a line in her access trail.
 */

export type CallCandidate = {
  /** E.164. */
  number: string;
  proven: boolean;
};

type Owner = Pick<PatientRow, "id" | "phone" | "accountId">;

/** Who may see or prove a profile's number: the person, her family manager, her centre's health worker. */
export async function accessFor(actor: Actor, patientId: string | null): Promise<PatientAccess> {
  const id = patientId ?? (actor.accountType === "Patient" ? actor.id : "");
  const access = id ? await patientAccess(actor, id) : null;
  if (!access || access.kind === "admin") throw new DomainError("not_found", "reports.patientNotFound");
  return access;
}

/**
 * The number a call about this profile would go to (decisions 0080, 0093) and whether it is proven
 * (0102): the profile's own (hers, the family's, or the one her centre registered); else her
 * account's — its mobile number, or the contact number she gave (Settings, Profile) when it is one
 * we may call; a member without a login of their own: the same of the family account that
 * manages them (the first).
 */
export async function callCandidateOf(patient: Owner): Promise<CallCandidate | null> {
  const columns = { phone: users.phone, countryCode: users.countryCode, contactNumber: users.contactNumber };
  const account = patient.accountId
    ? await first(db().select(columns).from(users).where(eq(users.id, patient.accountId)))
    : await first(
        db()
          .select(columns)
          .from(patientManagers)
          .innerJoin(users, eq(users.id, patientManagers.managerId))
          .where(and(eq(patientManagers.patientId, patient.id), isNull(patientManagers.revokedAt)))
          .orderBy(asc(patientManagers.createdAt)),
      );
  let number: string | null = patient.phone;
  if (!number && account) {
    if (account.phone) number = account.phone;
    else {
      const given = phoneCandidate(account.contactNumber ?? "", account.countryCode || "+91");
      const callable = given ? callableNumber(given) : null;
      number = callable?.ok ? callable.e164 : null;
    }
  }
  if (!number) return null;
  // The account's own mobile number was proven with an SMS code when it became its identity.
  if (account?.phone && account.phone === number) return { number, proven: true };
  const row = await first(
    db()
      .select({ id: provenNumbers.id })
      .from(provenNumbers)
      .where(and(eq(provenNumbers.patientId, patient.id), eq(provenNumbers.number, number))),
  );
  return { number, proven: !!row };
}

/** Records that `number` is the profile's (once; a second proof of it changes nothing) and whether it was new. */
async function recordProof(
  patientId: string,
  number: string,
  how: "sms-code" | "missed-call",
): Promise<boolean> {
  const added = await db()
    .insert(provenNumbers)
    .values({ id: newId(), number, patientId, how, provenAt: new Date() })
    .onConflictDoNothing()
    .returning({ id: provenNumbers.id });
  return added.length === 1;
}

/** A call was chosen while the number is not proven to be hers (decision 0102). */
export const unproven = () =>
  new DomainError("invalid", "calls.numberUnproven", { fieldErrors: { noticeBy: ["calls.numberUnproven"] } });

/** The profile's number to prove, or why there is none to prove. */
async function numberToProve(access: PatientAccess): Promise<CallCandidate> {
  const candidate = await callCandidateOf(access.patient);
  if (!candidate)
    throw new DomainError("invalid", "calls.noPhone", { fieldErrors: { noticeBy: ["calls.noPhone"] } });
  return candidate;
}

/**
 * Sends a 6-digit code by SMS to the number a call about the profile would go to — never to a number
 * typed in this request — in her language, through the SMS queue, with the budgets of a signup code
 * (per address, per number, per country and block of numbers, the hour's ceiling). 10 minutes,
 * single use, 5 tries, and only this profile's. A number that cannot get an SMS (a fixed line) is
 * proven with a missed call instead.
 */
export async function sendNumberProof(
  actor: Actor,
  patientId: string | null,
  client: Client,
): Promise<{ phone: string; expiresInMinutes: number }> {
  const access = await accessFor(actor, patientId);
  const candidate = await numberToProve(access);
  if (candidate.proven)
    throw new DomainError("conflict", "calls.numberProven", {
      fieldErrors: { code: ["calls.numberProven"] },
    });
  const sms = smsNumber(candidate.number);
  if (!sms.ok)
    throw new DomainError("invalid", "calls.proofNoSms", {
      fieldErrors: { code: ["calls.proofNoSms"] },
      values: { clinic: config().voice.number ?? "" },
    });
  await limitSmsCode(sms.e164, client, "signup", true);
  await issueCode({ phone: sms.e164 }, access.patient.id, access.patient.locale, "prove");
  return { phone: maskPhone(sms.e164), expiresInMinutes: 10 };
}

/**
 * Checks the code typed back: the newest unused code this profile was sent to its number now (a
 * code for another profile, another number, used or expired does not prove it). At most 5 tries
 * a profile an hour (429 after), on top of each code's 5 and the per-address budget of codes.
 */
export async function checkNumberProof(
  actor: Actor,
  patientId: string | null,
  input: unknown,
  client: Client,
): Promise<{ number: string }> {
  const access = await accessFor(actor, patientId);
  const parsed = numberProofSchema.safeParse(input);
  if (!parsed.success)
    throw new DomainError("invalid", "calls.proofCodeShape", { fieldErrors: zodFieldErrors(parsed.error) });
  const candidate = await numberToProve(access);
  const patient = access.patient;
  await proofTries.take("numberProof", patient.id);
  await limit("verifyCode", candidate.number, client);
  const row = await latestCode({ phone: candidate.number }, "prove", patient.id);
  await checkCode(row, parsed.data.code);
  await proofTries.giveBack("numberProof", patient.id);
  if (await recordProof(patient.id, candidate.number, "sms-code")) {
    const detail = { how: "sms-code", number: maskPhone(candidate.number) };
    if (access.kind === "self")
      await audit(actor, "patient.number_proven", "patient", patient.id, detail, client.ip);
    else await traceAccess(actor, access, "patient.number_proven", detail, client.ip);
  }
  return { number: candidate.number };
}

/**
 * A missed call from `number` to the clinic proves it for the profiles whose number for calls it is
 * (decision 0102) — a family sharing one phone: each of them. Returns their ids.
 */
export async function proveByMissedCall(number: string): Promise<string[]> {
  // The profiles that may have it as their number for calls (then each checked with the one rule).
  const byManager = db()
    .select({ id: patientManagers.patientId })
    .from(patientManagers)
    .innerJoin(users, eq(users.id, patientManagers.managerId))
    .where(
      and(
        isNull(patientManagers.revokedAt),
        or(eq(users.phone, number), eq(sql`${users.countryCode} || ${users.contactNumber}`, number)),
      ),
    );
  const managed = (await byManager).map((r) => r.id);
  const rows = await db()
    .select({ id: patients.id, phone: patients.phone, accountId: patients.accountId })
    .from(patients)
    .leftJoin(users, eq(users.id, patients.accountId))
    .where(
      or(
        eq(patients.phone, number),
        eq(users.phone, number),
        eq(sql`${users.countryCode} || ${users.contactNumber}`, number),
        managed.length ? inArray(patients.id, managed) : undefined,
      ),
    );
  const proven: string[] = [];
  for (const p of rows) {
    const candidate = await callCandidateOf(p);
    if (candidate?.number !== number) continue;
    proven.push(p.id);
    if (!candidate.proven && (await recordProof(p.id, number, "missed-call")))
      await audit(null, "patient.number_proven", "patient", p.id, {
        how: "missed-call",
        number: maskPhone(number),
      });
  }
  if (proven.length)
    log("info", "a number proven by a missed call", { from: maskPhone(number), profiles: proven.length });
  return proven;
}
