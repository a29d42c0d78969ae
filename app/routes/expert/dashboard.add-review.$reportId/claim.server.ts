import type { TFunction } from "i18next";
import type { Actor } from "~/domain/accounts/index.server";
import { claimReport, releaseReport } from "~/domain/consultation/index.server";
import { toastFailure } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";

export type ReviewScreen = { actor: Actor; t: TFunction; reportId: string; ip: string };

/**
 * Claim: the expert takes the report for a while and stays on it. Release: gives it back and
 * returns to the queue. A refusal (taken by another, over the cap) is a toast on this screen.
 */
export async function claimAction(intent: "claim" | "release", { actor, t, reportId, ip }: ReviewScreen) {
  const here = `/dashboard/add-review/${encodeURIComponent(reportId)}`;
  try {
    if (intent === "claim") await claimReport(actor, reportId, { ip });
    else await releaseReport(actor, reportId, { ip });
  } catch (err) {
    return toastFailure(err, t, here);
  }
  return intent === "claim"
    ? redirectWithSuccess(here, t("reports.claimSuccess"))
    : redirectWithSuccess("/dashboard/pending-report", t("reports.releaseSuccess"));
}
