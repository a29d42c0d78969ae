import { data } from "@remix-run/node";
import { changePassword } from "~/domain/accounts/index.server";
import { changePasswordSchema } from "~/schemas/auth";
import { parseFormData } from "~/schemas/strict";
import { formFailure, refusalOnForm, toastFailure } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";
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
    // A wrong or common password sits at its field; too many tries is said above the form.
    if (refusalOnForm(err)) {
      return formFailure(err, t, (o) => submission.reply(o), {
        fieldsOnly: true,
        hideFields: PASSWORD_FIELDS,
        wrap: (result) => ({ intent: "password" as const, result }),
      });
    }
    return toastFailure(err, t, SETTINGS, { fallbackKey: "accounts.passwordChangeFailed" });
  }
  return redirectWithSuccess(SETTINGS, t("accounts.passwordChanged"));
}
