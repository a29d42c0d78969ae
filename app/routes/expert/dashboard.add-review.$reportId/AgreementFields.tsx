import { useTranslation } from "~/i18n/useTranslation";
import { FieldError, TextAreaField, type FieldMeta } from "~/components/ui/Field";
import { REVIEW_MAX } from "~/schemas/limits";
import { AGREEMENTS } from "~/db/types";

/** A second opinion's view of the first (decision 0038): agree / partly / disagree, and why. */
export function AgreementFields({ agreement, reason }: { agreement: FieldMeta; reason: FieldMeta }) {
  const { t } = useTranslation();
  const labels = { agree: t("panel.agree"), partly: t("panel.partly"), disagree: t("panel.disagree") };
  return (
    <div className="space-y-3 rounded-lg border border-slate-300 p-3" data-testid="agreement-fields">
      <fieldset aria-describedby={agreement.errors?.length ? agreement.errorId : undefined}>
        <legend className="field-label">{t("panel.agreementLegend")}</legend>
        <div className="flex flex-wrap gap-x-5 gap-y-2">
          {AGREEMENTS.map((a) => (
            <label key={a} className="flex cursor-pointer items-center gap-2">
              <input
                type="radio"
                name={agreement.name}
                value={a}
                required
                defaultChecked={agreement.initialValue === a}
                className="h-5 w-5"
              />
              {labels[a]}
            </label>
          ))}
        </div>
        <FieldError meta={agreement} />
      </fieldset>
      <TextAreaField meta={reason} label={t("panel.reason")} required maxLength={REVIEW_MAX} rows={3} />
    </div>
  );
}
