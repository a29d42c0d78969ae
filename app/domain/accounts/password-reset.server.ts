import { and, eq, isNull } from "drizzle-orm";
import { config } from "~/config.server";
import { db, exec, first, rows, transaction } from "~/db/client.server";
import { passwordResetTokens, users } from "~/db/schema";
import { getT } from "~/i18n/i18n.server";
import { site } from "~/site";
import { newId, newToken, sha256 } from "~/lib/ids.server";
import type { Client } from "../platform/client";
import { DomainError } from "../platform/errors";
import { queueMail, simpleHtml } from "../messaging/index.server";
import { limit } from "../platform/index.server";
import { revokeAllSessions, type Actor } from "./sessions.server";
import { findUserByEmail, findUserById, findUserByPhone, normalizeEmail } from "./users.server";
import { checkCode, issueCode, latestCode, limitSmsCode, loc, smsPhone, checkedPhone } from "./codes.server";
import { assertPasswordNotCommon, hashPassword } from "./passwords.server";
import { confirmOwnPassword } from "./two-factor.server";

/**
 * Passwords forgotten and changed: the 15-minute reset link by mail, the reset code by SMS for
 * phone accounts, and the signed-in change of password. Each ends the account's other sessions.
 */

const RESET_TTL_MS = 15 * 60 * 1000;

/**
 * Always answers the same, in the same time: the mail with the 15-minute single-use link (only
 * when the account exists) is queued in the mail outbox (decision 0061), so the answer never
 * waits for SMTP; a mail server that is down gets it when it returns, never after the link expired.
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
  const expiresAt = new Date(Date.now() + RESET_TTL_MS);
  await db()
    .insert(passwordResetTokens)
    .values({
      id: newId(),
      tokenHash: sha256(token),
      userId: user.id,
      expiresAt,
    });
  const t = await getT(loc(user.locale));
  const link = `${config().appUrl}/update-password/${token}`;
  const vars = { product: site.productName, minutes: 15, link };
  await queueMail({
    to: user.email,
    purpose: "reset-link",
    expiresAt,
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
