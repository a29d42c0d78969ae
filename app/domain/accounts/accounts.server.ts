import { createHmac, randomInt, timingSafeEqual } from "node:crypto";
import { and, desc, eq, inArray, isNotNull, isNull, lt, ne, or, sql } from "drizzle-orm";
import { config } from "~/config.server";
import { db, exec, first, rows, transaction, type DB, type TxSteps } from "~/db/client.server";
import {
  centres,
  passwordResetTokens,
  imagingInstances,
  imagingPreviews,
  patientConsents,
  patientManagers,
  patients,
  profiles,
  reports,
  uploadSessions,
  users,
  verificationCodes,
  voiceNotes,
  type UserRow,
} from "~/db/schema";
import { getT } from "~/i18n/i18n.server";
import { isLocale, type Locale } from "~/i18n/config";
import type { ProfileInput, SignupForm } from "~/schemas/auth";
import { isHealthWorkerRole } from "~/schemas/centres";
export { DISPLAY_PICTURE_MAX_BYTES } from "~/schemas/auth";
import { site } from "~/site";
import { newId, newToken, sha256 } from "~/utils/ids.server";
import type { Client } from "../platform/client";
import { DomainError } from "../platform/errors";
import { forgetPersonCounts } from "../platform/list-counts.server";
import { deleteStored, type StoredFile } from "../records/files.server";
import { sendMailInBackground, simpleHtml } from "../messaging/mail.server";
import { dummyHash, hashPassword, isCommonPassword, needsRehash, verifyPassword } from "./passwords.server";
import { beginLogin, limit, limitSms, takeMailPoint, type SmsCeiling } from "../platform/ratelimit.server";
import {
  createSession,
  isKnownDeviceOf,
  revokeAllSessions,
  revokeSession,
  type Actor,
} from "./sessions.server";
import { maskPhone, smsNumber, validE164 } from "~/utils/phone.server";
import { phoneCandidate } from "~/utils/phone-shape";
import {
  sendAccountExistsNotice,
  sendCode,
  sendFailedLoginsNotice,
  smsNumberOf,
  type CodePurpose,
} from "../messaging/notify.server";
import type { NotifyChannel } from "~/db/types";
import { findUserByEmail, findUserById, findUserByPhone, insertUser, normalizeEmail } from "./users.server";
import { confirmOwnPassword, type ChallengeMode, type Proof } from "./two-factor.server";
import { openChallenge, passChallenge, pruneTwoFactorTables, secondStepFor } from "./two-factor-login.server";

/** The national digits of an E.164 number (the contact number kept on a phone-only account). */
export function phoneDigits(e164: string | null | undefined): string {
  return e164
    ? e164
        .replace(/^\+91/, "")
        .replace(/^\+\d{1,3}/, "")
        .slice(-12)
    : "";
}

const CODE_TTL_MS = 10 * 60 * 1000;
const CODE_MAX_ATTEMPTS = 5;
/** How long a pending signup can still be resent or verified after its last code was issued. */
const PENDING_TTL_MS = 24 * 60 * 60 * 1000;
const RESET_TTL_MS = 15 * 60 * 1000;

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

function codeHash(rowId: string, code: string) {
  return createHmac("sha256", config().sessionSecret).update(`${rowId}:${code}`).digest("hex");
}

function sameHash(a: string, b: string) {
  const x = Buffer.from(a, "hex");
  const y = Buffer.from(b, "hex");
  return x.length === y.length && timingSafeEqual(x, y);
}

const loc = (l: string | undefined): Locale => (isLocale(l) ? l : "en");

/** Where a code goes: an e-mail address, or a mobile number (E.164) by SMS. */
export type CodeTarget = { email: string; phone?: undefined } | { phone: string; email?: undefined };

const codeOwner = (target: CodeTarget) =>
  target.phone ? eq(verificationCodes.phone, target.phone) : eq(verificationCodes.email, target.email!);

/**
 * Issues a fresh 6-digit code for an e-mail or a mobile number and purpose (older unused codes
 * for it stop working) and sends it by mail or SMS. With `accountExists` (a signup for an
 * identity that has an account) the code is stored all the same — a guess at it is
 * answered like any wrong code — but never sent: the owner gets "you already have an account".
 */
export async function issueCode(
  target: CodeTarget,
  payload: string | null,
  locale: string,
  purpose: CodePurpose = "signup",
  accountExists = false,
) {
  const id = newId();
  const code = String(randomInt(0, 1_000_000)).padStart(6, "0");
  const now = Date.now();
  await transaction(function* (tx) {
    yield* exec(
      tx
        .update(verificationCodes)
        .set({ consumedAt: new Date(now) })
        .where(
          and(
            codeOwner(target),
            eq(verificationCodes.purpose, purpose),
            isNull(verificationCodes.consumedAt),
          ),
        ),
    );
    yield* exec(
      tx.insert(verificationCodes).values({
        id,
        email: target.email ?? "",
        phone: target.phone ?? null,
        purpose,
        codeHash: codeHash(id, code),
        payload,
        expiresAt: new Date(now + CODE_TTL_MS),
        createdAt: new Date(now),
      }),
    );
  });
  try {
    if (accountExists) await sendAccountExistsNotice(target, locale);
    else await sendCode(target, code, locale, purpose);
  } catch {
    await db().delete(verificationCodes).where(eq(verificationCodes.id, id));
    throw new DomainError("invalid", "accounts.sendCodeFailed");
  }
  return id;
}

/** The newest unused code of a purpose for an e-mail or a number. */
export async function latestCode(target: CodeTarget, purpose: CodePurpose) {
  return first(
    db()
      .select()
      .from(verificationCodes)
      .where(
        and(codeOwner(target), eq(verificationCodes.purpose, purpose), isNull(verificationCodes.consumedAt)),
      )
      .orderBy(desc(verificationCodes.createdAt)),
  );
}

/**
 * Checks a code against its row: single use, 10 minutes, at most 5 tries. Each guess first takes
 * a try with ONE conditional update (`attempts = attempts + 1 … WHERE attempts < 5 RETURNING`), so
 * however many guesses arrive at once, on one node or several, at most 5 are ever compared.
 */
export async function checkCode(row: typeof verificationCodes.$inferSelect | undefined, code: string) {
  const tooMany = () =>
    new DomainError("invalid", "accounts.otpTooManyTries", {
      fieldErrors: { code: ["accounts.otpTooManyTries"], otp: ["accounts.otpTooManyTries"] },
    });
  if (!row || row.consumedAt)
    throw new DomainError("invalid", "accounts.otpExpired", {
      fieldErrors: { code: ["accounts.otpExpired"], otp: ["accounts.otpExpired"] },
    });
  if (row.attempts >= CODE_MAX_ATTEMPTS) throw tooMany();
  if (row.expiresAt.getTime() < Date.now())
    throw new DomainError("invalid", "accounts.otpExpired", {
      fieldErrors: { code: ["accounts.otpExpired"], otp: ["accounts.otpExpired"] },
    });
  const took = await db()
    .update(verificationCodes)
    .set({ attempts: sql`${verificationCodes.attempts} + 1` })
    .where(
      and(
        eq(verificationCodes.id, row.id),
        isNull(verificationCodes.consumedAt),
        lt(verificationCodes.attempts, CODE_MAX_ATTEMPTS),
      ),
    )
    .returning({ attempts: verificationCodes.attempts });
  if (took.length !== 1) throw tooMany();
  if (!sameHash(row.codeHash, codeHash(row.id, code))) {
    const left = CODE_MAX_ATTEMPTS - took[0].attempts;
    const key = left > 0 ? "accounts.otpWrong" : "accounts.otpTooManyTries";
    throw new DomainError("invalid", key, { fieldErrors: { code: [key], otp: [key] }, values: { left } });
  }
  // Consume atomically: a second use of the same code finds it consumed.
  const consumed = await db()
    .update(verificationCodes)
    .set({ consumedAt: new Date() })
    .where(and(eq(verificationCodes.id, row.id), isNull(verificationCodes.consumedAt)))
    .returning({ id: verificationCodes.id });
  if (consumed.length !== 1) throw new DomainError("invalid", "accounts.otpExpired");
}

/**
 * The server's check of a number the schema only shaped (libphonenumber-js metadata stays off
 * the browser): a real number for its country, as E.164, or a 400 on the field that held it.
 */
export function checkedPhone(candidate: string): string {
  const e164 = validE164(candidate);
  if (!e164) {
    const msg = ["accounts.mobileInvalid"];
    throw new DomainError("invalid", "accounts.mobileInvalid", {
      fieldErrors: { phone: msg, mobileNumber: msg, email: msg },
    });
  }
  return e164;
}

/**
 * A number that may get SMS codes (decision 0021): valid, of a country in SMS_COUNTRIES and a mobile
 * range (never premium rate, toll free or a fixed line), as E.164 — or a 400 on the field that held it.
 */
export function smsPhone(candidate: string): string {
  const r = smsNumber(candidate);
  if (r.ok) return r.e164;
  const key =
    r.reason === "country"
      ? "accounts.mobileCountryNotServed"
      : r.reason === "notMobile"
        ? "accounts.mobileNotMobile"
        : "accounts.mobileInvalid";
  throw new DomainError("invalid", key, { fieldErrors: { phone: [key], mobileNumber: [key], email: [key] } });
}

/** The account that has this e-mail or number as its identity, if any. */
const ownerOf = (target: CodeTarget) =>
  target.phone ? findUserByPhone(target.phone) : findUserByEmail(target.email!);

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

/**
 * The budgets of an SMS code (decision 0021): per address and per number+address on every request,
 * then the number's, the country's and the purpose's (see limitSms) — the ceiling only when a
 * message is really `queued`. `owner` (login and reset codes): the account the number belongs to;
 * `device`: the "known device" mark the request carried (sessions.server knownDeviceMark). Only
 * a device the owner logged in on draws on the number's small reserve — something the owner
 * holds, not an address (addresses change, sessions end at logout and reset).
 */
export async function limitSmsCode(
  phone: string,
  client: Client,
  ceiling: SmsCeiling,
  queued: boolean,
  owner?: UserRow,
  device?: string | null,
) {
  await limit("sms", phone, client);
  const country = smsNumber(phone);
  await limitSms(phone, country.ok ? country.country : "", ceiling, {
    queued,
    fromOwner: owner ? async () => isKnownDeviceOf(owner.id, device) : undefined,
  });
}

/** Budgets per e-mail (mail) or per number (SMS, which costs money: its own limits and hourly ceilings). */
async function limitCode(target: CodeTarget, client: Client) {
  if (target.phone) await limitSmsCode(target.phone, client, "signup", true);
  else await limit("mail", target.email!, client);
}

const targetOf = (v: { email?: string | null; phone?: string | null }): CodeTarget =>
  v.phone ? { phone: smsPhone(v.phone) } : { email: v.email ?? "" };

/** Refuses a password from the common-password list (decision 0009), as a field error of `field`. */
export function assertPasswordNotCommon(password: string, field: string) {
  if (isCommonPassword(password)) {
    throw new DomainError("invalid", "accounts.passwordCommon", {
      fieldErrors: { [field]: ["accounts.passwordCommon"] },
    });
  }
}

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

/** Tells the owner, once a day, that their account sees many wrong passwords (within the hourly mail ceiling). */
async function mailFailedLogins(user: UserRow) {
  if (!(await takeMailPoint())) return;
  await sendFailedLoginsNotice(user);
}

/**
 * What a right password (or SMS code) leads to: a session, or — for an account with two-step
 * login, or an admin who must set it up (decision 0017) — a challenge for the second step, and no session yet.
 */
export type LoginResult =
  | { user: UserRow; token: string; sessionId: string; mfa?: undefined }
  | { user: UserRow; mfa: { token: string; mode: ChallengeMode; expiresAt: Date }; token?: undefined };

async function sessionOrChallenge(user: UserRow, client: Client, kind: "web" | "api"): Promise<LoginResult> {
  const mode = await secondStepFor(user);
  if (mode) return { user, mfa: { ...(await openChallenge(user.id, kind, mode)), mode } };
  const session = await createSession(user.id, kind, { userAgent: client.userAgent, ip: client.ip });
  return { user, token: session.token, sessionId: session.id };
}

/**
 * Checks credentials and opens a session (a web cookie session or an API token): an e-mail or a
 * mobile number with the password, or a mobile number with an SMS login code. With
 * two-step login the answer is a challenge instead (see LoginResult).
 */
export async function login(
  input: { email?: string | null; phone?: string | null; password?: string | null; otp?: string | null },
  client: Client,
  kind: "web" | "api",
): Promise<LoginResult> {
  if (input.phone && input.otp) return loginWithCode(input.phone, input.otp, client, kind);
  // The full metadata (decision 0021) may call a number stored under the older check invalid: its
  // owner still logs in with the password, so the number as shaped is looked up then.
  const phone = input.phone ? (validE164(input.phone) ?? input.phone) : null;
  const account = phone ?? normalizeEmail(input.email ?? "");
  const attempt = await beginLogin(account, client);
  const user = phone ? await findUserByPhone(phone) : await findUserByEmail(account);
  const ok = await verifyPassword(input.password ?? "", user?.passwordHash ?? (await dummyHash()));
  if (!user || !ok) {
    const { notifyOwner } = await attempt.failed();
    if (notifyOwner && user) await mailFailedLogins(user);
    throw new DomainError("not_authenticated", "accounts.invalidCredentials");
  }
  await attempt.succeeded();
  if (user.suspendedAt) throw new DomainError("forbidden", "accounts.suspended");
  if (needsRehash(user.passwordHash)) {
    // An older hash (bcrypt, or weaker Argon2 parameters) is replaced while we hold the password.
    const passwordHash = await hashPassword(input.password ?? "");
    await db()
      .update(users)
      .set({ passwordHash })
      .where(and(eq(users.id, user.id), eq(users.passwordHash, user.passwordHash)));
  }
  return sessionOrChallenge(user, client, kind);
}

/**
 * Sends a login code by SMS to an account's mobile number. The answer is the same whether or not
 * an account has that number, and no SMS is sent (or paid for) when none has.
 */
export async function requestLoginCode(
  number: string,
  client: Client,
  locale: string,
  device?: string | null,
) {
  const phone = smsPhone(number);
  const user = await findUserByPhone(phone);
  const live = user && !user.suspendedAt ? user : undefined;
  // The ceiling is spent only when a message is queued; the same checks either way.
  await limitSmsCode(phone, client, "account", !!live, live, device);
  if (!live) return;
  await issueCode({ phone }, null, live.locale || locale, "login");
}

/** Opens a session with a mobile number and its SMS login code (single use, 10 minutes, 5 tries). */
export async function loginWithCode(
  number: string,
  code: string,
  client: Client,
  kind: "web" | "api",
): Promise<LoginResult> {
  const phone = checkedPhone(number);
  await limit("verifyCode", phone, client);
  const user = await findUserByPhone(phone);
  const row = user ? await latestCode({ phone }, "login") : undefined;
  await checkCode(row, code);
  if (!user) throw new DomainError("not_authenticated", "accounts.invalidCredentials");
  if (user.suspendedAt) throw new DomainError("forbidden", "accounts.suspended");
  return sessionOrChallenge(user, client, kind);
}

/**
 * The second step of a login (decision 0017): a code from the authenticator or a recovery code — or,
 * for an admin setting it up, the first code of the new authenticator — opens the session.
 * `recoveryCodes` is set only when the step enabled two-step login (shown once).
 */
export async function loginSecondStep(
  challengeToken: string | null | undefined,
  proof: Proof,
  client: Client,
  kind: "web" | "api",
) {
  const { user, recoveryCodes } = await passChallenge(challengeToken, kind, proof, client);
  const session = await createSession(user.id, kind, { userAgent: client.userAgent, ip: client.ip });
  return { user, token: session.token, sessionId: session.id, recoveryCodes };
}

export async function logout(actor: Actor) {
  await revokeSession(actor.sessionId);
}

/**
 * Always answers the same, in the same time: the mail with the 15-minute single-use link (only
 * when the account exists) is sent in the background, so the answer never waits for SMTP.
 */
export async function requestPasswordReset(
  to: string | { email?: string | null; phone?: string | null },
  client: Client,
  locale = "en",
  device?: string | null,
) {
  const target = typeof to === "string" ? { email: to } : to;
  if (target.phone) {
    // Phone accounts: a 6-digit code by SMS, entered with the new password.
    const phone = smsPhone(target.phone);
    const user = await findUserByPhone(phone);
    const owner = user && !user.suspendedAt ? user : undefined;
    await limitSmsCode(phone, client, "account", !!owner, owner, device);
    if (!owner) return;
    await issueCode({ phone }, null, owner.locale || locale, "reset");
    return;
  }
  const email = normalizeEmail(target.email ?? "");
  await limit("mail", email, client);
  const user = await findUserByEmail(email);
  if (!user || user.suspendedAt) return;
  const token = newToken();
  await db()
    .insert(passwordResetTokens)
    .values({
      id: newId(),
      tokenHash: sha256(token),
      userId: user.id,
      expiresAt: new Date(Date.now() + RESET_TTL_MS),
    });
  const t = await getT(loc(user.locale));
  const link = `${config().appUrl}/update-password/${token}`;
  const vars = { product: site.productName, minutes: 15, link };
  sendMailInBackground({
    to: user.email,
    subject: t("authMail.resetSubject", vars),
    text: `${t("authMail.resetBody", vars)}\n\n${link}\n\n${t("authMail.ignore")}`,
    html: simpleHtml([t("authMail.resetBody", vars), link, t("authMail.ignore")], {
      href: link,
      label: t("authMail.resetButton"),
    }),
  });
}

async function liveResetToken(token: string) {
  if (!token || token.length > 200) return undefined;
  const row = await first(
    db()
      .select()
      .from(passwordResetTokens)
      .where(eq(passwordResetTokens.tokenHash, sha256(token))),
  );
  if (!row || row.usedAt || row.expiresAt.getTime() < Date.now()) return undefined;
  return row;
}

export async function isResetTokenLive(token: string) {
  return !!(await liveResetToken(token));
}

/** Sets a new password from a reset link; the link then stops working and every session ends. */
export async function resetPassword(token: string, password: string) {
  const row = await liveResetToken(token);
  if (!row) throw new DomainError("invalid", "accounts.resetTokenInvalid");
  assertPasswordNotCommon(password, "password");
  const passwordHash = await hashPassword(password);
  const used = await transaction(function* (tx) {
    // One conditional update decides: a link used twice at once sets the password once.
    const won = yield* rows(
      tx
        .update(passwordResetTokens)
        .set({ usedAt: new Date() })
        .where(and(eq(passwordResetTokens.id, row.id), isNull(passwordResetTokens.usedAt)))
        .returning({ id: passwordResetTokens.id }),
    );
    if (won.length !== 1) return false;
    yield* exec(
      tx
        .update(passwordResetTokens)
        .set({ usedAt: new Date() })
        .where(and(eq(passwordResetTokens.userId, row.userId), isNull(passwordResetTokens.usedAt))),
    );
    yield* exec(
      tx.update(users).set({ passwordHash, updatedAt: new Date() }).where(eq(users.id, row.userId)),
    );
    return true;
  });
  if (!used) throw new DomainError("invalid", "accounts.resetTokenInvalid");
  await revokeAllSessions(row.userId);
}

/** Sets a new password with a mobile number and the SMS reset code; every session and reset link ends. */
export async function resetPasswordWithCode(number: string, code: string, password: string, client: Client) {
  const phone = checkedPhone(number);
  await limit("verifyCode", phone, client);
  const user = await findUserByPhone(phone);
  await checkCode(user ? await latestCode({ phone }, "reset") : undefined, code);
  if (!user) throw new DomainError("invalid", "accounts.resetTokenInvalid");
  assertPasswordNotCommon(password, "password");
  const passwordHash = await hashPassword(password);
  await db().update(users).set({ passwordHash, updatedAt: new Date() }).where(eq(users.id, user.id));
  await revokeResetTokens(user.id);
  await revokeAllSessions(user.id);
}

/** Ends every reset link of the account that is not used yet. */
async function revokeResetTokens(userId: string) {
  await db()
    .update(passwordResetTokens)
    .set({ usedAt: new Date() })
    .where(and(eq(passwordResetTokens.userId, userId), isNull(passwordResetTokens.usedAt)));
}

/** Changes the password; every other session and API token of the account ends, and every reset link. */
export async function changePassword(
  actor: Actor,
  input: { oldPassword: string; newPassword: string },
  client: Client,
) {
  const user = await findUserById(actor.id);
  if (!user) throw new DomainError("not_authenticated", "api.notAuthenticated");
  assertPasswordNotCommon(input.newPassword, "newPassword");
  await confirmOwnPassword(user, input.oldPassword, client, "oldPassword", "accounts.currentPasswordWrong");
  const passwordHash = await hashPassword(input.newPassword);
  await db().update(users).set({ passwordHash, updatedAt: new Date() }).where(eq(users.id, user.id));
  await revokeResetTokens(user.id);
  await revokeAllSessions(user.id, actor.sessionId);
}

export async function getProfile(userId: string) {
  const user = await findUserById(userId);
  if (!user) throw new DomainError("not_found", "api.notFound");
  const profile = await first(db().select().from(profiles).where(eq(profiles.userId, userId)));
  return { user, profile };
}

/**
 * Experts and admins choose e-mail, SMS or both for their notifications (decision 0020). SMS go to
 * their contact number, which must then be a valid mobile number. Patients do not choose: mail
 * when they have an e-mail address, SMS when they signed up with their mobile number.
 */
export async function setNotifyChannel(actor: Actor, channel: NotifyChannel) {
  if (actor.accountType === "Patient") throw new DomainError("forbidden", "profile.notifyPatients");
  const user = await findUserById(actor.id);
  if (!user) throw new DomainError("not_found", "api.notFound");
  if (channel !== "email" && !smsNumberOf(user)) {
    throw new DomainError("invalid", "profile.notifyNoMobile", {
      fieldErrors: { notify: ["profile.notifyNoMobile"] },
    });
  }
  await db().update(users).set({ notify: channel, updatedAt: new Date() }).where(eq(users.id, actor.id));
  return getProfile(actor.id);
}

export async function updateProfile(actor: Actor, input: ProfileInput) {
  const now = new Date();
  await transaction(function* (tx) {
    yield* exec(
      tx
        .update(users)
        .set({
          firstName: input.firstName,
          lastName: input.lastName ?? "",
          contactNumber: input.contactNumber,
          updatedAt: now,
        })
        .where(eq(users.id, actor.id)),
    );
    // The name is the person's: their own patient profile carries it too (decision 0030).
    yield* exec(
      tx
        .update(patients)
        .set({ firstName: input.firstName, lastName: input.lastName ?? "", updatedAt: now })
        .where(eq(patients.accountId, actor.id)),
    );
    yield* exec(
      tx
        .insert(profiles)
        .values({
          userId: actor.id,
          about: input.about,
          gender: input.gender,
          dateOfBirth: input.dateOfBirth,
          contactNumber: input.contactNumber,
          updatedAt: now,
        })
        .onConflictDoUpdate({
          target: profiles.userId,
          set: {
            about: input.about,
            gender: input.gender,
            dateOfBirth: input.dateOfBirth,
            contactNumber: input.contactNumber,
            updatedAt: now,
          },
        }),
    );
  });
  return getProfile(actor.id);
}

/**
 * Makes an already stored (encrypted) image the account's display picture and removes the
 * previous one; with no file it is the field error "profile.pictureRequired". On failure the
 * new file is removed, so no file is left without an owner.
 */
export async function updateDisplayPicture(actor: Actor, file: StoredFile | null) {
  if (!file) {
    throw new DomainError("invalid", "profile.pictureRequired", {
      fieldErrors: { displayPicture: ["profile.pictureRequired"] },
    });
  }
  let previous: string | null;
  try {
    const user = await findUserById(actor.id);
    if (!user) throw new DomainError("not_authenticated", "api.notAuthenticated");
    previous = user.image;
    await db().update(users).set({ image: file.key, updatedAt: new Date() }).where(eq(users.id, actor.id));
  } catch (err) {
    await deleteStored(file.key).catch(() => {});
    throw err;
  }
  if (previous && previous !== file.key) await deleteStored(previous).catch(() => {});
  return getProfile(actor.id);
}

/**
 * Inside a transaction: deletes the user row (profile, sessions, tokens, reports, consents,
 * nominee, two-step factor and unfinished uploads go with it by foreign key) and the codes sent to
 * the person's e-mail or numbers (a pending code or a sign-up's payload names them), blanks an
 * expert's name and registration on the letters they signed, and gives
 * what the store must remove after the commit: the file keys (reports, display picture) and the
 * ids of unfinished resumable uploads, whose encrypted segments are named by them. Used by the
 * erasure (rights.server.ts), the one way an account is deleted.
 */
/** Family members only `managerId` can reach: no own login, no centre with access, no other manager. */
function* orphanedDependants(tx: DB, managerId: string): TxSteps<string[]> {
  const managed = yield* rows(
    tx
      .select({
        id: patients.id,
        accountId: patients.accountId,
        centreId: patients.centreId,
        revoked: patients.centreAccessRevokedAt,
      })
      .from(patientManagers)
      .innerJoin(patients, eq(patients.id, patientManagers.patientId))
      .where(and(eq(patientManagers.managerId, managerId), isNull(patientManagers.revokedAt))),
  );
  const out: string[] = [];
  for (const p of managed) {
    if (p.accountId || (p.centreId && !p.revoked)) continue;
    const others = yield* rows(
      tx
        .select({ id: patientManagers.managerId })
        .from(patientManagers)
        .where(
          and(
            eq(patientManagers.patientId, p.id),
            isNull(patientManagers.revokedAt),
            ne(patientManagers.managerId, managerId),
          ),
        )
        .limit(1),
    );
    if (!others.length) out.push(p.id);
  }
  return out;
}

export function* accountDeletionSteps(
  tx: DB,
  userId: string,
): TxSteps<{ fileKeys: string[]; uploadIds: string[] }> {
  // The profiles that go with the account (decision 0030): its own, and the family members it
  // manages who have no login of their own, no centre acting for them and no other manager — no
  // one else could ever reach them again.
  const profileIds = [userId, ...(yield* orphanedDependants(tx, userId))];
  const fileKeys = (yield* rows(
    tx.select({ key: reports.fileKey }).from(reports).where(inArray(reports.patientId, profileIds)),
  )).map((r) => r.key);
  // Voice notes on those reports (their rows go with the reports by cascade).
  for (const v of yield* rows(
    tx
      .select({ key: voiceNotes.fileKey })
      .from(voiceNotes)
      .innerJoin(reports, eq(reports.id, voiceNotes.reportId))
      .where(inArray(reports.patientId, profileIds)),
  ))
    fileKeys.push(v.key);
  for (const c of yield* rows(
    tx
      .select({ key: patientConsents.evidenceKey })
      .from(patientConsents)
      .where(and(inArray(patientConsents.patientId, profileIds), isNotNull(patientConsents.evidenceKey))),
  ))
    fileKeys.push(c.key!);
  // Medical images: each instance of a ZIP and each cached preview is an object of its own (a single
  // .dcm's instance is the report's file, named once).
  for (const i of yield* rows(
    tx
      .select({ key: imagingInstances.fileKey })
      .from(imagingInstances)
      .innerJoin(reports, eq(imagingInstances.reportId, reports.id))
      .where(inArray(reports.patientId, profileIds)),
  ))
    if (!fileKeys.includes(i.key)) fileKeys.push(i.key);
  for (const v of yield* rows(
    tx
      .select({ key: imagingPreviews.key })
      .from(imagingPreviews)
      .innerJoin(imagingInstances, eq(imagingPreviews.instanceId, imagingInstances.id))
      .innerJoin(reports, eq(imagingInstances.reportId, reports.id))
      .where(inArray(reports.patientId, profileIds)),
  ))
    fileKeys.push(v.key);
  if (profileIds.length > 1)
    yield* exec(tx.delete(patients).where(inArray(patients.id, profileIds.slice(1))));
  // A health worker's name as copied onto the consents they recorded goes with them.
  yield* exec(
    tx.update(patientConsents).set({ recordedByName: "" }).where(eq(patientConsents.recordedBy, userId)),
  );
  const [user] = yield* rows(
    tx
      .select({
        image: users.image,
        email: users.email,
        phone: users.phone,
        countryCode: users.countryCode,
        contactNumber: users.contactNumber,
      })
      .from(users)
      .where(eq(users.id, userId)),
  );
  if (!user) return { fileKeys: [], uploadIds: [] };
  if (user.image) fileKeys.push(user.image);
  const uploadIds = (yield* rows(
    tx.select({ id: uploadSessions.id }).from(uploadSessions).where(eq(uploadSessions.ownerId, userId)),
  )).map((u) => u.id);
  const numbers = personNumbers(user);
  const codeTargets = [
    ...(user.email ? [eq(verificationCodes.email, user.email)] : []),
    ...(numbers.length ? [inArray(verificationCodes.phone, numbers)] : []),
  ];
  if (codeTargets.length) yield* exec(tx.delete(verificationCodes).where(or(...codeTargets)));
  // An expert's name and registration as copied onto the letters they signed (decision 0023) go with
  // them: the letters stay the patients' records, and /verify then says the signer is no longer
  // registered (as for any deleted expert) — it never names someone whose data was erased.
  yield* exec(
    tx
      .update(reports)
      .set({
        signerFirstName: null,
        signerLastName: null,
        signerRegistrationNumber: null,
        signerRegistrationCouncil: null,
      })
      .where(eq(reports.expertId, userId)),
  );
  yield* exec(tx.delete(users).where(eq(users.id, userId)));
  yield* exec(forgetPersonCounts(tx, userId, profileIds));
  return { fileKeys, uploadIds };
}

/**
 * Every number of a person, for the erasure (decision 0022): the sign-in number and the contact number,
 * each as stored ("+" and the digits, with the account's dial code for the contact number) and as
 * valid E.164 when it is one. Any number, not only those SMS may go to today: a fixed line, a
 * country since removed from SMS_COUNTRIES, or a number the full metadata now calls invalid may
 * still have SMS rows, codes and callbacks naming it.
 */
export function personNumbers(user: Pick<UserRow, "phone" | "countryCode" | "contactNumber">): string[] {
  const contact = phoneCandidate(user.contactNumber ?? "", user.countryCode || "+91");
  const forms = [
    user.phone,
    user.phone ? validE164(user.phone) : null,
    contact,
    contact ? validE164(contact) : null,
  ];
  return [...new Set(forms.filter((n): n is string => !!n))];
}

/** Removes used, expired codes and reset tokens (run at start-up and now and then). */
export async function pruneAccountsTables() {
  const cutoff = new Date(Date.now() - PENDING_TTL_MS);
  await db()
    .delete(verificationCodes)
    .where(or(lt(verificationCodes.createdAt, cutoff), lt(verificationCodes.expiresAt, cutoff)));
  await db().delete(passwordResetTokens).where(lt(passwordResetTokens.expiresAt, new Date()));
  await pruneTwoFactorTables();
}

export type { UserRow };
