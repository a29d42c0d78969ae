import { intlTag } from "~/i18n/config";

/** A notice or retention period in words, in the UI language: "48 hours", "1,095 days", "30 seconds". */
export function formatPeriod(ms: number, locale: string): string {
  const units: [Intl.NumberFormatOptions["unit"], number][] = [
    ["day", 86_400_000],
    ["hour", 3_600_000],
    ["minute", 60_000],
    ["second", 1000],
  ];
  // Days only for whole days of at least a week (the retention); the notice stays in hours.
  const [unit, size] =
    ms >= 7 * 86_400_000 && ms % 86_400_000 === 0
      ? units[0]
      : (units.slice(1).find(([, s]) => ms >= s) ?? units[3]);
  return new Intl.NumberFormat(intlTag(locale), {
    style: "unit",
    unit,
    unitDisplay: "long",
    maximumFractionDigits: 1,
  }).format(ms / size);
}
