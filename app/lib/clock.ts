/**
 * The clinic's clock (decision 0092): wall-clock time in a named time zone, whatever zone the
 * server itself is set to. Every schedule that speaks of an hour of the day (BACKUP_AT, the call
 * windows) works out its instants here from CLINIC_TIME_ZONE, never from the process's local time.
 */

export type WallClock = { year: number; month: number; day: number; hour: number; minute: number };

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** What a clock in `timeZone` reads at `instant` (month 1–12). */
export function wallClock(instant: number, timeZone: string): WallClock {
  const parts = formatter(timeZone).formatToParts(new Date(instant));
  const get = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value);
  return {
    year: get("year"),
    month: get("month"),
    day: get("day"),
    hour: get("hour"),
    minute: get("minute"),
  };
}

/** Minutes `timeZone` is ahead of UTC at `instant` (India: 330). */
function offsetMinutes(instant: number, timeZone: string): number {
  const w = wallClock(instant, timeZone);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute);
  return Math.round((asUtc - (instant - (instant % 60_000))) / 60_000);
}

/**
 * The instant a clock in `timeZone` reads the given day and minute. Days and hours out of range
 * roll over as with `Date.UTC` (day 0 is the month's last day before). A time a summer-time change
 * skips is taken at the offset before the change; a time it repeats, the first time.
 */
export function zonedInstant(
  timeZone: string,
  w: { year: number; month: number; day: number; hour?: number; minute?: number },
): number {
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour ?? 0, w.minute ?? 0);
  const first = asUtc - offsetMinutes(asUtc, timeZone) * 60_000;
  const second = asUtc - offsetMinutes(first, timeZone) * 60_000;
  return Math.min(first, second);
}
