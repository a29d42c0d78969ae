import { data } from "@remix-run/node";
import { setReminderPreference } from "~/domain/care/index.server";
import { reminderPreferenceSchema } from "~/schemas/next-steps";
import { parseFormData } from "~/schemas/strict";
import { formFailure } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";
import { SETTINGS, type IntentArgs } from "./shared";

/** Patients: how and at what hour they are reminded of their next steps (decision 0114). */
export async function remindersAction({ formData, actor, t, client }: IntentArgs) {
  const submission = parseFormData(formData, { schema: reminderPreferenceSchema });
  if (submission.status !== "success") {
    return data({ intent: "reminders" as const, result: submission.reply() }, { status: 400 });
  }
  try {
    await setReminderPreference(actor, null, submission.value, { ip: client.ip });
  } catch (err) {
    return formFailure(err, t, (o) => submission.reply(o), {
      wrap: (result) => ({ intent: "reminders" as const, result }),
    });
  }
  return redirectWithSuccess(SETTINGS, t("reminders.saved"));
}
