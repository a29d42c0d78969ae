import { getCountries, getCountryCallingCode } from "libphonenumber-js";
import { config } from "~/config.server";
import { isDomainError } from "~/domain/platform/errors";
import { intlTag } from "~/i18n/config";
import { pageQuery, pagination, type Paged, type PageQuery } from "~/utils/api.server";

/**
 * Server helpers shared by the report and expert screens (thin adapters over the domain).
 */

/** ?page=&pageSize= as the API reads them; a malformed value on a screen just means page 1. */
export function screenPage(request: Request): PageQuery {
  try {
    return pageQuery(request);
  } catch {
    return { page: 1, pageSize: 20 };
  }
}

export function notFound(): never {
  throw new Response("Not Found", { status: 404 });
}

/**
 * A domain refusal on a page load (another patient's reports, an unknown id) shows the
 * not-found page, so a screen never reveals whether a record exists.
 */
export function pageError(err: unknown): never {
  if (isDomainError(err) && (err.code === "forbidden" || err.code === "not_found")) notFound();
  throw err;
}

export function pageInfo(p: Paged<unknown>) {
  return pagination(p);
}

export type CountryCodeOption = { value: string; label: string; country: string };

const countryCache = new Map<string, CountryCodeOption[]>();

/**
 * Every country's dial code (libphonenumber-js, about 245 entries) — or only `countries` (ISO
 * codes, e.g. SMS_COUNTRIES for the forms whose number gets SMS, issue 19) — named in the UI
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
