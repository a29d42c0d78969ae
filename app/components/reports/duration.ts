import type { TFunction } from "i18next";

/**
 * A waiting or turnaround time in words: "45 min", "7 h", "2 d 4 h" — with non-breaking spaces, so
 * a line (or a narrow table cell) may break before or after it, never inside it.
 */
export function formatDuration(ms: number, t: TFunction): string {
  return inWords(ms, t).replaceAll(" ", "\u00a0");
}

function inWords(ms: number, t: TFunction): string {
  const minutes = Math.max(0, Math.floor(ms / 60_000));
  if (minutes < 60) return t("turnaround.minutes", { count: minutes });
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return t("turnaround.hours", { count: hours });
  return t("turnaround.daysHours", { days: Math.floor(hours / 24), hours: hours % 24 });
}
