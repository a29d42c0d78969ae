import { createCipheriv, createDecipheriv, createHmac, randomBytes, randomInt } from "node:crypto";
import { and, eq, inArray, isNotNull, isNull, lt, or, sql } from "drizzle-orm";
import { Secret, TOTP } from "otpauth";
import { config } from "~/config.server";
import { db, first } from "~/db/client.server";
import { recoveryCodes, totpFactors, type AccountType, type UserRow } from "~/db/schema";
import { site } from "~/site";
import { newId } from "~/lib/ids.server";
import type { Client } from "../platform/client";
import { DomainError } from "../platform/errors";
import { forgive, limit } from "../platform/index.server";
import { verifyPassword } from "./passwords.server";
import { type Actor } from "./sessions.server";
import { findUserById } from "./users.server";

/**
 * Two-step login (decision 0017): a TOTP authenticator (RFC 6238: SHA-1, 6 digits,
 * 30-second steps, ±1 step accepted) plus 10 single-use recovery codes. The shared secret is
 * kept encrypted under the deployment's ENCRYPTION_KEY; recovery codes only as keyed hashes.
 *
 * A code is accepted once: `totp_factors.last_step` holds the newest step used, and accepting a
 * code is ONE conditional update (`… WHERE last_step < :step`), so two requests carrying the same
 * code at the same moment cannot both pass. A login whose password was right but which still
 * needs the second step is an `mfa_challenges` row: 5 minutes, 5 tries, deleted when used.
 *
 * This module: the secret at rest, recovery codes, the factor's state, checking a code, and
 * re-authentication. Setting up and turning off: two-factor-setup.server.ts; the login's
 * challenge: two-factor-login.server.ts.
 */

const PERIOD = 30;
const DIGITS = 6;
/** Steps either side of now that are still accepted (clock drift, slow typing). */
const WINDOW = 1;
export const CHALLENGE_TTL_MS = 5 * 60 * 1000;
export const CHALLENGE_MAX_ATTEMPTS = 5;
export const RECOVERY_CODE_COUNT = 10;
/** 31 symbols without 0/o, 1/l/i: 10 of them carry about 49 bits. */
const RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";
const RECOVERY_LENGTH = 10;
/** A setup nobody finished is removed after a day. */
export const PENDING_SETUP_TTL_MS = 24 * 60 * 60 * 1000;

export type Proof = { code?: string | null; recoveryCode?: string | null };
export type SetupInfo = {
  /** The base32 secret, for typing into an app by hand. */
  secret: string;
  /** `otpauth://totp/…`, what the QR code holds. */
  otpauthUrl: string;
  /** The QR code as an SVG `data:` URL (works as an <img> without JavaScript). */
  qrCode: string;
};
export type TwoFactorStatus = {
  enabled: boolean;
  /** A setup was started and not confirmed yet. */
  pending: boolean;
  enabledAt: string | null;
  recoveryCodesLeft: number;
  /** Required for this account (admins while MFA_REQUIRED_FOR_ADMINS is on): it cannot be turned off. */
  required: boolean;
};
/** What a login still needs after the password: a code, or (admins without one) setting it up. */
export type ChallengeMode = "code" | "enrol";

export type FactorRow = typeof totpFactors.$inferSelect;

/** The SMS (phone-only patients; staff who chose SMS) for every change to the second factor: no details, a link. */
export const CHANGED_SMS = { key: "mfa.smsChanged", purpose: "notice" } as const;

// ---------------------------------------------------------------------------------------------
// The secret at rest: AES-256-GCM under ENCRYPTION_KEY, bound to the account by the AAD.

const SEAL_VERSION = "v1";

function aad(userId: string) {
  return Buffer.from(`totp:${userId}`, "utf8");
}

export function sealSecret(userId: string, base32: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", config().encryptionKey, iv);
  cipher.setAAD(aad(userId));
  const body = Buffer.concat([cipher.update(base32, "utf8"), cipher.final()]);
  return `${SEAL_VERSION}.${Buffer.concat([iv, body, cipher.getAuthTag()]).toString("base64url")}`;
}

function openSecret(userId: string, sealed: string): string {
  const [version, data] = sealed.split(".");
  if (version !== SEAL_VERSION || !data) throw new Error("unknown TOTP secret format");
  const buf = Buffer.from(data, "base64url");
  const decipher = createDecipheriv("aes-256-gcm", config().encryptionKey, buf.subarray(0, 12));
  decipher.setAAD(aad(userId));
  decipher.setAuthTag(buf.subarray(buf.length - 16));
  return Buffer.concat([decipher.update(buf.subarray(12, buf.length - 16)), decipher.final()]).toString(
    "utf8",
  );
}

function totpFor(user: Pick<UserRow, "email" | "phone">, base32: string) {
  return new TOTP({
    issuer: site.productName,
    label: user.email || user.phone || site.productName,
    algorithm: "SHA1",
    digits: DIGITS,
    period: PERIOD,
    secret: Secret.fromBase32(base32),
  });
}

export async function setupInfo(user: UserRow, factor: FactorRow): Promise<SetupInfo> {
  const secret = openSecret(user.id, factor.secretEnc);
  const otpauthUrl = totpFor(user, secret).toString();
  const QRCode = (await import("qrcode")).default; // loaded at first use (decision 0111)
  const svg = await QRCode.toString(otpauthUrl, { type: "svg", margin: 1, errorCorrectionLevel: "M" });
  return { secret, otpauthUrl, qrCode: `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}` };
}

// ---------------------------------------------------------------------------------------------
// Recovery codes: shown once, kept as HMACs under a key derived from ENCRYPTION_KEY.

function recoveryKey() {
  return createHmac("sha256", config().encryptionKey).update("carebridge recovery codes").digest();
}

/** "ab3de-fgh7k" → "ab3defgh7k": case, spaces and dashes do not matter when typing one in. */
export function normalizeRecoveryCode(raw: string): string {
  return raw.toLowerCase().replace(/[\s-]/g, "");
}

function recoveryHash(userId: string, normalized: string) {
  return createHmac("sha256", recoveryKey()).update(`${userId}:${normalized}`).digest("hex");
}

export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    let s = "";
    for (let i = 0; i < RECOVERY_LENGTH; i++) s += RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)];
    return `${s.slice(0, 5)}-${s.slice(5)}`;
  });
}

export function recoveryRows(userId: string, codes: string[], now: Date) {
  return codes.map((c) => ({
    id: newId(),
    userId,
    codeHash: recoveryHash(userId, normalizeRecoveryCode(c)),
    createdAt: now,
  }));
}

// ---------------------------------------------------------------------------------------------
// Reading state

export function requiredFor(user: { accountType: AccountType }): boolean {
  return user.accountType === "Admin" && config().mfaRequiredForAdmins;
}

export async function factorOf(userId: string): Promise<FactorRow | undefined> {
  return first(db().select().from(totpFactors).where(eq(totpFactors.userId, userId)));
}

export async function hasTwoFactor(userId: string): Promise<boolean> {
  return !!(await factorOf(userId))?.confirmedAt;
}

/** Of these users, those with two-step login on (for lists). */
export async function twoFactorUserIds(ids: string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const found = await db()
    .select({ id: totpFactors.userId })
    .from(totpFactors)
    .where(and(inArray(totpFactors.userId, ids), isNotNull(totpFactors.confirmedAt)));
  return new Set(found.map((r) => r.id));
}

export async function twoFactorStatus(user: {
  id: string;
  accountType: AccountType;
}): Promise<TwoFactorStatus> {
  const factor = await factorOf(user.id);
  const left = factor?.confirmedAt
    ? (
        await db()
          .select({ n: sql<number>`count(*)` })
          .from(recoveryCodes)
          .where(and(eq(recoveryCodes.userId, user.id), isNull(recoveryCodes.usedAt)))
      )[0]?.n
    : 0;
  return {
    enabled: !!factor?.confirmedAt,
    pending: !!factor && !factor.confirmedAt,
    enabledAt: factor?.confirmedAt?.toISOString() ?? null,
    recoveryCodesLeft: Number(left ?? 0),
    required: requiredFor(user),
  };
}

export async function userOf(actor: Pick<Actor, "id">): Promise<UserRow> {
  const user = await findUserById(actor.id);
  if (!user) throw new DomainError("not_authenticated", "api.notAuthenticated");
  return user;
}

// ---------------------------------------------------------------------------------------------
// Checking a code or a recovery code

const codeError = (key: string, values?: Record<string, number>) =>
  new DomainError("invalid", key, { fieldErrors: { code: [key] }, values });

/** The time step a 6-digit code is right for (now ±1), or a field error. Nothing is written. */
export function stepOf(user: UserRow, factor: FactorRow, code: string | null | undefined): number {
  const token = (code ?? "").replace(/\s/g, "");
  if (!token) throw codeError("mfa.codeRequired");
  if (!/^\d{6}$/.test(token)) throw codeError("mfa.codeShape");
  const now = Date.now();
  const delta = totpFor(user, openSecret(user.id, factor.secretEnc)).validate({
    token,
    timestamp: now,
    window: WINDOW,
  });
  if (delta === null) throw codeError("mfa.codeWrong");
  return TOTP.counter({ period: PERIOD, timestamp: now }) + delta;
}

/** Accepts a code of an enabled factor once: one conditional update decides between simultaneous uses. */
async function acceptCode(user: UserRow, factor: FactorRow, code: string | null | undefined) {
  const step = stepOf(user, factor, code);
  const won = await db()
    .update(totpFactors)
    .set({ lastStep: step })
    .where(
      and(
        eq(totpFactors.userId, user.id),
        isNotNull(totpFactors.confirmedAt),
        eq(totpFactors.secretEnc, factor.secretEnc),
        or(isNull(totpFactors.lastStep), lt(totpFactors.lastStep, step)),
      ),
    )
    .returning({ userId: totpFactors.userId });
  if (won.length !== 1) throw codeError("mfa.codeUsed");
}

/** Uses up one recovery code (one conditional update: a code works once). */
async function spendRecoveryCode(user: UserRow, raw: string) {
  const normalized = normalizeRecoveryCode(raw);
  const wrong = () =>
    new DomainError("invalid", "mfa.recoveryWrong", { fieldErrors: { recoveryCode: ["mfa.recoveryWrong"] } });
  if (!normalized) {
    throw new DomainError("invalid", "mfa.recoveryRequired", {
      fieldErrors: { recoveryCode: ["mfa.recoveryRequired"] },
    });
  }
  if (normalized.length !== RECOVERY_LENGTH || /[^a-z0-9]/.test(normalized)) throw wrong();
  const used = await db()
    .update(recoveryCodes)
    .set({ usedAt: new Date() })
    .where(
      and(
        eq(recoveryCodes.userId, user.id),
        eq(recoveryCodes.codeHash, recoveryHash(user.id, normalized)),
        isNull(recoveryCodes.usedAt),
      ),
    )
    .returning({ id: recoveryCodes.id });
  if (used.length !== 1) throw wrong();
}

/**
 * Checks a proof (a code, or a recovery code) for an enabled factor. Wrong tries count against the
 * `mfa` budget per account and per address; a right one gives its point back.
 */
export async function checkProof(
  user: UserRow,
  factor: FactorRow,
  proof: Proof,
  client: Client,
): Promise<"code" | "recovery"> {
  const viaRecovery = !proof.code && !!proof.recoveryCode;
  await limit("mfa", user.id, client);
  if (viaRecovery) await spendRecoveryCode(user, proof.recoveryCode!);
  else await acceptCode(user, factor, proof.code);
  await forgive("mfa", user.id, client);
  return viaRecovery ? "recovery" : "code";
}

/**
 * The second half of a re-authentication (`reauthenticate()` below): when the account has two-step
 * login on, a code from the app (or a recovery code) is required and used up; otherwise nothing.
 */
export async function proveSecondFactor(user: UserRow, proof: Proof, client: Client): Promise<void> {
  const factor = await factorOf(user.id);
  if (!factor?.confirmedAt) return;
  await checkProof(user, factor, proof, client);
}

/**
 * Checks a signed-in account's own password again (change password, delete account). Wrong
 * passwords count against the `passwordCheck` budget (5 per account / 15 minutes), so a stolen
 * session cannot be used to guess it; a right one gives its point back.
 */
export async function confirmOwnPassword(
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

/**
 * Re-authentication for a step that must not rest on a session or token alone (erasing the
 * account, turning two-step login on, an admin resetting another admin's second factor): the
 * current password, then — when two-step login is on — a code from the app or a recovery code.
 * Wrong passwords are counted like every password check; a wrong code like every code.
 */
export async function reauthenticate(
  actor: Pick<Actor, "id">,
  input: { password: string } & Proof,
  client: Client,
  wrongPasswordKey = "accounts.currentPasswordWrong",
): Promise<UserRow> {
  const user = await findUserById(actor.id);
  if (!user) throw new DomainError("not_authenticated", "api.notAuthenticated");
  await confirmOwnPassword(user, input.password ?? "", client, "password", wrongPasswordKey);
  await proveSecondFactor(user, input, client);
  return user;
}

export async function enabledFactor(user: UserRow): Promise<FactorRow> {
  const factor = await factorOf(user.id);
  if (!factor?.confirmedAt) throw new DomainError("conflict", "mfa.notOn");
  return factor;
}
