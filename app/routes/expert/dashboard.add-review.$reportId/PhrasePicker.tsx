import { languageNameKey } from "~/i18n/config";
import { useTranslation } from "~/i18n/useTranslation";

export type PhraseChoice = {
  id: string;
  kind: string;
  /** In the expert's language. */
  text: string;
  /** In the patient's language, when it is not the expert's. */
  patientText: string | null;
  /** Who checked the translations; null: nobody yet. */
  reviewedBy: string | null;
};

export type PhraseBookChoices = { patientLang: string; choices: PhraseChoice[] };

const KIND_LABEL = { finding: "phrases.finding", advice: "phrases.advice" } as const;

/**
 * The phrase book in the opinion form (decisions 0081, 0094): checkboxes in two groups, findings
 * and advice. Each sentence is in the expert's language, with the patient's beside it — what she
 * will read and hear — and says whether a person checked its translations; nothing claims a review
 * that did not happen. The free text stays as written.
 */
export function PhrasePicker({
  name,
  phrases,
  errors,
}: {
  name: string;
  phrases: PhraseBookChoices;
  errors?: string[];
}) {
  const { t } = useTranslation();
  const errorId = `${name}-error`;
  // Her language named in the expert's (a Hindi sentence says अंग्रेज़ी, never "English").
  const language = t(languageNameKey(phrases.patientLang));
  return (
    <fieldset
      className="min-w-0 rounded-lg border border-slate-300 p-3"
      aria-describedby={`${name}-hint${errors?.length ? ` ${errorId}` : ""}`}
      data-testid="phrase-picker"
    >
      <legend className="px-1 font-semibold text-slate-900">{t("phrases.formLegend")}</legend>
      <p id={`${name}-hint`} className="text-sm text-slate-600">
        {t("phrases.formHint", { language })}
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
              {phrases.choices
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
                      <span className="grid min-w-0 flex-1 gap-y-0.5">
                        <span className="break-words" data-phrase-text>
                          {p.text}
                        </span>
                        {p.patientText && (
                          <span
                            lang={phrases.patientLang}
                            className="break-words text-sm text-slate-600"
                            data-phrase-patient
                          >
                            <span className="sr-only">{t("phrases.patientReads", { language })} </span>
                            {p.patientText}
                          </span>
                        )}
                        <span
                          className={`text-xs ${p.reviewedBy ? "text-slate-600" : "font-semibold text-amber-900"}`}
                          data-phrase-review={p.reviewedBy ? "checked" : "not-checked"}
                        >
                          {p.reviewedBy
                            ? t("phrases.checkedBy", { name: p.reviewedBy })
                            : t("phrases.notReviewed")}
                        </span>
                      </span>
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
