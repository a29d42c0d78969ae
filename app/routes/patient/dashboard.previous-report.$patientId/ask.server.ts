import type { TFunction } from "i18next";
import type { Actor } from "~/domain/accounts/index.server";
import { askFollowUp } from "~/domain/consultation/index.server";
import { toastFailure } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";

/** What each handler of this screen gets: who asks, the translator, the list to return to, the address. */
export type ListScreen = { actor: Actor; t: TFunction; back: string; ip: string };

/**
 * A follow-up question about the opinion (the form in FollowUpThread); the domain checks owner,
 * count and window. Either way the patient lands back on the same card.
 */
export async function askAction(form: FormData, { actor, t, back, ip }: ListScreen) {
  const reportId = String(form.get("reportId") ?? "");
  const at = `${back}#report-${encodeURIComponent(reportId)}`;
  try {
    await askFollowUp(actor, reportId, { question: form.get("question") }, { ip });
  } catch (err) {
    return toastFailure(err, t, at, { field: "question" });
  }
  return redirectWithSuccess(at, t("followups.askSuccess"));
}
