import { createHmac, randomInt, timingSafeEqual } from "node:crypto";
import { and, desc, eq, isNull, lt, or, sql } from "drizzle-orm";
import { config } from "~/config.server";
import { db, exec, first, transaction } from "~/db/client.server";
import { passwordResetTokens, verificationCodes, type UserRow } from "~/db/schema";
import { isLocale, type Locale } from "~/i18n/config";
import { newId } from "~/lib/ids.server";
import type { Client } from "../platform/client";
import { DomainError } from "../platform/errors";
import { limit, limitSms, type SmsCeiling } from "../platform/index.server";
import { isKnownDeviceOf } from "./sessions.server";
import { smsNumber, validE164 } from "~/lib/phone.server";
import { sendAccountExistsNotice, sendCode, type CodePurpose } from "../messaging/index.server";
import { findUserByEmail, findUserByPhone } from "./users.server";
import { pruneTwoFactorTables } from "./two-factor-login.server";

/**
 * The 6-digit codes of signup, login and password reset, by e-mail or by SMS: issuing one, checking
 * it (single use, 10 minutes, 5 tries), the SMS budgets, and the numbers they go to. Also the
 * clean-up of used and expired codes and reset tokens.
 */

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
export const PENDING_TTL_MS = 24 * 60 * 60 * 1000;

function codeHash(rowId: string, code: string) {
  return createHmac("sha256", config().sessionSecret).update(`${rowId}:${code}`).digest("hex");
}

function sameHash(a: string, b: string) {
  const x = Buffer.from(a, "hex");
  const y = Buffer.from(b, "hex");
  return x.length === y.length && timingSafeEqual(x, y);
}
export const loc = (l: string | undefined): Locale => (isLocale(l) ? l : "en");

/** Where a code goes: an e-mail address, or a mobile number (E.164) by SMS. */
export type CodeTarget = { email: string; phone?: undefined } | { phone: string; email?: undefined };

const codeOwner = (target: CodeTarget) =>
  target.phone ? eq(verificationCodes.phone, target.phone) : eq(verificationCodes.email, target.email!);

/**
 * A code that proves a number for one profile (purpose "prove", decision 0102) is that profile's:
 * its payload is the profile's id, a new one ends only that profile's older codes, and it is
 * looked up with the profile — a code sent to the same number for another profile never proves it.
 */
const scopeOf = (purpose: CodePurpose, payload: string | null | undefined) =>
  purpose === "prove" ? [eq(verificationCodes.payload, payload ?? "")] : [];

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
            ...scopeOf(purpose, payload),
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
  } catch (err) {
    // A code that did not go out is no code. The refusal is the sender's: a mail server that is
    // down is a 503 with Retry-After (decision 0061), a database that is down its own 503 —
    // never a 400, which would say the person typed something wrong.
    await db()
      .delete(verificationCodes)
      .where(eq(verificationCodes.id, id))
      .catch(() => undefined);
    throw err;
  }
  return id;
}

/** The newest unused code of a purpose for an e-mail or a number (a "prove" code: of the profile `payload`). */
export async function latestCode(target: CodeTarget, purpose: CodePurpose, payload?: string) {
  return first(
    db()
      .select()
      .from(verificationCodes)
      .where(
        and(
          codeOwner(target),
          eq(verificationCodes.purpose, purpose),
          isNull(verificationCodes.consumedAt),
          ...scopeOf(purpose, payload),
        ),
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
export const ownerOf = (target: CodeTarget) =>
  target.phone ? findUserByPhone(target.phone) : findUserByEmail(target.email!);

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

/** Removes used, expired codes and reset tokens (run at start-up and now and then). */
export async function pruneAccountsTables() {
  const cutoff = new Date(Date.now() - PENDING_TTL_MS);
  await db()
    .delete(verificationCodes)
    .where(or(lt(verificationCodes.createdAt, cutoff), lt(verificationCodes.expiresAt, cutoff)));
  await db().delete(passwordResetTokens).where(lt(passwordResetTokens.expiresAt, new Date()));
  await pruneTwoFactorTables();
}
