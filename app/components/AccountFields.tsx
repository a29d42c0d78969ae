import { useTranslation } from "~/i18n/useTranslation";
import { TextField, type FieldMeta } from "./ui/Field";

/**
 * The account's sign-in name: an e-mail, or the mobile number of an account made with one (login,
 * forgot password). A text input, so a number typed here is not refused by the browser.
 */
export function EmailOrMobileField({ meta }: { meta: FieldMeta }) {
  const { t } = useTranslation();
  return (
    <TextField
      meta={meta}
      label={t("accounts.email")}
      type="text"
      inputMode="email"
      hint={t("accounts.emailOrMobileHint")}
      required
      autoComplete="username"
      autoCapitalize="none"
      spellCheck={false}
      maxLength={254}
    />
  );
}

/**
 * First and last name (signup, Settings' profile): two fields side by side in the caller's grid.
 * Signup asks for both; the profile may leave the last name empty.
 */
export function NameFields({
  firstName,
  lastName,
  lastNameRequired = false,
}: {
  firstName: FieldMeta;
  lastName: FieldMeta;
  lastNameRequired?: boolean;
}) {
  const { t } = useTranslation();
  return (
    <>
      <TextField
        meta={firstName}
        label={t("accounts.firstName")}
        required
        autoComplete="given-name"
        maxLength={50}
      />
      <TextField
        meta={lastName}
        label={t("accounts.lastName")}
        required={lastNameRequired}
        autoComplete="family-name"
        maxLength={50}
      />
    </>
  );
}

/**
 * The second factor asked again before a step a session alone may not take (erasing the account
 * from Settings or My data): a code from the authenticator app, or a recovery code.
 */
export function SecondFactorField({ meta }: { meta: FieldMeta }) {
  const { t } = useTranslation();
  return (
    <TextField
      meta={meta}
      label={t("mfa.proofLabel")}
      hint={t("mfa.proofHint")}
      autoComplete="one-time-code"
      spellCheck={false}
      maxLength={40}
    />
  );
}
