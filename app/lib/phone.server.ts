import { parsePhoneNumberFromString } from "libphonenumber-js/max";
import { config } from "~/config.server";
import { phoneCandidate } from "./phone-shape";

/**
 * Mobile numbers (decision 0020), checked against libphonenumber-js's full ("max") metadata on the
 * server only (it knows each number range's type: mobile, fixed line, premium rate, toll free …;
 * the browser bundle never carries it). Stored in E.164 (+919876543210).
 */

/** A number typed in any common form (with `defaultCode`, e.g. "+91", when it has none) as valid E.164, or null. */
export function toE164(input: unknown, defaultCode = "+91"): string | null {
  const candidate = phoneCandidate(input, defaultCode);
  return candidate ? validE164(candidate) : null;
}

/** A "+digits" candidate as libphonenumber's E.164 when it is a valid number, else null. */
export function validE164(candidate: string): string | null {
  const parsed = parsePhoneNumberFromString(candidate);
  return parsed && parsed.isValid() ? parsed.number : null;
}

/** Why a number may not get SMS (decision 0021), or null when it may. */
export type SmsRefusal = "invalid" | "country" | "notMobile";

/**
 * Whether a "+digits" candidate may get SMS: a valid number (E.164) of a country in SMS_COUNTRIES
 * whose range is MOBILE — or FIXED_LINE_OR_MOBILE where the country's plan cannot tell (US, CA …).
 * Premium-rate, toll-free, shared-cost, VoIP and fixed-line numbers never get an SMS.
 */
export function smsNumber(
  candidate: string,
): { ok: true; e164: string; country: string } | { ok: false; reason: SmsRefusal } {
  const parsed = parsePhoneNumberFromString(candidate);
  if (!parsed || !parsed.isValid() || !parsed.country) return { ok: false, reason: "invalid" };
  if (!config().smsCountries.includes(parsed.country)) return { ok: false, reason: "country" };
  const type = parsed.getType();
  if (type !== "MOBILE" && type !== "FIXED_LINE_OR_MOBILE") return { ok: false, reason: "notMobile" };
  return { ok: true, e164: parsed.number, country: parsed.country };
}

/** A number typed in any common form as E.164 when it may get SMS (see smsNumber), else null. */
export function smsE164(input: unknown, defaultCode = "+91"): string | null {
  const candidate = phoneCandidate(input, defaultCode);
  if (!candidate) return null;
  const r = smsNumber(candidate);
  return r.ok ? r.e164 : null;
}

/** A number as admins and logs see it: country code and the last 4 digits, e.g. +91******3210. */
export function maskPhone(e164: string | null | undefined): string {
  if (!e164) return "";
  const digits = e164.replace(/\D/g, "");
  if (digits.length <= 4) return `+${"*".repeat(digits.length)}`;
  let cc = "";
  try {
    cc = parsePhoneNumberFromString(`+${digits}`)?.countryCallingCode ?? "";
  } catch {
    cc = "";
  }
  if (digits.length - cc.length < 5) cc = "";
  return `+${cc}${"*".repeat(digits.length - cc.length - 4)}${digits.slice(-4)}`;
}

/** "+919876543210" → { countryCode: "+91", national: "9876543210" }, or null when not a valid number. */
export function splitE164(e164: string | null | undefined): { countryCode: string; national: string } | null {
  const p = e164 ? parsePhoneNumberFromString(e164) : undefined;
  return p?.isValid()
    ? { countryCode: `+${p.countryCallingCode}`, national: String(p.nationalNumber) }
    : null;
}

/**
 * Whether a number may be called (decision 0080): a valid number of a country in SMS_COUNTRIES (the
 * one allow-list for everything that reaches a phone) on a mobile or fixed line — never premium-rate,
 * toll-free, shared-cost or VoIP, which cost the clinic or reach a service rather than a person.
 */
export function callableNumber(
  candidate: string,
): { ok: true; e164: string } | { ok: false; reason: SmsRefusal } {
  const parsed = parsePhoneNumberFromString(candidate);
  if (!parsed || !parsed.isValid() || !parsed.country) return { ok: false, reason: "invalid" };
  if (!config().smsCountries.includes(parsed.country)) return { ok: false, reason: "country" };
  const type = parsed.getType();
  if (type !== "MOBILE" && type !== "FIXED_LINE_OR_MOBILE" && type !== "FIXED_LINE")
    return { ok: false, reason: "notMobile" };
  return { ok: true, e164: parsed.number };
}

/**
 * The ways a trunk or a GSM gateway may address an E.164 number (decision 0093): international
 * (+911140000000, 911140000000, 00911140000000), national with its trunk prefix (01140000000) and
 * bare (1140000000). Empty for a number that is not valid.
 */
export function numberForms(e164: string | null | undefined): string[] {
  const parsed = e164 ? parsePhoneNumberFromString(e164) : undefined;
  if (!parsed || !parsed.isValid()) return [];
  const digits = parsed.number.slice(1);
  const national = parsed.formatNational().replace(/\D/g, "");
  return [...new Set([parsed.number, digits, `00${digits}`, national, String(parsed.nationalNumber)])];
}
