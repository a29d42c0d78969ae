import { createHmac, randomInt, timingSafeEqual } from "node:crypto";
import { and, desc, eq, isNull, lt, or, sql } from "drizzle-orm";
import { config } from "~/config.server";
import { db, exec, first, rows, transaction } from "~/db/client.server";
import { passwordResetTokens, profiles, reports, users, verificationCodes, type UserRow } from "~/db/schema";
import { getT } from "~/i18n/i18n.server";
import { isLocale, type Locale } from "~/i18n/config";
import type { ProfileInput, SignupForm } from "~/schemas/auth";
export { DISPLAY_PICTURE_MAX_BYTES } from "~/schemas/auth";
import { site } from "~/site";
import { newId, newToken, sha256 } from "~/utils/ids.server";
import { audit } from "./audit.server";
import type { Client } from "./client";
import { DomainError } from "./errors";
import { deleteStored, type StoredFile } from "./files.server";
import { sendMail, sendMailInBackground, simpleHtml } from "./mail.server";
import { dummyHash, hashPassword, isCommonPassword, needsRehash, verifyPassword } from "./passwords.server";
import { beginLogin, forgive, limit, takeMailPoint } from "./ratelimit.server";
import { createSession, revokeAllSessions, revokeSession, type Actor } from "./sessions.server";
import { findUserByEmail, findUserById, insertUser, normalizeEmail } from "./users.server";

const CODE_TTL_MS = 10 * 60 * 1000;
const CODE_MAX_ATTEMPTS = 5;
/** How long a pending signup can still be resent or verified after its last code was issued. */
const PENDING_TTL_MS = 24 * 60 * 60 * 1000;
const RESET_TTL_MS = 15 * 60 * 1000;

type PendingSignup = Omit<SignupForm, "password" | "confirmPassword"> & {
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

async function mailCode(email: string, code: string, locale: string) {
  const t = await getT(loc(locale));
  const vars = { code, product: site.productName, minutes: 10 };
  await sendMail({
    to: email,
    subject: t("authMail.codeSubject", vars),
    text: `${t("authMail.codeBody", vars)}\n\n${t("authMail.ignore")}`,
    html: simpleHtml([t("authMail.codeBody", vars), t("authMail.ignore")]),
  });
}

/** Issues a fresh 6-digit code for an e-mail (older unused codes stop working) and mails it. */
async function issueCode(email: string, payload: string | null, locale: string) {
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
            eq(verificationCodes.email, email),
            eq(verificationCodes.purpose, "signup"),
            isNull(verificationCodes.consumedAt),
          ),
        ),
    );
    yield* exec(
      tx.insert(verificationCodes).values({
        id,
        email,
        purpose: "signup",
        codeHash: codeHash(id, code),
        payload,
        expiresAt: new Date(now + CODE_TTL_MS),
        createdAt: new Date(now),
      }),
    );
  });
  try {
    await mailCode(email, code, locale);
  } catch {
    await db().delete(verificationCodes).where(eq(verificationCodes.id, id));
    throw new DomainError("invalid", "accounts.sendCodeFailed");
  }
  return id;
}

/** Checks a code against its row: single use, 10 minutes, at most 5 wrong tries. */
async function checkCode(row: typeof verificationCodes.$inferSelect | undefined, code: string) {
  if (!row || row.consumedAt)
    throw new DomainError("invalid", "accounts.otpExpired", {
      fieldErrors: { code: ["accounts.otpExpired"], otp: ["accounts.otpExpired"] },
    });
  if (row.attempts >= CODE_MAX_ATTEMPTS)
    throw new DomainError("invalid", "accounts.otpTooManyTries", {
      fieldErrors: { code: ["accounts.otpTooManyTries"], otp: ["accounts.otpTooManyTries"] },
    });
  if (row.expiresAt.getTime() < Date.now())
    throw new DomainError("invalid", "accounts.otpExpired", {
      fieldErrors: { code: ["accounts.otpExpired"], otp: ["accounts.otpExpired"] },
    });
  if (!sameHash(row.codeHash, codeHash(row.id, code))) {
    await db()
      .update(verificationCodes)
      .set({ attempts: sql`${verificationCodes.attempts} + 1` })
      .where(eq(verificationCodes.id, row.id));
    const left = CODE_MAX_ATTEMPTS - row.attempts - 1;
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

async function assertEmailFree(email: string) {
  if (await findUserByEmail(email)) {
    throw new DomainError("conflict", "accounts.emailTaken", {
      fieldErrors: { email: ["accounts.emailTaken"] },
    });
  }
}

/** Refuses a password from the common-password list (decision 0009), as a field error of `field`. */
function assertPasswordNotCommon(password: string, field: string) {
  if (isCommonPassword(password)) {
    throw new DomainError("invalid", "accounts.passwordCommon", {
      fieldErrors: { [field]: ["accounts.passwordCommon"] },
    });
  }
}

/** Screen signup, step 1: keeps the signup (password hashed) on the server and mails a code. */
export async function startSignup(input: SignupForm, client: Client, locale: string) {
  assertPasswordNotCommon(input.password, "password");
  await limit("mail", input.email, client);
  await assertEmailFree(input.email);
  const pending: PendingSignup = {
    accountType: input.accountType,
    firstName: input.firstName,
    lastName: input.lastName,
    email: input.email,
    countryCode: input.countryCode,
    contactNumber: input.contactNumber,
    specialties: input.specialties,
    registrationNumber: input.registrationNumber,
    registrationCouncil: input.registrationCouncil,
    yearsOfPractice: input.yearsOfPractice,
    passwordHash: await hashPassword(input.password),
    locale,
  };
  return { pendingId: await issueCode(input.email, JSON.stringify(pending), locale) };
}

async function pendingRow(pendingId: string | null | undefined) {
  if (!pendingId || !/^[a-f0-9]{24}$/.test(pendingId)) return undefined;
  const row = await first(db().select().from(verificationCodes).where(eq(verificationCodes.id, pendingId)));
  if (!row?.payload || row.consumedAt || row.createdAt.getTime() + PENDING_TTL_MS < Date.now())
    return undefined;
  return row;
}

/** The e-mail of a pending screen signup, or null when there is none. */
export async function getPendingSignup(pendingId: string | null | undefined) {
  const row = await pendingRow(pendingId);
  return row ? { email: row.email } : null;
}

export async function resendSignupCode(pendingId: string, client: Client) {
  const row = await pendingRow(pendingId);
  if (!row) throw new DomainError("invalid", "accounts.signupExpired");
  await limit("mail", row.email, client);
  await assertEmailFree(row.email);
  const pending = JSON.parse(row.payload!) as PendingSignup;
  return { pendingId: await issueCode(row.email, row.payload, pending.locale) };
}

async function createAccount(pending: PendingSignup) {
  return insertUser({
    email: pending.email,
    passwordHash: pending.passwordHash,
    firstName: pending.firstName,
    lastName: pending.lastName,
    accountType: pending.accountType,
    countryCode: pending.countryCode,
    contactNumber: pending.contactNumber,
    locale: pending.locale,
    // An expert's verification details (issue 12), when given.
    expert:
      pending.accountType === "Expert"
        ? {
            specialties: pending.specialties,
            registrationNumber: pending.registrationNumber,
            registrationCouncil: pending.registrationCouncil,
            yearsOfPractice: pending.yearsOfPractice,
          }
        : undefined,
  });
}

/** Screen signup, step 2: a right code creates the account (experts start unapproved). */
export async function completeSignup(pendingId: string, code: string, client: Client) {
  const row = await pendingRow(pendingId);
  if (!row) throw new DomainError("invalid", "accounts.signupExpired");
  await limit("verifyCode", row.email, client);
  await checkCode(row, code);
  return createAccount(JSON.parse(row.payload!) as PendingSignup);
}

/** API: POST /auth/send-otp. */
export async function sendSignupOtp(emailAddress: string, client: Client, locale: string) {
  const email = normalizeEmail(emailAddress);
  await limit("mail", email, client);
  await assertEmailFree(email);
  await issueCode(email, null, locale);
}

/** API: POST /auth/signup with the code from send-otp. */
export async function signupWithOtp(
  input: Omit<SignupForm, "countryCode"> & { countryCode?: string; otp: string },
  client: Client,
  locale: string,
) {
  assertPasswordNotCommon(input.password, "password");
  await limit("verifyCode", input.email, client);
  await assertEmailFree(input.email);
  const row = await first(
    db()
      .select()
      .from(verificationCodes)
      .where(
        and(
          eq(verificationCodes.email, input.email),
          eq(verificationCodes.purpose, "signup"),
          isNull(verificationCodes.consumedAt),
        ),
      )
      .orderBy(desc(verificationCodes.createdAt)),
  );
  await checkCode(row, input.otp);
  return createAccount({
    accountType: input.accountType,
    firstName: input.firstName,
    lastName: input.lastName,
    email: input.email,
    countryCode: (input.countryCode ?? "+91") as SignupForm["countryCode"],
    contactNumber: input.contactNumber,
    specialties: input.specialties,
    registrationNumber: input.registrationNumber,
    registrationCouncil: input.registrationCouncil,
    yearsOfPractice: input.yearsOfPractice,
    passwordHash: await hashPassword(input.password),
    locale,
  });
}

/**
 * Tells the owner, once a day, that their account sees many wrong passwords. No secrets, no
 * addresses: just what happened and what they can do. Skipped when the hourly mail ceiling is spent.
 */
async function mailFailedLogins(user: UserRow) {
  if (!(await takeMailPoint())) return;
  const t = await getT(loc(user.locale));
  const vars = { product: site.productName };
  sendMailInBackground({
    to: user.email,
    subject: t("authMail.failedLoginsSubject", vars),
    text: `${t("authMail.failedLoginsBody", vars)}\n\n${t("authMail.failedLoginsAdvice", vars)}`,
    html: simpleHtml([t("authMail.failedLoginsBody", vars), t("authMail.failedLoginsAdvice", vars)]),
  });
}

/** Checks credentials and opens a session (a web cookie session or an API token). */
export async function login(input: { email: string; password: string }, client: Client, kind: "web" | "api") {
  const email = normalizeEmail(input.email);
  const attempt = await beginLogin(email, client);
  const user = await findUserByEmail(email);
  const ok = await verifyPassword(input.password, user?.passwordHash ?? (await dummyHash()));
  if (!user || !ok) {
    const { notifyOwner } = await attempt.failed();
    if (notifyOwner && user) await mailFailedLogins(user);
    throw new DomainError("not_authenticated", "accounts.invalidCredentials");
  }
  await attempt.succeeded();
  if (user.suspendedAt) throw new DomainError("forbidden", "accounts.suspended");
  if (needsRehash(user.passwordHash)) {
    // An older hash (bcrypt, or weaker Argon2 parameters) is replaced while we hold the password.
    const passwordHash = await hashPassword(input.password);
    await db()
      .update(users)
      .set({ passwordHash })
      .where(and(eq(users.id, user.id), eq(users.passwordHash, user.passwordHash)));
  }
  const session = await createSession(user.id, kind, {
    userAgent: client.userAgent,
    ip: client.ip,
  });
  return { user, token: session.token, sessionId: session.id };
}

export async function logout(actor: Actor) {
  await revokeSession(actor.sessionId);
}

/**
 * Always answers the same, in the same time: the mail with the 15-minute single-use link (only
 * when the account exists) is sent in the background, so the answer never waits for SMTP.
 */
export async function requestPasswordReset(emailAddress: string, client: Client) {
  const email = normalizeEmail(emailAddress);
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

/**
 * Checks a signed-in account's own password again (change password, delete account). Wrong
 * passwords count against the `passwordCheck` budget (5 per account / 15 minutes), so a stolen
 * session cannot be used to guess it; a right one gives its point back.
 */
async function confirmOwnPassword(
  user: UserRow,
  password: string,
  client: Client,
  field: string,
  key: string,
) {
  await limit("passwordCheck", user.id, client);
  if (!(await verifyPassword(password, user.passwordHash))) {
    throw new DomainError("invalid", key, { fieldErrors: { [field]: [key] } });
  }
  await forgive("passwordCheck", user.id, client);
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
 * Deletes the account: the user row (profile, sessions, tokens and reports go with it by
 * foreign key) — and returns the stored file keys the caller's file store must remove.
 */
export async function deleteAccountRows(actor: Actor): Promise<{ fileKeys: string[] }> {
  const user = await findUserById(actor.id);
  if (!user) throw new DomainError("not_found", "api.notFound");
  return transaction(function* (tx) {
    const keys = (yield* rows(
      tx.select({ key: reports.fileKey }).from(reports).where(eq(reports.patientId, actor.id)),
    )).map((r) => r.key);
    if (user.image) keys.push(user.image);
    yield* exec(tx.delete(users).where(eq(users.id, actor.id)));
    return { fileKeys: keys };
  });
}

/**
 * Deletes the account and every file it owned (reports and display picture); sessions end with it.
 * With a password (the screen always sends one; the API may), a wrong one deletes nothing.
 */
export async function deleteAccount(actor: Actor, confirm?: { password: string; client: Client }) {
  if (confirm) {
    const user = await findUserById(actor.id);
    if (!user) throw new DomainError("not_found", "api.notFound");
    await confirmOwnPassword(
      user,
      confirm.password,
      confirm.client,
      "password",
      "profile.deletePasswordWrong",
    );
  }
  const { fileKeys } = await deleteAccountRows(actor);
  await audit(null, "account.delete", "user", actor.id);
  await Promise.all(fileKeys.map((k) => deleteStored(k).catch(() => {})));
}

/** Removes used, expired codes and reset tokens (run at start-up and now and then). */
export async function pruneAccountsTables() {
  const cutoff = new Date(Date.now() - PENDING_TTL_MS);
  await db()
    .delete(verificationCodes)
    .where(or(lt(verificationCodes.createdAt, cutoff), lt(verificationCodes.expiresAt, cutoff)));
  await db().delete(passwordResetTokens).where(lt(passwordResetTokens.expiresAt, new Date()));
}

export type { UserRow };
