import { createCipheriv, createDecipheriv, createHmac, randomBytes, randomInt } from "node:crypto";
import { and, eq, inArray, isNotNull, isNull, lt, or, sql } from "drizzle-orm";
import { Secret, TOTP } from "otpauth";
import QRCode from "qrcode";
import { config } from "~/config.server";
import { db, exec, first, rows, transaction } from "~/db/client.server";
import { mfaChallenges, recoveryCodes, totpFactors, type AccountType, type UserRow } from "~/db/schema";
import { site } from "~/site";
import { newId, newToken, sha256 } from "~/utils/ids.server";
import { audit, auditInsert } from "../platform/audit.server";
import type { Client } from "../platform/client";
import { DomainError } from "../platform/errors";
import { notify } from "../messaging/index.server";
import { forgive, limit } from "../platform/ratelimit.server";
import { verifyPassword } from "./passwords.server";
import { revokeAllSessions, type Actor } from "./sessions.server";
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
const PENDING_TTL_MS = 24 * 60 * 60 * 1000;

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

type FactorRow = typeof totpFactors.$inferSelect;

/** The SMS (phone-only patients; staff who chose SMS) for every change to the second factor: no details, a link. */
const CHANGED_SMS = { key: "mfa.smsChanged", purpose: "notice" } as const;

// ---------------------------------------------------------------------------------------------
// The secret at rest: AES-256-GCM under ENCRYPTION_KEY, bound to the account by the AAD.

const SEAL_VERSION = "v1";

function aad(userId: string) {
  return Buffer.from(`totp:${userId}`, "utf8");
}

function sealSecret(userId: string, base32: string): string {
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

async function setupInfo(user: UserRow, factor: FactorRow): Promise<SetupInfo> {
  const secret = openSecret(user.id, factor.secretEnc);
  const otpauthUrl = totpFor(user, secret).toString();
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

function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    let s = "";
    for (let i = 0; i < RECOVERY_LENGTH; i++) s += RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)];
    return `${s.slice(0, 5)}-${s.slice(5)}`;
  });
}

function recoveryRows(userId: string, codes: string[], now: Date) {
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

async function factorOf(userId: string): Promise<FactorRow | undefined> {
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

async function userOf(actor: Pick<Actor, "id">): Promise<UserRow> {
  const user = await findUserById(actor.id);
  if (!user) throw new DomainError("not_authenticated", "api.notAuthenticated");
  return user;
}

// ---------------------------------------------------------------------------------------------
// Checking a code or a recovery code

const codeError = (key: string, values?: Record<string, number>) =>
  new DomainError("invalid", key, { fieldErrors: { code: [key] }, values });

/** The time step a 6-digit code is right for (now ±1), or a field error. Nothing is written. */
function stepOf(user: UserRow, factor: FactorRow, code: string | null | undefined): number {
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
async function checkProof(
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

async function enabledFactor(user: UserRow): Promise<FactorRow> {
  const factor = await factorOf(user.id);
  if (!factor?.confirmedAt) throw new DomainError("conflict", "mfa.notOn");
  return factor;
}

// ---------------------------------------------------------------------------------------------
// Setting up, confirming, recovery codes, turning off (the account's own, signed in)

/** Writes a fresh unconfirmed secret, replacing an unfinished setup (never an enabled factor). */
async function writePendingSecret(user: UserRow, onlyIfOlderThan?: Date) {
  const now = new Date();
  const secretEnc = sealSecret(user.id, new Secret({ size: 20 }).base32);
  const replaceable = onlyIfOlderThan
    ? and(isNull(totpFactors.confirmedAt), lt(totpFactors.createdAt, onlyIfOlderThan))
    : isNull(totpFactors.confirmedAt);
  await db()
    .insert(totpFactors)
    .values({ userId: user.id, secretEnc, confirmedAt: null, lastStep: null, createdAt: now })
    .onConflictDoUpdate({
      target: totpFactors.userId,
      set: { secretEnc, confirmedAt: null, lastStep: null, createdAt: now },
      setWhere: replaceable,
    });
}

/**
 * Settings: starts a setup with a new secret (an unfinished one is replaced). The account's
 * password is asked first: a stolen session or token alone cannot enrol an
 * authenticator of its own.
 */
export async function beginSetup(
  actor: Pick<Actor, "id">,
  input: { password: string },
  client: Client,
): Promise<SetupInfo> {
  const user = await userOf(actor);
  if ((await factorOf(user.id))?.confirmedAt) throw new DomainError("conflict", "mfa.alreadyOn");
  await reauthenticate(actor, { password: input.password }, client);
  await writePendingSecret(user);
  const factor = await factorOf(user.id);
  if (!factor || factor.confirmedAt) throw new DomainError("conflict", "mfa.alreadyOn");
  return setupInfo(user, factor);
}

/** The unfinished setup's QR code and secret, or null. */
export async function pendingSetup(actor: Pick<Actor, "id">): Promise<SetupInfo | null> {
  const user = await userOf(actor);
  const factor = await factorOf(user.id);
  return factor && !factor.confirmedAt ? setupInfo(user, factor) : null;
}

export async function cancelSetup(actor: Pick<Actor, "id">) {
  await db()
    .delete(totpFactors)
    .where(and(eq(totpFactors.userId, actor.id), isNull(totpFactors.confirmedAt)));
}

/**
 * The first right code turns the unfinished setup on and makes 10 recovery codes (returned once).
 * One transaction: the conditional confirm (the same secret, still unconfirmed), the codes, the
 * audit event — and, for a login that enrols, the challenge's deletion (whoever deletes it wins).
 */
async function confirmPending(
  user: UserRow,
  code: string | null | undefined,
  client: Client,
  challengeId?: string,
  keepSessionId?: string,
): Promise<string[]> {
  const factor = await factorOf(user.id);
  if (!factor) throw new DomainError("conflict", "mfa.noSetup");
  if (factor.confirmedAt) throw new DomainError("conflict", "mfa.alreadyOn");
  await limit("mfa", user.id, client);
  const step = stepOf(user, factor, code);
  await forgive("mfa", user.id, client);
  const codes = newRecoveryCodes();
  const now = new Date();
  const fresh = recoveryRows(user.id, codes, now);
  await transaction(function* (tx) {
    if (challengeId) {
      const gone = yield* rows(
        tx.delete(mfaChallenges).where(eq(mfaChallenges.id, challengeId)).returning({ id: mfaChallenges.id }),
      );
      if (gone.length !== 1) throw new DomainError("not_authenticated", "mfa.challengeExpired");
    }
    const won = yield* rows(
      tx
        .update(totpFactors)
        .set({ confirmedAt: now, lastStep: step })
        .where(
          and(
            eq(totpFactors.userId, user.id),
            isNull(totpFactors.confirmedAt),
            eq(totpFactors.secretEnc, factor.secretEnc),
          ),
        )
        .returning({ userId: totpFactors.userId }),
    );
    if (won.length !== 1) throw new DomainError("conflict", "mfa.alreadyOn");
    yield* exec(tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, user.id)));
    yield* exec(tx.insert(recoveryCodes).values(fresh));
    yield* exec(auditInsert(tx, user, "account.2fa_enable", "user", user.id, null, client.ip));
  });
  // Turning it on ends every other session and API token of the account: whoever was
  // signed in before must now pass the second step too.
  await revokeAllSessions(user.id, keepSessionId);
  notify(user, {
    subject: "mfa.mailOnSubject",
    body: "mfa.mailOnBody",
    action: "mfa.mailAction",
    path: "/dashboard/settings",
    sms: CHANGED_SMS,
  });
  return codes;
}

/**
 * Settings: confirms the setup with the password and a code from the app; returns the recovery
 * codes (shown once). The account's other sessions and tokens end; this one stays.
 */
export async function confirmSetup(
  actor: Pick<Actor, "id" | "sessionId">,
  input: { password: string; code: string },
  client: Client,
) {
  const user = await userOf(actor);
  const factor = await factorOf(user.id);
  if (!factor) throw new DomainError("conflict", "mfa.noSetup");
  if (factor.confirmedAt) throw new DomainError("conflict", "mfa.alreadyOn");
  await reauthenticate(actor, { password: input.password }, client);
  return { recoveryCodes: await confirmPending(user, input.code, client, undefined, actor.sessionId) };
}

/** New recovery codes (the old ones stop working), after a code or a recovery code. */
export async function regenerateRecoveryCodes(actor: Pick<Actor, "id">, proof: Proof, client: Client) {
  const user = await userOf(actor);
  const factor = await enabledFactor(user);
  await checkProof(user, factor, proof, client);
  const codes = newRecoveryCodes();
  const fresh = recoveryRows(user.id, codes, new Date());
  await transaction(function* (tx) {
    yield* exec(tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, user.id)));
    yield* exec(tx.insert(recoveryCodes).values(fresh));
    yield* exec(auditInsert(tx, user, "account.2fa_recovery_codes", "user", user.id, null, client.ip));
  });
  return { recoveryCodes: codes };
}

/** Before asking for the password: may this account turn two-step login off at all? */
export async function assertMayTurnOff(user: UserRow) {
  if (requiredFor(user)) throw new DomainError("forbidden", "mfa.requiredForAdmins");
  await enabledFactor(user);
}

/**
 * Turns two-step login off after a code (or recovery code). The caller (accounts.turnOffTwoFactor)
 * has checked the password first.
 */
export async function turnOff(user: UserRow, proof: Proof, client: Client) {
  await assertMayTurnOff(user);
  const factor = await enabledFactor(user);
  await checkProof(user, factor, proof, client);
  await transaction(function* (tx) {
    yield* exec(tx.delete(totpFactors).where(eq(totpFactors.userId, user.id)));
    yield* exec(tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, user.id)));
    yield* exec(tx.delete(mfaChallenges).where(eq(mfaChallenges.userId, user.id)));
    yield* exec(auditInsert(tx, user, "account.2fa_disable", "user", user.id, null, client.ip));
  });
  notify(user, {
    subject: "mfa.mailOffSubject",
    body: "mfa.mailOffBody",
    action: "mfa.mailAction",
    path: "/dashboard/settings",
    sms: CHANGED_SMS,
  });
}

// ---------------------------------------------------------------------------------------------
// Admin: reset another account's second factor

/**
 * Admin only, never one's own: removes an account's authenticator and recovery codes (and any
 * login waiting for a code), so the owner logs in with the password alone (an admin is asked to
 * set it up again). Every session and API token of the account ends with it. Resetting
 * another admin's factor asks the acting admin to re-authenticate first (their password, and a
 * code when their own two-step login is on). Recorded in the audit trail; the owner is told by
 * their notification channel.
 */
export async function resetTwoFactor(
  actor: Pick<Actor, "id" | "accountType">,
  userId: string,
  client: Client,
  proof: { password?: string | null } & Proof = {},
) {
  if (actor.accountType !== "Admin") throw new DomainError("forbidden", "api.forbidden");
  if (actor.id === userId) throw new DomainError("invalid", "mfa.cannotResetSelf");
  const user = /^[a-f0-9]{24}$/.test(userId) ? await findUserById(userId) : undefined;
  if (!user) throw new DomainError("not_found", "api.notFound");
  if (!(await factorOf(user.id))?.confirmedAt) throw new DomainError("conflict", "mfa.notOnForUser");
  if (user.accountType === "Admin") {
    if (!proof.password)
      throw new DomainError("invalid", "mfa.adminReauthRequired", {
        fieldErrors: { password: ["accounts.passwordRequired"] },
      });
    await reauthenticate(actor, { ...proof, password: proof.password }, client);
  }
  await transaction(function* (tx) {
    const gone = yield* rows(
      tx
        .delete(totpFactors)
        .where(eq(totpFactors.userId, user.id))
        .returning({ confirmedAt: totpFactors.confirmedAt }),
    );
    if (!gone[0]?.confirmedAt) throw new DomainError("conflict", "mfa.notOnForUser");
    yield* exec(tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, user.id)));
    yield* exec(tx.delete(mfaChallenges).where(eq(mfaChallenges.userId, user.id)));
    yield* exec(auditInsert(tx, actor, "account.2fa_reset", "user", user.id, null, client.ip));
  });
  await revokeAllSessions(user.id);
  notify(user, {
    subject: "mfa.mailResetSubject",
    body: "mfa.mailResetBody",
    action: "mfa.mailAction",
    path: "/dashboard/settings",
    sms: CHANGED_SMS,
  });
  return user;
}

// ---------------------------------------------------------------------------------------------
// Login challenges

/** After a right password (or SMS code): what the login still needs, or null for none. */
export async function secondStepFor(user: UserRow): Promise<ChallengeMode | null> {
  if (await hasTwoFactor(user.id)) return "code";
  return requiredFor(user) ? "enrol" : null;
}

/**
 * Opens a challenge: the token goes to the browser (cookie) or API client, only its hash is kept.
 * An enrolment challenge replaces the account's other challenges: only the newest login can see
 * or confirm the secret being set up (an older login, perhaps someone else's, is over).
 */
export async function openChallenge(userId: string, kind: "web" | "api", mode: ChallengeMode) {
  const token = newToken();
  const now = Date.now();
  const expiresAt = new Date(now + CHALLENGE_TTL_MS);
  await transaction(function* (tx) {
    if (mode === "enrol") yield* exec(tx.delete(mfaChallenges).where(eq(mfaChallenges.userId, userId)));
    yield* exec(
      tx.insert(mfaChallenges).values({
        id: newId(),
        tokenHash: sha256(token),
        userId,
        kind,
        attempts: 0,
        expiresAt,
        createdAt: new Date(now),
      }),
    );
  });
  return { token, expiresAt };
}

async function liveChallenge(token: string | null | undefined, kind: "web" | "api") {
  if (!token || token.length > 200) return undefined;
  const row = await first(
    db()
      .select()
      .from(mfaChallenges)
      .where(and(eq(mfaChallenges.tokenHash, sha256(token)), eq(mfaChallenges.kind, kind))),
  );
  if (!row || row.expiresAt.getTime() <= Date.now() || row.attempts >= CHALLENGE_MAX_ATTEMPTS)
    return undefined;
  return row;
}

const expired = () => new DomainError("not_authenticated", "mfa.challengeExpired");

/** The live challenge's account and what it waits for, or null (unknown, expired, used, too many tries). */
export async function challengeState(token: string | null | undefined, kind: "web" | "api") {
  const row = await liveChallenge(token, kind);
  if (!row) return null;
  const user = await findUserById(row.userId);
  if (!user || user.suspendedAt) return null;
  const mode = await secondStepFor(user);
  if (!mode) return null;
  return { user, mode, expiresAt: row.expiresAt, attemptsLeft: CHALLENGE_MAX_ATTEMPTS - row.attempts };
}

/**
 * An admin who must set up two-step login before getting a session: the secret for this login.
 * Each new login gets a new secret (one made for an earlier login, which someone else holding the
 * password could have asked for, is replaced); reloading keeps the same one.
 */
export async function challengeSetup(
  token: string | null | undefined,
  kind: "web" | "api",
): Promise<SetupInfo> {
  const row = await liveChallenge(token, kind);
  if (!row) throw expired();
  const user = await findUserById(row.userId);
  if (!user || user.suspendedAt) throw expired();
  if (await hasTwoFactor(user.id)) throw new DomainError("conflict", "mfa.alreadyOn");
  if (!requiredFor(user)) throw expired();
  await writePendingSecret(user, row.createdAt);
  const factor = await factorOf(user.id);
  if (!factor || factor.confirmedAt) throw new DomainError("conflict", "mfa.alreadyOn");
  return setupInfo(user, factor);
}

/**
 * The second step of a login: a code or a recovery code for an enabled factor, or — for an admin
 * who is setting it up — the first code from the new authenticator (the recovery codes come back
 * once). Every try counts (5 per challenge, taken before checking so parallel tries cannot slip
 * past); the challenge is deleted when it succeeds, and after the last wrong try.
 */
export async function passChallenge(
  token: string | null | undefined,
  kind: "web" | "api",
  proof: Proof,
  client: Client,
): Promise<{ user: UserRow; recoveryCodes: string[] | null; via: "code" | "recovery" | "enrol" }> {
  const row = await liveChallenge(token, kind);
  if (!row) throw expired();
  const took = await db()
    .update(mfaChallenges)
    .set({ attempts: sql`${mfaChallenges.attempts} + 1` })
    .where(and(eq(mfaChallenges.id, row.id), lt(mfaChallenges.attempts, CHALLENGE_MAX_ATTEMPTS)))
    .returning({ attempts: mfaChallenges.attempts });
  if (took.length !== 1) throw await tooManyTries(row.id);
  const attempts = took[0].attempts;
  const dropChallenge = () => db().delete(mfaChallenges).where(eq(mfaChallenges.id, row.id));
  const user = await findUserById(row.userId);
  if (!user) {
    await dropChallenge();
    throw expired();
  }
  if (user.suspendedAt) {
    await dropChallenge();
    throw new DomainError("forbidden", "accounts.suspended");
  }
  const factor = await factorOf(user.id);
  try {
    if (factor?.confirmedAt) {
      const via = await checkProof(user, factor, proof, client);
      const gone = await dropChallenge().returning({ id: mfaChallenges.id });
      if (gone.length !== 1) throw expired();
      if (via === "recovery") await recoveryCodeUsed(user, client);
      return { user, recoveryCodes: null, via };
    }
    if (!requiredFor(user)) {
      // The factor was reset while this login waited: the password alone is enough now.
      await dropChallenge();
      throw expired();
    }
    if (!factor || factor.createdAt < row.createdAt) throw new DomainError("invalid", "mfa.setupFirst");
    const codes = await confirmPending(user, proof.code, client, row.id);
    return { user, recoveryCodes: codes, via: "enrol" };
  } catch (err) {
    if (
      err instanceof DomainError &&
      err.code === "invalid" &&
      err.message !== "mfa.setupFirst" &&
      attempts >= CHALLENGE_MAX_ATTEMPTS
    ) {
      throw await tooManyTries(row.id);
    }
    if (err instanceof DomainError && err.code === "invalid" && err.message === "mfa.codeWrong") {
      const left = CHALLENGE_MAX_ATTEMPTS - attempts;
      throw new DomainError("invalid", "mfa.codeWrongLeft", {
        fieldErrors: { code: ["mfa.codeWrong"] },
        values: { left },
      });
    }
    throw err;
  }
}

/** The challenge is spent: it is deleted, and the login starts again with the password. */
async function tooManyTries(challengeId: string) {
  await db().delete(mfaChallenges).where(eq(mfaChallenges.id, challengeId));
  return new DomainError("not_authenticated", "mfa.tooManyTries");
}

/** A recovery code opened a session: recorded, and the owner is told (with how many are left). */
async function recoveryCodeUsed(user: UserRow, client: Client) {
  const { recoveryCodesLeft } = await twoFactorStatus(user);
  await audit(user, "account.2fa_recovery_login", "user", user.id, { left: recoveryCodesLeft }, client.ip);
  notify(user, {
    subject: "mfa.mailRecoveryUsedSubject",
    body: "mfa.mailRecoveryUsedBody",
    action: "mfa.mailAction",
    path: "/dashboard/settings",
    sms: CHANGED_SMS,
    vars: { count: recoveryCodesLeft },
  });
}

/** Removes expired challenges and setups nobody finished within a day. */
export async function pruneTwoFactorTables() {
  await db().delete(mfaChallenges).where(lt(mfaChallenges.expiresAt, new Date()));
  await db()
    .delete(totpFactors)
    .where(
      and(isNull(totpFactors.confirmedAt), lt(totpFactors.createdAt, new Date(Date.now() - PENDING_TTL_MS))),
    );
}
