import { addReview } from "~/domain/consultation/index.server";
import { reviewSchema } from "~/schemas/reports";
import { parseFormData } from "~/schemas/strict";
import { formFailure } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";
import type { ReviewScreen } from "./claim.server";

/** The structured review: only approved experts holding the claim (or a free report); the first review wins. */
export async function reviewAction(form: FormData, { actor, t, reportId, ip }: ReviewScreen) {
  const submission = parseFormData(form, { schema: reviewSchema });
  if (submission.status !== "success") {
    return Response.json(submission.reply(), { status: 400 });
  }
  try {
    await addReview(actor, reportId, submission.value, { ip });
  } catch (err) {
    return formFailure(err, t, (o) => submission.reply(o), {
      // Someone was first: say so and keep the text, but never overwrite.
      wrap: (result, e) => (e.code === "conflict" ? { ...result, conflict: true } : result),
    });
  }
  return redirectWithSuccess("/dashboard/pending-report", t("reports.reviewSuccess"));
}
