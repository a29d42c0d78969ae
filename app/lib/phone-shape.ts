/**
 * The shape of a mobile number, without libphonenumber-js (whose metadata would add ~25 KB gzip
 * to every page with a login or signup form). Schemas use this on both sides; the server then
 * checks the number for real (`validE164` in phone.server.ts) before it is stored or texted.
 */

/** "+91 98765-43210", "0091…", "09876543210" or "9876543210" (with the dial code chosen) → "+919876543210", or null. */
export function phoneCandidate(input: unknown, defaultCode = "+91"): string | null {
  if (typeof input !== "string") return null;
  const raw = input.replace(/[\s\-().]/g, "");
  if (!/^\+?\d{6,17}$/.test(raw)) return null;
  const code = /^\+[1-9]\d{0,3}$/.test(defaultCode) ? defaultCode.slice(1) : "91";
  const e164 = raw.startsWith("+")
    ? raw
    : raw.startsWith("00")
      ? `+${raw.slice(2)}`
      : `+${code}${raw.replace(/^0+/, "")}`;
  return /^\+[1-9]\d{7,14}$/.test(e164) ? e164 : null;
}

/** Whether a login field holds a phone number rather than an e-mail address. */
export function looksLikePhone(input: string): boolean {
  return !input.includes("@") && /^[+\d][\d\s\-().]{5,}$/.test(input.trim());
}
