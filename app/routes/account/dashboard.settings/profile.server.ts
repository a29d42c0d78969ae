import { data } from "@remix-run/node";
import { updateProfile } from "~/domain/accounts/index.server";
import { profileSchema } from "~/schemas/auth";
import { parseFormData } from "~/schemas/strict";
import { formFailure, refusalOnForm, toastFailure } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";
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
    if (refusalOnForm(err)) {
      return formFailure(err, t, (o) => submission.reply(o), {
        fieldsOnly: true,
        wrap: (result) => ({ intent: "profile" as const, result }),
      });
    }
    return toastFailure(err, t, SETTINGS, { fallbackKey: "profile.profileFailed" });
  }
  return redirectWithSuccess("/dashboard/my-profile", t("profile.profileUpdated"));
}
