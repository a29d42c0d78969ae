import { requestSecondOpinion } from "~/domain/consultation/index.server";
import { isDomainError } from "~/domain/platform/errors";
import { toastFailure } from "~/utils/screen.server";
import { redirectWithSuccess } from "~/utils/toast.server";
import type { ListScreen } from "./ask.server";

/** An admin asks another specialty for a second opinion on a patient's report (decision 0038). */
export async function askSecondAction(form: FormData, { actor, t, back, ip }: ListScreen) {
  const reportId = String(form.get("reportId") ?? "");
  const at = `${back}#report-${encodeURIComponent(reportId)}`;
  try {
    await requestSecondOpinion(
      actor,
      reportId,
      { specialty: form.get("specialty"), note: form.get("note") },
      { ip },
    );
  } catch (err) {
    const field = isDomainError(err) ? Object.keys(err.extra.fieldErrors ?? {})[0] : undefined;
    return toastFailure(err, t, at, { field });
  }
  return redirectWithSuccess(at, t("panel.askSuccess"));
}
