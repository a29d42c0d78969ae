/**
 * What one text costs (decision 0014): which encoding it goes out in and how many SMS it takes.
 */

/** GSM 03.38 default alphabet (one septet each; ESC itself is not a character of a text). */
const GSM_BASIC = new Set(
  "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?" +
    "¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà",
);
/** The extension table: ESC + one septet, so two units each. */
const GSM_EXTENDED = new Set("\f^{}\\[~]|€");

/**
 * How a text goes out and how many SMS it takes: GSM 7-bit when every character is in the GSM
 * 03.38 default alphabet (extension characters such as € { } [ ] count 2), 160 units in one SMS
 * or 153 per part of a longer one; otherwise UCS-2 (Hindi, Bengali, Tamil …), counted in UTF-16
 * code units, 70 in one SMS or 67 per part.
 */
export function smsSegments(text: string): { encoding: "gsm" | "ucs2"; units: number; segments: number } {
  let septets = 0;
  for (const ch of text) {
    if (GSM_BASIC.has(ch)) septets += 1;
    else if (GSM_EXTENDED.has(ch)) septets += 2;
    else {
      const units = text.length;
      return { encoding: "ucs2", units, segments: units <= 70 ? 1 : Math.ceil(units / 67) };
    }
  }
  return { encoding: "gsm", units: septets, segments: septets <= 160 ? 1 : Math.ceil(septets / 153) };
}
