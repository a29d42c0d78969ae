import { data } from "@remix-run/node";
import { setNotifyChannel } from "~/domain/accounts/index.server";
import { notifySchema } from "~/schemas/auth";
import { parseFormData } from "~/schemas/strict";
import { formFailure } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";
import { SETTINGS, type IntentArgs } from "./shared";

/** Experts and admins: notifications by e-mail, SMS or both. */
export async function notifyAction({ formData, actor, t }: IntentArgs) {
  const submission = parseFormData(formData, { schema: notifySchema });
  if (submission.status !== "success") {
    return data({ intent: "notify" as const, result: submission.reply() }, { status: 400 });
  }
  try {
    await setNotifyChannel(actor, submission.value.notify);
  } catch (err) {
    // The radio group has no error of its own: the reason (no mobile number) goes above the form.
    return formFailure(err, t, (o) => submission.reply({ formErrors: o.formErrors }), {
      fallbackKey: "profile.notifyInvalid",
      wrap: (result) => ({ intent: "notify" as const, result }),
    });
  }
  return redirectWithSuccess(SETTINGS, t("profile.notifySaved"));
}
