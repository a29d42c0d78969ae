import { deleteReport } from "~/domain/consultation/index.server";
import { deleteReportSchema } from "~/schemas/reports";
import { parseFormData } from "~/schemas/strict";
import { toastFailure } from "~/web/screen.server";
import { redirectWithError, redirectWithSuccess } from "~/web/toast.server";
import type { ListScreen } from "./ask.server";

/** Deleting a report (the form in ConfirmDelete): the owning patient or an Admin, the domain decides. */
export async function deleteAction(form: FormData, { actor, t, back, ip }: ListScreen) {
  const submission = parseFormData(form, { schema: deleteReportSchema });
  if (submission.status !== "success") return redirectWithError(back, t("reports.deleteFailed"));
  try {
    await deleteReport(actor, submission.value.reportId, { ip });
  } catch (err) {
    return toastFailure(err, t, back);
  }
  return redirectWithSuccess(back, t("reports.deleteSuccess"));
}
