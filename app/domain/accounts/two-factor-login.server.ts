import { and, eq, isNull, lt, sql } from "drizzle-orm";
import { db, exec, first, transaction } from "~/db/client.server";
import { mfaChallenges, totpFactors, type UserRow } from "~/db/schema";
import { newId, newToken, sha256 } from "~/lib/ids.server";
import { audit } from "../platform/index.server";
import type { Client } from "../platform/client";
import { DomainError } from "../platform/errors";
import { notify } from "../messaging/index.server";
import { findUserById } from "./users.server";
import {
  CHALLENGE_MAX_ATTEMPTS,
  CHALLENGE_TTL_MS,
  CHANGED_SMS,
  checkProof,
  factorOf,
  hasTwoFactor,
  PENDING_SETUP_TTL_MS,
  requiredFor,
  setupInfo,
  twoFactorStatus,
  type ChallengeMode,
  type Proof,
  type SetupInfo,
} from "./two-factor.server";
import { confirmPending, writePendingSecret } from "./two-factor-setup.server";

/**
 * Two-step login at login time (decision 0017): whether a login needs a second step, the challenge
 * that waits for it (5 minutes, 5 tries), and passing it with a code, a recovery code or — for an
 * admin who must set it up — the first code of the new authenticator.
 */

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
      and(
        isNull(totpFactors.confirmedAt),
        lt(totpFactors.createdAt, new Date(Date.now() - PENDING_SETUP_TTL_MS)),
      ),
    );
}
