import { createCookie } from "@remix-run/node";
import { createInstance, type TFunction } from "i18next";
import { RemixI18Next } from "remix-i18next/server";
import { rememberStrings } from "./resolved.server";
import { FALLBACK_LOCALE, i18nOptions, isLocale, NAMESPACE, SUPPORTED_LOCALES, type Locale } from "./config";
import en from "./locales/en";
import hi from "./locales/hi";
import bn from "./locales/bn";
import ta from "./locales/ta";

export const resources = {
  en: { [NAMESPACE]: en },
  hi: { [NAMESPACE]: hi },
  bn: { [NAMESPACE]: bn },
  ta: { [NAMESPACE]: ta },
};

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
  i18next: { ...i18nOptions, resources },
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
    await instance.init({ ...i18nOptions, lng: locale, resources });
    t = rememberStrings(instance.getFixedT(locale, NAMESPACE));
    instances.set(locale, t);
  }
  return t;
}

export async function tFor(request: Request) {
  const locale = await getLocale(request);
  return { locale, t: await getT(locale) };
}
