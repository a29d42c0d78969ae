import { and, eq, or, sql } from "drizzle-orm";
import { config } from "~/config.server";
import { db } from "~/db/client.server";
import { patients, phoneCalls, reports, users } from "~/db/schema";
import { log } from "~/lib/log.server";
import { maskPhone, numberForms, validE164 } from "~/lib/phone.server";
import { queueCall, recordIncomingCall, refusedCallsToday, unknownCallsToday } from "./queue.server";
import { source } from "./sources.server";

/**
 * Refusals kept as rows a day (decision 0101): a flood of forged calls is said in the log line by
 * line, but fills the table only so far.
 */
const REFUSALS_KEPT_PER_DAY = 1000;

/** Whether `from` is the clinic's own number (VOICE_NUMBER) in any form a trunk or gateway writes. */
export function isOwnNumber(from: string): boolean {
  const own = config().voice.number;
  if (!own) return false;
  const digits = from.replace(/[\s().-]/g, "").replace(/^\+/, "");
  if (!/^\d+$/.test(digits)) return false;
  if (numberForms(own).some((f) => f.replace(/^\+/, "") === digits)) return true;
  return validE164(`+${digits}`) === own;
}

/**
 * A missed call to the clinic's number (decision 0080), from the SIP line or a provider's webhook.
 * It was rejected before it was answered, so it cost the caller nothing. A number on record — a
 * profile's own, its family's or the centre's number for it, or the mobile number of the person's
 * account — brings a callback VOICE_CALLBACK_SECONDS later (one at a time per number, within the
 * number's daily calls). Several profiles on one shared phone: the callback is about the one with
 * the newest opinion (the keypad check tells who answers). An unknown number gets a short general
 * message, at most VOICE_UNKNOWN_PER_DAY a day in all, then nothing. Each missed call is a row of
 * phone_calls whose outcome says what was decided.
 *
 * Refused, never called back (decision 0101), whichever line it came through: a call the SIP line
 * did not get from its trunk (`notFromTrunk`: the address it came from) — "refused-not-trunk"; a
 * call from the clinic's own number in any form — "refused-own-number" (through a trunk, calling
 * it back would call the clinic, which would call itself back).
 */
export async function receiveMissedCall(
  from: string,
  opts: { providerRef?: string | null; notFromTrunk?: string } = {},
): Promise<{ outcome: string; callId?: string }> {
  const raw = from.trim();
  // A provider that reports the same missed call twice (a retried webhook) is answered once.
  if (opts.providerRef) {
    const seen = await db()
      .select({ outcome: phoneCalls.outcome })
      .from(phoneCalls)
      .where(eq(phoneCalls.providerRef, opts.providerRef))
      .limit(1);
    if (seen.length) return { outcome: seen[0].outcome ?? "ignored" };
  }
  const v = config().voice;
  if (opts.notFromTrunk !== undefined || isOwnNumber(raw)) {
    const outcome = opts.notFromTrunk !== undefined ? "refused-not-trunk" : "refused-own-number";
    const number =
      outcome === "refused-own-number" ? v.number! : validE164(raw.startsWith("+") ? raw : `+${raw}`);
    const source = opts.notFromTrunk ?? null;
    log("warn", "missed call refused", {
      from: maskPhone(number ?? raw),
      outcome,
      ...(source ? { source } : {}),
    });
    const kept = Object.values(await refusedCallsToday()).reduce((a, b) => a + b, 0);
    if (number && kept < REFUSALS_KEPT_PER_DAY)
      await recordIncomingCall({
        number,
        patientId: null,
        outcome,
        providerRef: opts.providerRef,
        note: source ? source.slice(0, 100) : null,
      });
    return { outcome };
  }
  const number = validE164(raw.startsWith("+") ? raw : `+${raw}`);
  if (!number) {
    log("info", "a missed call from an unusable number", {});
    return { outcome: "ignored" };
  }
  // A missed call from the trunk proves its number for the profiles that asked to prove it (decision 0102).
  await source("proveByMissedCall")(number);
  const owner = await profileFor(number);
  let outcome: string;
  let callId: string | undefined;
  if (owner) {
    const queued = await queueCall({
      number,
      patientId: owner.id,
      purpose: "callback",
      locale: owner.locale,
      at: new Date(Date.now() + v.callbackDelayMs),
    });
    outcome = queued.queued ? "callback-queued" : queued.reason;
    if (queued.queued) callId = queued.id;
  } else if (v.unknownPerDay > 0 && (await unknownCallsToday()) < v.unknownPerDay) {
    const queued = await queueCall({
      number,
      patientId: null,
      purpose: "general",
      locale: "hi",
      at: new Date(Date.now() + v.callbackDelayMs),
    });
    outcome = queued.queued ? "general-queued" : queued.reason;
    if (queued.queued) callId = queued.id;
  } else outcome = "ignored";
  await recordIncomingCall({ number, patientId: owner?.id ?? null, outcome, providerRef: opts.providerRef });
  log("info", "missed call", { from: maskPhone(number), known: !!owner, outcome });
  return { outcome, callId };
}

/**
 * The profile a number belongs to: the profile's own number or its account's mobile number first,
 * then the contact number the account gave at sign-up — the numbers a call about her goes to
 * (callNumberOf, decision 0093), so she can call back from the phone an opinion call rang.
 */
async function profileFor(number: string): Promise<{ id: string; locale: string } | null> {
  const verified = or(eq(patients.phone, number), eq(users.phone, number))!;
  const rows = await db()
    .select({ id: patients.id, locale: patients.locale, reviewedAt: reports.reviewedAt })
    .from(patients)
    .leftJoin(users, eq(users.id, patients.accountId))
    .leftJoin(reports, and(eq(reports.patientId, patients.id), eq(reports.status, "Reviewed")))
    .where(or(verified, eq(sql`${users.countryCode} || ${users.contactNumber}`, number)))
    .orderBy(sql`case when ${verified} then 0 else 1 end`, sql`${reports.reviewedAt} desc nulls last`)
    .limit(1);
  return rows[0] ? { id: rows[0].id, locale: rows[0].locale } : null;
}
