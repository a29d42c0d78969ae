import type { TFunction } from "i18next";
import type { Actor } from "~/domain/accounts/index.server";
import {
  attachRepeatReport,
  setStepState,
  stepOffersFor,
  stepWords,
} from "~/domain/consultation/index.server";
import { isDomainError } from "~/domain/platform/errors";
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

/**
 * A repeat report attached to the earlier opinion's tests step it answers (decision 0114): the
 * offer on the new report's card, accepted. The domain checks that it is still an offer.
 */
export async function stepAttachAction(form: FormData, { actor, t, back, ip }: ListScreen) {
  const reportId = String(form.get("reportId") ?? "");
  const at = `${back}#report-${encodeURIComponent(reportId)}`;
  try {
    await attachRepeatReport(actor, form.get("stepId"), { reportId }, { ip });
  } catch (err) {
    return toastFailure(err, t, at, { field: ["reportId"] });
  }
  return redirectWithSuccess(at, t("reminders.attached"));
}

export type AttachOffer = { stepId: string; title: string; due: string };

/**
 * The offers on each card of the page: which open tests steps of earlier opinions this report's
 * lab values answer. Only her side and her centre are offered (an admin looking on is not).
 */
export async function attachOffersFor(
  actor: Actor,
  reportIds: readonly string[],
  t: TFunction,
  locale: string,
): Promise<Record<string, AttachOffer[]>> {
  if (actor.accountType !== "Patient" && actor.accountType !== "HealthWorker") return {};
  const out: Record<string, AttachOffer[]> = {};
  for (const id of reportIds) {
    // A report she may list but not attach (a record she only looks at) has no offers; a fault is a fault.
    const offers = await stepOffersFor(actor, id).catch((err: unknown) => {
      if (isDomainError(err)) return [];
      throw err;
    });
    if (!offers.length) continue;
    out[id] = offers.map(({ step }) => {
      const words = stepWords(step, t, locale);
      return { stepId: step._id, title: words.title, due: words.due };
    });
  }
  return out;
}
