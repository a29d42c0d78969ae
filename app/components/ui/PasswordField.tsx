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
            <svg
              viewBox="0 0 24 24"
              className="h-5 w-5"
              aria-hidden="true"
              fill="none"
              stroke="currentColor"
              strokeWidth="1.8"
              strokeLinecap="round"
            >
              <path d="M2 12s3.6-7 10-7 10 7 10 7-3.6 7-10 7S2 12 2 12z" />
              <circle cx="12" cy="12" r="3" />
              {visible && <path d="M4 20 20 4" />}
            </svg>
          </button>
        )}
      </div>
      <FieldError meta={meta} />
    </div>
  );
}
