import { getCountries, getCountryCallingCode } from "libphonenumber-js";
import { config } from "~/config.server";
import { intlTag } from "~/i18n/config";

/** The dial-code lists of the phone number fields, named in the reader's language. */
export type CountryCodeOption = { value: string; label: string; country: string };

const countryCache = new Map<string, CountryCodeOption[]>();

/**
 * Every country's dial code (libphonenumber-js, about 245 entries) — or only `countries` (ISO
 * codes, e.g. SMS_COUNTRIES for the forms whose number gets SMS, decision 0021) — named in the UI
 * language and sorted by that name: value "+91", label "India (+91)".
 */
export function countryCodeOptions(locale: string, countries?: readonly string[]): CountryCodeOption[] {
  const cacheKey = `${locale}|${countries?.join(",") ?? "*"}`;
  const cached = countryCache.get(cacheKey);
  if (cached) return cached;
  const tag = intlTag(locale);
  let names: Intl.DisplayNames | null = null;
  try {
    names = new Intl.DisplayNames([tag, "en"], { type: "region" });
  } catch {
    names = null;
  }
  const collator = new Intl.Collator(tag);
  const list = getCountries()
    .filter((country) => !countries || countries.includes(country))
    .map((country) => {
      const code = `+${getCountryCallingCode(country)}`;
      const name = names?.of(country) ?? country;
      return { value: code, label: `${name} (${code})`, country, name };
    })
    .sort((a, b) => collator.compare(a.name, b.name))
    .map(({ value, label, country }) => ({ value, label, country }));
  countryCache.set(cacheKey, list);
  return list;
}

/** The dial codes of the forms whose number gets an SMS code (signup, SMS login): SMS_COUNTRIES only. */
export function smsCountryCodeOptions(locale: string): CountryCodeOption[] {
  return countryCodeOptions(locale, config().smsCountries);
}
