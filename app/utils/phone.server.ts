import { parsePhoneNumberFromString } from "libphonenumber-js";
import { phoneCandidate } from "./phone-shape";

/**
 * Mobile numbers (issue 13), checked against libphonenumber-js's metadata on the server only.
 * Stored in E.164 (+919876543210).
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

/** +919876543210 → "+91 ******3210": enough for a person to recognise their own number. */
export function maskPhone(e164: string | null | undefined): string {
  if (!e164) return "";
  const p = parsePhoneNumberFromString(e164);
  const cc = p ? `+${p.countryCallingCode}` : e164.slice(0, 3);
  const rest = p ? String(p.nationalNumber) : e164.slice(3);
  return `${cc} ${"*".repeat(Math.max(0, rest.length - 4))}${rest.slice(-4)}`;
}
