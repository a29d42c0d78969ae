import { useEffect } from "react";
import { useTranslation } from "~/i18n/useTranslation";
import { isLocale } from "./config";
import { loadShownRoutesIn } from "./strings.browser";

/** Keeps the browser's i18next on the language the server rendered with (strings of the shown routes). */
export function useLocaleSync(locale: string) {
  const { i18n } = useTranslation();
  useEffect(() => {
    if (!isLocale(locale) || i18n.language === locale) return;
    let cancelled = false;
    void loadShownRoutesIn(locale, i18n.language)
      .catch(() => undefined)
      .then(() => {
        if (!cancelled) void i18n.changeLanguage(locale);
      });
    return () => {
      cancelled = true;
    };
  }, [locale, i18n]);
}
