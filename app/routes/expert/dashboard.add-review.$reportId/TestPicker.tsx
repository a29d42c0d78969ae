import { useState } from "react";
import { useTranslation } from "~/i18n/useTranslation";
import { messageText } from "~/i18n/message";

/** A test of the lab catalogue as the picker offers it: LOINC, English name, her language's name. */
export type StepAnalyte = { loinc: string; name: string; local: string | null };

/**
 * The tests to repeat: every analyte of the catalogue as a box (its LOINC the value), the ticked
 * ones first; typing narrows the list (with script; without it the list scrolls).
 */
export function TestPicker({
  id,
  name,
  chosen,
  analytes,
  error,
}: {
  id: string;
  name: string;
  chosen: string[];
  analytes: StepAnalyte[];
  error: string | null;
}) {
  const { t } = useTranslation();
  const [query, setQuery] = useState("");
  const q = query.trim().toLowerCase();
  const label = (a: StepAnalyte) => (a.local ? `${a.local} (${a.name})` : a.name);
  const ordered = [
    ...analytes.filter((a) => chosen.includes(a.loinc)),
    ...analytes.filter((a) => !chosen.includes(a.loinc)),
  ];
  return (
    <fieldset
      aria-describedby={`${id}-hint${error ? ` ${id}-error` : ""}`}
      aria-invalid={error ? true : undefined}
    >
      <legend className="field-label">{t("steps.form.tests")}</legend>
      <p id={`${id}-hint`} className="text-xs text-slate-600">
        {t("steps.form.testsHint")}
      </p>
      <input
        type="search"
        aria-label={t("steps.form.searchTests")}
        placeholder={t("steps.form.searchTests")}
        value={query}
        onChange={(e) => setQuery(e.target.value)}
        // Enter narrows the list; it does not send the opinion.
        onKeyDown={(e) => {
          if (e.key === "Enter") e.preventDefault();
        }}
        className="field-input mt-1"
        data-testid="step-test-search"
      />
      <div className="mt-2 max-h-56 overflow-y-auto rounded border border-slate-200 bg-white">
        {ordered.map((a) => {
          const shown = !q || `${a.name} ${a.local ?? ""} ${a.loinc}`.toLowerCase().includes(q);
          return (
            <label
              key={a.loinc}
              className={`flex min-h-11 cursor-pointer items-center gap-2 border-b border-slate-100 px-2 py-1 text-sm ${shown ? "" : "hidden"}`}
            >
              <input
                type="checkbox"
                name={name}
                value={a.loinc}
                defaultChecked={chosen.includes(a.loinc)}
                className="h-5 w-5 shrink-0"
              />
              <span>{label(a)}</span>
            </label>
          );
        })}
      </div>
      {error && (
        <p id={`${id}-error`} className="field-error" role="alert">
          {messageText(t, error)}
        </p>
      )}
    </fieldset>
  );
}
