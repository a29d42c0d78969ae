import { useTranslation } from "~/i18n/useTranslation";
import { DEFAULT_TIME_ZONE, formatDateTime, formatDay } from "~/lib/format";
import { useHydrated } from "./useHydrated";

/**
 * A <time> in the UI language: dd MMM yyyy, or with the time of day. The server (and the
 * hydrating render) use India's zone; the browser then shows its own local time.
 */
export function LocalDate({ iso, withTime = false }: { iso: string | null | undefined; withTime?: boolean }) {
  const { i18n } = useTranslation();
  const hydrated = useHydrated();
  if (!iso) return null;
  const zone = hydrated ? undefined : DEFAULT_TIME_ZONE;
  const text = withTime ? formatDateTime(iso, i18n.language, zone) : formatDay(iso, i18n.language, zone);
  return <time dateTime={iso}>{text}</time>;
}

/** The same text as LocalDate, for strings such as "Submitted on {{date}}". */
export function useDateText() {
  const { i18n } = useTranslation();
  const hydrated = useHydrated();
  const zone = hydrated ? undefined : DEFAULT_TIME_ZONE;
  return {
    day: (iso: string) => formatDay(iso, i18n.language, zone),
    dateTime: (iso: string) => formatDateTime(iso, i18n.language, zone),
  };
}
