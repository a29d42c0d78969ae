import { useTranslation } from "~/i18n/useTranslation";

export type PhraseChoice = { id: string; kind: string; text: string };

const KIND_LABEL = { finding: "phrases.finding", advice: "phrases.advice" } as const;

/**
 * The phrase book in the opinion form (decision 0081): checkboxes in two groups, findings and
 * advice. Each ticked sentence reaches the patient in her language, with a reviewed translation;
 * the free text stays as written.
 */
export function PhrasePicker({
  name,
  phrases,
  errors,
}: {
  name: string;
  phrases: PhraseChoice[];
  errors?: string[];
}) {
  const { t } = useTranslation();
  const errorId = `${name}-error`;
  return (
    <fieldset
      className="rounded-lg border border-slate-300 p-3"
      aria-describedby={`${name}-hint${errors?.length ? ` ${errorId}` : ""}`}
      data-testid="phrase-picker"
    >
      <legend className="px-1 font-semibold text-slate-900">{t("phrases.formLegend")}</legend>
      <p id={`${name}-hint`} className="text-sm text-slate-600">
        {t("phrases.formHint")}
      </p>
      {errors?.length ? (
        <p id={errorId} className="mt-1 text-sm font-semibold text-red-700" role="alert">
          {t(errors[0])}
        </p>
      ) : null}
      <div className="mt-2 space-y-3">
        {(["finding", "advice"] as const).map((kind) => (
          <div key={kind}>
            <p className="font-semibold text-green-900">{t(KIND_LABEL[kind])}</p>
            <ul className="mt-1 space-y-1">
              {phrases
                .filter((p) => p.kind === kind)
                .map((p) => (
                  <li key={p.id}>
                    <label className="flex cursor-pointer items-start gap-2 rounded p-1 hover:bg-slate-50">
                      <input
                        type="checkbox"
                        name={name}
                        value={p.id}
                        className="mt-1 h-5 w-5 shrink-0 accent-green-700"
                      />
                      <span>{p.text}</span>
                    </label>
                  </li>
                ))}
            </ul>
          </div>
        ))}
      </div>
    </fieldset>
  );
}
