import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { catalogueLoaders, isLocale, NAMESPACE } from "./config";

/** Keeps the browser's i18next on the language the server rendered with. */
export function useLocaleSync(locale: string) {
  const { i18n } = useTranslation();
  useEffect(() => {
    if (!isLocale(locale) || i18n.language === locale) return;
    let cancelled = false;
    void catalogueLoaders[locale]().then((mod) => {
      if (cancelled) return;
      if (!i18n.hasResourceBundle(locale, NAMESPACE)) {
        i18n.addResourceBundle(locale, NAMESPACE, mod.default, true, true);
      }
      void i18n.changeLanguage(locale);
    });
    return () => {
      cancelled = true;
    };
  }, [locale, i18n]);
}
