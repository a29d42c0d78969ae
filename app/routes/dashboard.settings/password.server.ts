import { data } from "@remix-run/node";
import { changePassword } from "~/domain/accounts/index.server";
import { isDomainError } from "~/domain/platform/errors";
import { changePasswordSchema } from "~/schemas/auth";
import { parseFormData } from "~/schemas/strict";
import { redirectWithError, redirectWithSuccess } from "~/utils/toast.server";
import { domainMessage, rateLimitedReply } from "./errors.server";
import { SETTINGS, type IntentArgs } from "./shared";

/** Never sent back: a password stays only in the person's head. */
const PASSWORD_FIELDS = ["oldPassword", "newPassword", "confirmNewPassword"];

/** The current password, then the new one twice; every other session of the account ends. */
export async function passwordAction({ formData, actor, t, client }: IntentArgs) {
  const submission = parseFormData(formData, { schema: changePasswordSchema });
  if (submission.status !== "success") {
    return data(
      { intent: "password" as const, result: submission.reply({ hideFields: PASSWORD_FIELDS }) },
      { status: 400 },
    );
  }
  try {
    await changePassword(actor, submission.value, client);
  } catch (err) {
    if (!isDomainError(err)) throw err;
    if (err.code === "rate_limited") {
      return rateLimitedReply("password", err, t, (o) =>
        submission.reply({ ...o, hideFields: PASSWORD_FIELDS }),
      );
    }
    if (err.extra.fieldErrors) {
      return data(
        {
          intent: "password" as const,
          result: submission.reply({ fieldErrors: err.extra.fieldErrors, hideFields: PASSWORD_FIELDS }),
        },
        { status: 400 },
      );
    }
    return redirectWithError(SETTINGS, domainMessage(err, t, "accounts.passwordChangeFailed"));
  }
  return redirectWithSuccess(SETTINGS, t("accounts.passwordChanged"));
}
