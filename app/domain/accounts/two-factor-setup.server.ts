import { and, eq, isNull, lt } from "drizzle-orm";
import { Secret } from "otpauth";
import { db, exec, rows, transaction } from "~/db/client.server";
import { mfaChallenges, recoveryCodes, totpFactors, type UserRow } from "~/db/schema";
import { auditInsert } from "../platform/index.server";
import type { Client } from "../platform/client";
import { DomainError } from "../platform/errors";
import { notify } from "../messaging/index.server";
import { forgive, limit } from "../platform/index.server";
import { revokeAllSessions, type Actor } from "./sessions.server";
import { findUserById } from "./users.server";
import {
  CHANGED_SMS,
  checkProof,
  confirmOwnPassword,
  enabledFactor,
  factorOf,
  newRecoveryCodes,
  reauthenticate,
  recoveryRows,
  requiredFor,
  sealSecret,
  setupInfo,
  stepOf,
  userOf,
  type Proof,
  type SetupInfo,
} from "./two-factor.server";

/**
 * Two-step login, the account's own settings (signed in): setting it up, confirming it, new recovery
 * codes, turning it off — and an admin resetting another account's second factor.
 */

// ---------------------------------------------------------------------------------------------
// Setting up, confirming, recovery codes, turning off (the account's own, signed in)

/** Writes a fresh unconfirmed secret, replacing an unfinished setup (never an enabled factor). */
export async function writePendingSecret(user: UserRow, onlyIfOlderThan?: Date) {
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
export async function confirmPending(
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
 * Turns two-step login off after a code (or recovery code). The caller (turnOffTwoFactor, below)
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

/**
 * Turns the account's two-step login off (decision 0017): the password and then a code (or a recovery
 * code) are asked, so neither a session left open nor a stolen phone alone can do it.
 */
export async function turnOffTwoFactor(actor: Actor, input: { password: string } & Proof, client: Client) {
  const user = await findUserById(actor.id);
  if (!user) throw new DomainError("not_authenticated", "api.notAuthenticated");
  await assertMayTurnOff(user);
  await confirmOwnPassword(user, input.password, client, "password", "accounts.currentPasswordWrong");
  await turnOff(user, input, client);
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
