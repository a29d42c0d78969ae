import { data } from "@remix-run/node";
import { setNoticePreference } from "~/domain/care/index.server";
import { noticeSchema } from "~/schemas/calls";
import { parseFormData } from "~/schemas/strict";
import { formFailure } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";
import { SETTINGS, type IntentArgs } from "./shared";

/** Patients: how they hear that an opinion is ready — SMS, a call or both — and when a call may come (decision 0080). */
export async function callsAction({ formData, actor, t, client }: IntentArgs) {
  const submission = parseFormData(formData, { schema: noticeSchema });
  if (submission.status !== "success") {
    return data({ intent: "calls" as const, result: submission.reply() }, { status: 400 });
  }
  try {
    await setNoticePreference(actor, null, submission.value, { ip: client.ip });
  } catch (err) {
    return formFailure(err, t, (o) => submission.reply(o), {
      wrap: (result) => ({ intent: "calls" as const, result }),
    });
  }
  return redirectWithSuccess(SETTINGS, t("calls.saved"));
}
