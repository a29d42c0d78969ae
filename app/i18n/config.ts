export const LANGUAGES = [
  { code: "en", label: "English", intl: "en-IN" },
  { code: "hi", label: "हिन्दी", intl: "hi-IN" },
  { code: "bn", label: "বাংলা", intl: "bn-IN" },
  { code: "ta", label: "தமிழ்", intl: "ta-IN" },
] as const;

export type Locale = (typeof LANGUAGES)[number]["code"];
export const SUPPORTED_LOCALES = LANGUAGES.map((l) => l.code) as Locale[];
export const FALLBACK_LOCALE: Locale = "en";
export const NAMESPACE = "common";

export function isLocale(value: unknown): value is Locale {
  return typeof value === "string" && (SUPPORTED_LOCALES as string[]).includes(value);
}

/** Each language's name in the screen's language, for a sentence that names one ("मरीज़ अंग्रेज़ी में…"). */
export const LANGUAGE_NAME_KEYS: Record<Locale, string> = {
  en: "common.languageNames.en",
  hi: "common.languageNames.hi",
  bn: "common.languageNames.bn",
  ta: "common.languageNames.ta",
};

/** The key of a language's name in the screen's language (the code itself when it is none of ours). */
export const languageNameKey = (code: string) => (isLocale(code) ? LANGUAGE_NAME_KEYS[code] : code);

/** The BCP 47 tag `Intl` formats with for a locale. */
export function intlTag(locale: string): string {
  return LANGUAGES.find((l) => l.code === locale)?.intl ?? "en-IN";
}

export const i18nOptions = {
  supportedLngs: SUPPORTED_LOCALES,
  fallbackLng: FALLBACK_LOCALE,
  defaultNS: NAMESPACE,
  ns: [NAMESPACE],
  interpolation: { escapeValue: false },
  react: { useSuspense: false },
} as const;
