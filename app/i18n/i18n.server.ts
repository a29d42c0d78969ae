import { createCookie } from "@remix-run/node";
import { createInstance, type TFunction } from "i18next";
import { RemixI18Next } from "remix-i18next/server";
import { rememberStrings } from "./resolved.server";
import { FALLBACK_LOCALE, i18nOptions, isLocale, NAMESPACE, SUPPORTED_LOCALES, type Locale } from "./config";
import en from "./locales/en";

type Catalogue = typeof en;
type Resources = Partial<Record<Locale, { [NAMESPACE]: Catalogue }>>;

/**
 * Each language's catalogue. English comes with the server build (it is every other language's
 * fallback); Hindi, Bengali and Tamil are chunks of their own, loaded on the first request in that
 * language: a start no longer reads, compiles and builds about a megabyte of strings that most
 * servers' first requests never show (decision 0121).
 */
const LOADERS: Record<Exclude<Locale, "en">, () => Promise<{ default: unknown }>> = {
  hi: () => import("./locales/hi"),
  bn: () => import("./locales/bn"),
  ta: () => import("./locales/ta"),
};
const loaded: Partial<Record<Locale, Catalogue>> = { en };
const loading = new Map<Locale, Promise<Catalogue>>();

/** A language's catalogue, loaded once (two first requests in one language share the load). */
export function loadCatalogue(locale: Locale): Promise<Catalogue> {
  const have = loaded[locale];
  if (have) return Promise.resolve(have);
  let load = loading.get(locale);
  if (!load) {
    load = LOADERS[locale as Exclude<Locale, "en">]().then(
      (m) => (loaded[locale] = m.default as Catalogue),
      (err: unknown) => {
        loading.delete(locale); // the next request tries again
        throw err;
      },
    );
    loading.set(locale, load);
  }
  return load;
}

/** A catalogue already loaded (loadCatalogue first: every render and i18next instance does). */
export function loadedCatalogue(locale: Locale): Catalogue {
  const have = loaded[locale];
  if (!have) throw new Error(`the ${locale} catalogue is read before it was loaded`);
  return have;
}

/** i18next's resources for one language: its catalogue and English, its fallback. */
export async function resourcesFor(locale: Locale): Promise<Resources> {
  const own = await loadCatalogue(locale);
  return { en: { [NAMESPACE]: en }, [locale]: { [NAMESPACE]: own } };
}

/** Every language's resources (the tests' comparisons of the catalogues). */
export async function allResources(): Promise<Required<Resources>> {
  const all: Resources = {};
  for (const locale of SUPPORTED_LOCALES) all[locale] = { [NAMESPACE]: await loadCatalogue(locale) };
  return all as Required<Resources>;
}

/** Visitors' language choice. Signed-in users' choice is also kept on their account. */
export const localeCookie = createCookie("lng", {
  path: "/",
  sameSite: "lax",
  httpOnly: true,
  maxAge: 60 * 60 * 24 * 365,
});

export const remixI18n = new RemixI18Next({
  detection: {
    supportedLanguages: SUPPORTED_LOCALES,
    fallbackLanguage: FALLBACK_LOCALE,
    cookie: localeCookie,
  },
  i18next: { ...i18nOptions },
});

/** The request's language: cookie, then Accept-Language, then English. */
export async function getLocale(request: Request): Promise<Locale> {
  const found = await remixI18n.getLocale(request);
  return isLocale(found) ? found : FALLBACK_LOCALE;
}

const instances = new Map<Locale, TFunction>();

/** A translator fixed to one language (for loaders, actions, toasts and e-mails). */
export async function getT(locale: Locale): Promise<TFunction> {
  let t = instances.get(locale);
  if (!t) {
    const instance = createInstance();
    await instance.init({ ...i18nOptions, lng: locale, resources: await resourcesFor(locale) });
    t = rememberStrings(instance.getFixedT(locale, NAMESPACE));
    instances.set(locale, t);
  }
  return t;
}

export async function tFor(request: Request) {
  const locale = await getLocale(request);
  return { locale, t: await getT(locale) };
}
