import { data } from "@remix-run/node";
import { updateExpertDetails } from "~/domain/accounts/index.server";
import { expertDetailsFormSchema } from "~/schemas/experts";
import { parseFormData } from "~/schemas/strict";
import { toastFailure } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";
import { SETTINGS, type IntentArgs } from "./shared";

/** An expert's verification details; a change to an approved expert's goes back to review. */
export async function expertDetailsAction({ formData, actor, t, client }: IntentArgs) {
  const submission = parseFormData(formData, { schema: expertDetailsFormSchema });
  if (submission.status !== "success") {
    return data({ intent: "expert-details" as const, result: submission.reply() }, { status: 400 });
  }
  let backToReview = false;
  try {
    ({ backToReview } = await updateExpertDetails(actor, submission.value, client.ip));
  } catch (err) {
    return toastFailure(err, t, SETTINGS, { fallbackKey: "experts.onlyExperts" });
  }
  return redirectWithSuccess(
    SETTINGS,
    t(backToReview ? "experts.detailsUpdatedReview" : "experts.detailsUpdated"),
  );
}
