import { addReview } from "~/domain/consultation/index.server";
import { reviewSchema } from "~/schemas/reports";
import { parseFormData } from "~/schemas/strict";
import { formFailure } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";
import type { ReviewScreen } from "./claim.server";

/**
 * The domain names a step's field as zod does (`nextSteps.0.loincs`, the API's form); the form's
 * fields are Conform's (`nextSteps[0].loincs`).
 */
export function conformNames(errors: Record<string, string[]> | undefined) {
  if (!errors) return errors;
  return Object.fromEntries(
    Object.entries(errors).map(([k, v]) => [k.replace(/\.(\d+)(?=\.|$)/g, "[$1]"), v]),
  );
}

/** The structured review: only approved experts holding the claim (or a free report); the first review wins. */
export async function reviewAction(form: FormData, { actor, t, reportId, ip }: ReviewScreen) {
  const submission = parseFormData(form, { schema: reviewSchema });
  // A next step added or removed (Conform's list intents, decision 0114): the form again, with
  // what was typed and no complaints yet.
  if (submission.status === undefined) return Response.json({ ...submission.reply(), error: {} });
  if (submission.status !== "success") {
    return Response.json(submission.reply(), { status: 400 });
  }
  try {
    await addReview(actor, reportId, submission.value, { ip });
  } catch (err) {
    return formFailure(err, t, (o) => submission.reply({ ...o, fieldErrors: conformNames(o.fieldErrors) }), {
      // Someone was first: say so and keep the text, but never overwrite.
      wrap: (result, e) => (e.code === "conflict" ? { ...result, conflict: true } : result),
    });
  }
  return redirectWithSuccess("/dashboard/pending-report", t("reports.reviewSuccess"));
}
