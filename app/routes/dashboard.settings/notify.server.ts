import { data } from "@remix-run/node";
import { setNotifyChannel } from "~/domain/accounts/index.server";
import { HTTP_STATUS, isDomainError } from "~/domain/platform/errors";
import { notifySchema } from "~/schemas/auth";
import { parseFormData } from "~/schemas/strict";
import { redirectWithSuccess } from "~/utils/toast.server";
import { domainMessage } from "./errors.server";
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
    if (!isDomainError(err)) throw err;
    return data(
      {
        intent: "notify" as const,
        result: submission.reply({ formErrors: [domainMessage(err, t, "profile.notifyInvalid")] }),
      },
      { status: HTTP_STATUS[err.code] },
    );
  }
  return redirectWithSuccess(SETTINGS, t("profile.notifySaved"));
}
