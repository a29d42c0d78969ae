import { useEffect, useState } from "react";
import { useTranslation } from "~/i18n/useTranslation";
import { ariaFor, FieldError, FieldLabel, type FieldMeta } from "./Field";
import { EyeIcon } from "./Icon";

/** A password input with a show/hide toggle (the toggle appears once JavaScript runs). */
export function PasswordField({
  meta,
  label,
  autoComplete = "current-password",
  required = true,
}: {
  meta: FieldMeta;
  label: string;
  autoComplete?: string;
  required?: boolean;
}) {
  const { t } = useTranslation();
  const [visible, setVisible] = useState(false);
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return (
    <div>
      <FieldLabel htmlFor={meta.id} label={label} required={required} />
      <div className="relative">
        <input
          id={meta.id}
          name={meta.name}
          type={visible ? "text" : "password"}
          autoComplete={autoComplete}
          maxLength={128}
          {...ariaFor(meta, required)}
          className="field-input pr-12"
        />
        {hydrated && (
          // An eye, named in words for screen readers and as a tooltip: a translated word ("show
          // password" is long in Tamil) would cover the input on a phone.
          <button
            type="button"
            onClick={() => setVisible((v) => !v)}
            aria-pressed={visible}
            aria-controls={meta.id}
            aria-label={visible ? t("accounts.hidePassword") : t("accounts.showPassword")}
            title={visible ? t("accounts.hidePassword") : t("accounts.showPassword")}
            className="absolute inset-y-0 right-0 flex w-11 items-center justify-center rounded-r-lg text-brand-700 hover:bg-brand-50"
          >
            <EyeIcon crossed={visible} />
          </button>
        )}
      </div>
      <FieldError meta={meta} />
    </div>
  );
}
