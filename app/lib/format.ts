import { intlTag } from "~/i18n/config";

/**
 * Date, time and size formatting for the screens, in the UI language (`intlTag(locale)`).
 * Server and browser share these; the time zone is passed in (see LocalDate), so a server
 * render and the browser's first render give the same text.
 */

/** Where most of our users live: the zone used until the browser's own zone is known. */
export const DEFAULT_TIME_ZONE = "Asia/Kolkata";

function toDate(value: string | number | Date): Date | null {
  const d = value instanceof Date ? value : new Date(value);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** The spec's submission date format, dd MMM yyyy (e.g. "05 Mar 2025"), in any language. */
export function formatDay(value: string | number | Date, locale: string, timeZone?: string): string {
  const d = toDate(value);
  if (!d) return "";
  const parts = new Intl.DateTimeFormat(intlTag(locale), {
    day: "2-digit",
    month: "short",
    year: "numeric",
    timeZone,
  }).formatToParts(d);
  const get = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? "";
  return `${get("day")} ${get("month")} ${get("year")}`;
}

/** A date with the time of day, e.g. "05 Mar 2025, 3:04 pm". */
export function formatDateTime(value: string | number | Date, locale: string, timeZone?: string): string {
  const d = toDate(value);
  if (!d) return "";
  const time = new Intl.DateTimeFormat(intlTag(locale), {
    hour: "numeric",
    minute: "2-digit",
    timeZone,
  }).format(d);
  return `${formatDay(d, locale, timeZone)}, ${time}`;
}

/** A file size such as "240 KB" or "3.4 MB". */
export function formatBytes(bytes: number, locale: string): string {
  const tag = intlTag(locale);
  if (!Number.isFinite(bytes) || bytes < 0) return "";
  if (bytes < 1024)
    return new Intl.NumberFormat(tag, { style: "unit", unit: "byte", unitDisplay: "short" }).format(bytes);
  if (bytes < 1024 * 1024) {
    return new Intl.NumberFormat(tag, {
      style: "unit",
      unit: "kilobyte",
      unitDisplay: "short",
      maximumFractionDigits: 0,
    }).format(bytes / 1024);
  }
  return new Intl.NumberFormat(tag, {
    style: "unit",
    unit: "megabyte",
    unitDisplay: "short",
    maximumFractionDigits: 1,
  }).format(bytes / (1024 * 1024));
}

/**
 * A time zone named in words of the language ("India Standard Time", "भारतीय मानक समय"), never as
 * its IANA id ("Asia/Kolkata"): the zone's generic long name, else its long name, else the id when
 * the language has no name for it but an offset.
 */
export function zoneName(timeZone: string, locale: string): string {
  const named = (style: "longGeneric" | "long") => {
    try {
      return new Intl.DateTimeFormat(intlTag(locale), { timeZone, timeZoneName: style })
        .formatToParts(new Date())
        .find((p) => p.type === "timeZoneName")?.value;
    } catch {
      return undefined;
    }
  };
  // "GMT+03:00" (or "GMT" alone) is an offset, not a name.
  const words = (name: string | undefined) =>
    name && !/[+\-\u2212]\s*\p{Nd}|^(GMT|UTC)$/u.test(name) ? name : null;
  return words(named("longGeneric")) ?? words(named("long")) ?? timeZone;
}
