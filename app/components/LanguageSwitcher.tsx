import { Form, useLocation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { LANGUAGES } from "~/i18n/config";

/** A plain form (works without JavaScript) posting the chosen language. */
export function LanguageSwitcher({ current }: { current: string }) {
  const { t } = useTranslation();
  const location = useLocation();
  const label = LANGUAGES.find((l) => l.code === current)?.label ?? current;
  return (
    <details className="relative">
      <summary
        className="flex min-h-11 cursor-pointer list-none items-center gap-1 rounded-lg px-2 text-sm font-semibold text-slate-700 hover:bg-slate-100"
        // The name starts with the visible text (WCAG 2.5.3), then says what the control does.
        aria-label={`${label}, ${t("common.changeLanguage")}`}
      >
        <svg
          viewBox="0 0 24 24"
          className="h-5 w-5"
          aria-hidden="true"
          fill="none"
          stroke="currentColor"
          strokeWidth="2"
        >
          <circle cx="12" cy="12" r="9" />
          <path d="M3 12h18M12 3c2.5 3 2.5 15 0 18M12 3c-2.5 3-2.5 15 0 18" />
        </svg>
        <span className="max-sm:sr-only">{label}</span>
      </summary>
      <Form
        method="post"
        action="/set-language"
        // Once a language is chosen the menu closes (the page stays, re-drawn in that language).
        onSubmit={(e) => e.currentTarget.closest("details")?.removeAttribute("open")}
        className="absolute right-0 z-40 mt-1 w-40 rounded-lg border border-slate-200 bg-white p-1 shadow-lg"
      >
        <input type="hidden" name="redirectTo" value={location.pathname + location.search} />
        <fieldset>
          <legend className="sr-only">{t("common.language")}</legend>
          {LANGUAGES.map((l) => (
            <button
              key={l.code}
              type="submit"
              name="lng"
              value={l.code}
              lang={l.code}
              aria-current={l.code === current ? "true" : undefined}
              className="block min-h-11 w-full rounded px-3 text-left text-sm hover:bg-slate-100 aria-[current=true]:font-bold aria-[current=true]:text-brand-700"
            >
              {l.label}
            </button>
          ))}
        </fieldset>
      </Form>
    </details>
  );
}
