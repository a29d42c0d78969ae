import { and, eq } from "drizzle-orm";
import { db } from "~/db/client.server";
import { users, type UserRow } from "~/db/schema";
import type { Client } from "../platform/client";
import { DomainError } from "../platform/errors";
import { dummyHash, hashPassword, needsRehash, verifyPassword } from "./passwords.server";
import { beginLogin, limit, takeMailPoint } from "../platform/index.server";
import { createSession, revokeSession, type Actor } from "./sessions.server";
import { validE164 } from "~/lib/phone.server";
import { sendFailedLoginsNotice } from "../messaging/index.server";
import { findUserByEmail, findUserByPhone, normalizeEmail } from "./users.server";
import type { ChallengeMode, Proof } from "./two-factor.server";
import { openChallenge, passChallenge, secondStepFor } from "./two-factor-login.server";
import { checkCode, issueCode, latestCode, limitSmsCode, smsPhone, checkedPhone } from "./codes.server";

/**
 * Login: an e-mail or a mobile number with the password, or a mobile number with an SMS login code;
 * the second step when two-step login is on (decision 0017); logout.
 */

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

export type { UserRow };
