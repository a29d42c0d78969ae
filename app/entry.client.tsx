import { RemixBrowser } from "@remix-run/react";
import { startTransition, StrictMode } from "react";
import { hydrateRoot } from "react-dom/client";
import { FALLBACK_LOCALE, isLocale } from "~/i18n/config";
import { startBrowserI18n } from "~/i18n/i18n.browser";
import { loadMissing, pageStrings, startStringLoading } from "~/i18n/strings.browser";

function hydrate() {
  const lang = document.documentElement.lang;
  const locale = isLocale(lang) ? lang : FALLBACK_LOCALE;
  // Only this page's strings came with it (never a whole catalogue); see strings.browser.ts. The
  // browser's own translator reads them (decision 0094: i18next stays on the server).
  const page = pageStrings();
  const i18n = startBrowserI18n(locale, page.s, loadMissing);
  startStringLoading(i18n, page);
  startTransition(() => {
    hydrateRoot(
      document,
      <StrictMode>
        <RemixBrowser />
      </StrictMode>,
    );
  });
}

hydrate();
