import type { i18n as I18n } from "i18next";
import { useContext } from "react";
import { getI18n, I18nContext, type useTranslation as useReactTranslation } from "react-i18next";
import { NAMESPACE } from "./config";
import { useBrowserTranslation } from "./i18n.browser";

type Translation = ReturnType<typeof useReactTranslation>;

const forRender = new WeakMap<I18n, Translation>();

/**
 * While the server draws a page its language never changes and nothing re-renders, so all that
 * react-i18next's hook does per component (options merged, namespaces checked as loaded, a
 * translator asked for, four hooks and two effects) gives the same answer every time. A list
 * page calls it about a hundred times (each badge and flag of each row): here it is one context
 * read, and the answer is made once per render (the render's i18n view is per request).
 */
function useServerTranslation(): Translation {
  const i18n = (useContext(I18nContext)?.i18n ?? getI18n()) as I18n;
  let made = forRender.get(i18n);
  if (!made) {
    const t = i18n.getFixedT(null, NAMESPACE);
    made = Object.assign([t, i18n, true], { t, i18n, ready: true }) as unknown as Translation;
    forRender.set(i18n, made);
  }
  return made;
}

/**
 * The app's `useTranslation()`: the browser's own translator there (i18n.browser.ts: it follows
 * language changes and strings that arrive; decision 0094), a light one over i18next while the
 * server renders. Vite sets `import.meta.env.SSR` per build, so the browser's bundle carries
 * neither i18next nor react-i18next.
 */
export const useTranslation: () => Translation = import.meta.env.SSR
  ? useServerTranslation
  : (useBrowserTranslation as unknown as () => Translation);
