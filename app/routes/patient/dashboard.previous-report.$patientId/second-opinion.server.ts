import { askSecondOpinionAction } from "~/web/second-opinion.server";
import type { ListScreen } from "./ask.server";

/** An admin asks another specialty for a second opinion on a patient's report (decision 0038). */
export function askSecondAction(form: FormData, screen: ListScreen) {
  const reportId = String(form.get("reportId") ?? "");
  const at = `${screen.back}#report-${encodeURIComponent(reportId)}`;
  return askSecondOpinionAction(form, reportId, at, screen);
}
