import { setStepState } from "~/domain/consultation/index.server";
import { toastFailure } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";
import type { ListScreen } from "./ask.server";

/**
 * A next step closed from its report's card (decision 0114): done, "I cannot go" with the reason,
 * or open again. The domain decides who may say what; either way she lands back on the card.
 */
export async function stepStateAction(form: FormData, { actor, t, back, ip }: ListScreen) {
  const reportId = String(form.get("reportId") ?? "");
  const at = `${back}#report-${encodeURIComponent(reportId)}`;
  try {
    await setStepState(
      actor,
      form.get("stepId"),
      { state: form.get("state"), reason: form.get("reason") },
      { ip },
    );
  } catch (err) {
    return toastFailure(err, t, at, { field: ["reason", "state"] });
  }
  return redirectWithSuccess(at, t("steps.stateSaved"));
}
