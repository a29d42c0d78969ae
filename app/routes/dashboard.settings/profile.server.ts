import { data } from "@remix-run/node";
import { updateProfile } from "~/domain/accounts/index.server";
import { isDomainError } from "~/domain/platform/errors";
import { profileSchema } from "~/schemas/auth";
import { parseFormData } from "~/schemas/strict";
import { redirectWithError, redirectWithSuccess } from "~/utils/toast.server";
import { domainMessage } from "./errors.server";
import { SETTINGS, type IntentArgs } from "./shared";

/** Name, date of birth, gender, contact number and about; saved, the person sees their profile. */
export async function profileAction({ formData, actor, t }: IntentArgs) {
  const submission = parseFormData(formData, { schema: profileSchema });
  if (submission.status !== "success") {
    return data({ intent: "profile" as const, result: submission.reply() }, { status: 400 });
  }
  try {
    await updateProfile(actor, submission.value);
  } catch (err) {
    if (!isDomainError(err)) throw err;
    if (err.extra.fieldErrors) {
      return data(
        { intent: "profile" as const, result: submission.reply({ fieldErrors: err.extra.fieldErrors }) },
        { status: 400 },
      );
    }
    return redirectWithError(SETTINGS, domainMessage(err, t, "profile.profileFailed"));
  }
  return redirectWithSuccess("/dashboard/my-profile", t("profile.profileUpdated"));
}
