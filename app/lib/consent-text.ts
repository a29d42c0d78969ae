import { intlTag } from "~/i18n/config";

/** When the consent text was written, in words of the page's language ("नवंबर 2026"), from its version code. */
export function consentTextDate(version: string, locale: string): string {
  const m = /(\d{4})-(\d{2})$/.exec(version);
  if (!m) return version;
  return new Intl.DateTimeFormat(intlTag(locale), { month: "long", year: "numeric", timeZone: "UTC" }).format(
    Date.UTC(Number(m[1]), Number(m[2]) - 1, 1),
  );
}
