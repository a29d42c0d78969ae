import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { ariaFor, FieldError, FieldLabel, type FieldMeta } from "./Field";

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
          className="field-input pr-20"
        />
        {hydrated && (
          <button
            type="button"
            onClick={() => setVisible((v) => !v)}
            aria-pressed={visible}
            aria-controls={meta.id}
            className="absolute inset-y-0 right-0 min-w-11 rounded-r-lg px-3 text-sm font-semibold text-brand-700"
          >
            {visible ? t("accounts.hidePassword") : t("accounts.showPassword")}
          </button>
        )}
      </div>
      <FieldError meta={meta} />
    </div>
  );
}
