import { eq } from "drizzle-orm";
import { db, first } from "~/db/client.server";
import { centres, verificationCodes } from "~/db/schema";
import type { SignupForm } from "~/schemas/auth";
import { isHealthWorkerRole } from "~/schemas/centres";
import type { Client } from "../platform/client";
import { DomainError } from "../platform/errors";
import { limit } from "../platform/index.server";
import { maskPhone } from "~/lib/phone.server";
import { insertUser, normalizeEmail } from "./users.server";
import {
  checkCode,
  issueCode,
  latestCode,
  limitSmsCode,
  loc,
  ownerOf,
  PENDING_TTL_MS,
  phoneDigits,
  smsPhone,
  type CodeTarget,
} from "./codes.server";
import { assertPasswordNotCommon, hashPassword } from "./passwords.server";

/**
 * Signup with a code: on the screens (the signup kept on the server until its code is entered) and
 * by the API (`send-otp`, then `signup` with the code), by e-mail or by SMS to a mobile number.
 */

/** What a screen signup keeps on the server until its code is entered (the password already hashed). */
type PendingSignup = Omit<
  SignupForm,
  | "password"
  | "confirmPassword"
  | "email"
  | "phone"
  | "contactNumber"
  | "signupWith"
  | "mobileCountryCode"
  | "mobileNumber"
> & {
  email: string;
  phone: string | null;
  contactNumber: string;
  passwordHash: string;
  locale: string;
};
/**
 * After a right signup code: the identity must still be free. A taken one is answered like a used
 * code, so not even a lucky guess learns more than "this code no longer works".
 */
async function assertFreeAfterCode(target: CodeTarget) {
  if (await ownerOf(target)) {
    throw new DomainError("invalid", "accounts.otpExpired", {
      fieldErrors: { code: ["accounts.otpExpired"], otp: ["accounts.otpExpired"] },
    });
  }
}
/** Budgets per e-mail (mail) or per number (SMS, which costs money: its own limits and hourly ceilings). */
async function limitCode(target: CodeTarget, client: Client) {
  if (target.phone) await limitSmsCode(target.phone, client, "signup", true);
  else await limit("mail", target.email!, client);
}

const targetOf = (v: { email?: string | null; phone?: string | null }): CodeTarget =>
  v.phone ? { phone: smsPhone(v.phone) } : { email: v.email ?? "" };
/**
 * A health worker signs up for a centre that exists (a field error on `centreId` otherwise, before
 * any code is sent).
 */
async function assertCentreExists(v: { accountType: string; centreId?: string }) {
  if (v.accountType !== "HealthWorker") return;
  const found = v.centreId
    ? await first(db().select({ id: centres.id }).from(centres).where(eq(centres.id, v.centreId)))
    : undefined;
  if (!found)
    throw new DomainError("invalid", "centres.centreUnknown", {
      fieldErrors: { centreId: ["centres.centreUnknown"] },
    });
}

/** A health worker's place, role and ID, kept with the account. */
function healthWorkerOf(v: Pick<PendingSignup, "accountType" | "centreId" | "workerRole" | "workerId">) {
  return v.accountType === "HealthWorker" && v.centreId && isHealthWorkerRole(v.workerRole)
    ? { centreId: v.centreId, role: v.workerRole, workerId: v.workerId ?? "" }
    : undefined;
}

/** Screen signup, step 1: keeps the signup (password hashed) on the server and mails a code. */
export async function startSignup(input: SignupForm, client: Client, locale: string) {
  assertPasswordNotCommon(input.password, "password");
  await assertCentreExists(input);
  const target = targetOf(input);
  await limitCode(target, client);
  // A taken e-mail or number gets the same answer; its owner hears instead of a code.
  const owner = await ownerOf(target);
  const pending: PendingSignup = {
    accountType: input.accountType,
    firstName: input.firstName,
    lastName: input.lastName,
    email: input.email ?? "",
    phone: input.phone ?? null,
    countryCode: input.countryCode,
    contactNumber: input.contactNumber ?? phoneDigits(input.phone),
    specialties: input.specialties,
    registrationNumber: input.registrationNumber,
    registrationCouncil: input.registrationCouncil,
    yearsOfPractice: input.yearsOfPractice,
    centreId: input.centreId,
    workerRole: input.workerRole,
    workerId: input.workerId,
    passwordHash: await hashPassword(input.password),
    locale,
  };
  const pendingId = await issueCode(
    target,
    JSON.stringify(pending),
    owner ? loc(owner.locale) : locale,
    "signup",
    !!owner,
  );
  return { pendingId };
}

async function pendingRow(pendingId: string | null | undefined) {
  if (!pendingId || !/^[a-f0-9]{24}$/.test(pendingId)) return undefined;
  const row = await first(db().select().from(verificationCodes).where(eq(verificationCodes.id, pendingId)));
  if (!row?.payload || row.consumedAt || row.createdAt.getTime() + PENDING_TTL_MS < Date.now())
    return undefined;
  return row;
}

/** Where the code of a pending screen signup went (e-mail, or a masked mobile number), or null. */
export async function getPendingSignup(pendingId: string | null | undefined) {
  const row = await pendingRow(pendingId);
  return row ? { email: row.email, phone: row.phone ? maskPhone(row.phone) : null } : null;
}

export async function resendSignupCode(pendingId: string, client: Client) {
  const row = await pendingRow(pendingId);
  if (!row) throw new DomainError("invalid", "accounts.signupExpired");
  const target = targetOf(row);
  await limitCode(target, client);
  const owner = await ownerOf(target);
  const pending = JSON.parse(row.payload!) as PendingSignup;
  const locale = owner ? loc(owner.locale) : pending.locale;
  return { pendingId: await issueCode(target, row.payload, locale, "signup", !!owner) };
}

async function createAccount(pending: PendingSignup) {
  return insertUser({
    email: pending.email,
    phone: pending.phone ?? null,
    passwordHash: pending.passwordHash,
    firstName: pending.firstName,
    lastName: pending.lastName,
    accountType: pending.accountType,
    countryCode: pending.countryCode,
    contactNumber: pending.contactNumber,
    locale: pending.locale,
    // An expert's verification details, when given.
    expert:
      pending.accountType === "Expert"
        ? {
            specialties: pending.specialties,
            registrationNumber: pending.registrationNumber,
            registrationCouncil: pending.registrationCouncil,
            yearsOfPractice: pending.yearsOfPractice,
          }
        : undefined,
    // A health worker's centre, role and ID (the account waits for an admin's approval).
    healthWorker: healthWorkerOf(pending),
  });
}

/** Screen signup, step 2: a right code creates the account (experts start unapproved). */
export async function completeSignup(pendingId: string, code: string, client: Client) {
  const row = await pendingRow(pendingId);
  if (!row) throw new DomainError("invalid", "accounts.signupExpired");
  await limit("verifyCode", row.phone ?? row.email, client);
  await checkCode(row, code);
  await assertFreeAfterCode(row.phone ? { phone: row.phone } : { email: row.email });
  return createAccount(JSON.parse(row.payload!) as PendingSignup);
}

/** API: POST /auth/send-otp — a signup code by mail, or by SMS to `phone`. */
export async function sendSignupOtp(
  to: { email?: string | null; phone?: string | null },
  client: Client,
  locale: string,
) {
  const target = to.phone ? { phone: smsPhone(to.phone) } : { email: normalizeEmail(to.email ?? "") };
  await limitCode(target, client);
  // The same answer (and about the same time) for a taken e-mail or number; its owner
  // gets "you already have an account" in their language instead of a code.
  const owner = await ownerOf(target);
  await issueCode(target, null, owner ? loc(owner.locale) : locale, "signup", !!owner);
}

/** API: POST /auth/signup with the code from send-otp (to the e-mail, or to `phone` for a phone-only patient). */
export async function signupWithOtp(
  input: Omit<SignupForm, "countryCode" | "signupWith" | "phone" | "email" | "contactNumber"> & {
    countryCode?: string;
    otp: string;
    phone?: string | null;
    email?: string;
    contactNumber?: string;
  },
  client: Client,
  locale: string,
) {
  assertPasswordNotCommon(input.password, "password");
  await assertCentreExists(input);
  const target = targetOf(input);
  await limit("verifyCode", target.phone ?? target.email, client);
  // The code first: for a taken identity a guess is answered like any wrong code.
  await checkCode(await latestCode(target, "signup"), input.otp);
  await assertFreeAfterCode(target);
  return createAccount({
    accountType: input.accountType,
    firstName: input.firstName,
    lastName: input.lastName,
    email: target.email ?? "",
    phone: target.phone ?? null,
    countryCode: (input.countryCode ?? "+91") as SignupForm["countryCode"],
    contactNumber: input.contactNumber ?? phoneDigits(target.phone),
    specialties: input.specialties,
    registrationNumber: input.registrationNumber,
    registrationCouncil: input.registrationCouncil,
    yearsOfPractice: input.yearsOfPractice,
    centreId: input.centreId,
    workerRole: input.workerRole,
    workerId: input.workerId,
    passwordHash: await hashPassword(input.password),
    locale,
  });
}
