import { useTranslation } from "~/i18n/useTranslation";

/** The fields the two-step screen asks for again: the current password, and a code or recovery code. */

/**
 * The account's current password, asked again before two-step login is set up, so a session left
 * open alone cannot enrol an authenticator of its own.
 */
export function ReauthPasswordField({
  id,
  invalid,
  errorId,
}: {
  id: string;
  invalid: boolean;
  errorId: string;
}) {
  const { t } = useTranslation();
  return (
    <div className="max-w-xs">
      <label htmlFor={id} className="field-label">
        {t("accounts.password")}
      </label>
      <input
        id={id}
        name="password"
        type="password"
        className="field-input"
        autoComplete="current-password"
        maxLength={128}
        required
        aria-invalid={invalid || undefined}
        aria-describedby={invalid ? `${errorId} ${id}-hint` : `${id}-hint`}
      />
      <p id={`${id}-hint`} className="mt-1 text-sm text-slate-600">
        {t("mfa.setupPasswordHint")}
      </p>
    </div>
  );
}

export function ReauthProofField({
  id,
  invalid,
  errorId,
}: {
  id: string;
  invalid: boolean;
  errorId: string;
}) {
  const { t } = useTranslation();
  return (
    <div>
      <label htmlFor={id} className="field-label">
        {t("mfa.proofLabel")}
      </label>
      <input
        id={id}
        name="proof"
        className="field-input max-w-xs font-mono"
        autoComplete="one-time-code"
        autoCapitalize="none"
        spellCheck={false}
        maxLength={40}
        required
        aria-invalid={invalid || undefined}
        aria-describedby={invalid ? `${errorId} ${id}-hint` : `${id}-hint`}
      />
      <p id={`${id}-hint`} className="mt-1 text-sm text-slate-600">
        {t("mfa.proofHint")}
      </p>
    </div>
  );
}
