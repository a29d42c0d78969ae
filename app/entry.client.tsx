import { RemixBrowser } from "@remix-run/react";
import i18next from "i18next";
import { startTransition, StrictMode } from "react";
import { hydrateRoot } from "react-dom/client";
import { I18nextProvider, initReactI18next } from "react-i18next";
import { FALLBACK_LOCALE, i18nOptions, isLocale, NAMESPACE } from "~/i18n/config";
import { loadMissing, pageStrings, startStringLoading } from "~/i18n/strings.browser";

async function hydrate() {
  const lang = document.documentElement.lang;
  const locale = isLocale(lang) ? lang : FALLBACK_LOCALE;
  // Only this page's strings came with it (never a whole catalogue); see strings.browser.ts.
  const page = pageStrings();
  await i18next.use(initReactI18next).init({
    ...i18nOptions,
    lng: locale,
    resources: { [locale]: { [NAMESPACE]: page.s } },
    partialBundledLanguages: true,
    saveMissing: true,
    missingKeyHandler: loadMissing,
    react: { ...i18nOptions.react, bindI18nStore: "added" },
  });
  startStringLoading(i18next, page);
  startTransition(() => {
    hydrateRoot(
      document,
      <I18nextProvider i18n={i18next}>
        <StrictMode>
          <RemixBrowser />
        </StrictMode>
      </I18nextProvider>,
    );
  });
}

void hydrate();
