import type { TFunction } from "i18next";
import type { Actor } from "~/domain/accounts/index.server";
import { requestSecondOpinion } from "~/domain/consultation/index.server";
import { isDomainError } from "~/domain/platform/errors";
import { toastFailure } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";

/**
 * The "Ask for a second opinion" form (decision 0038), on the add-review screen (the expert of the
 * first opinion) and on a patient's reports (an admin): asks another specialty about `reportId`,
 * then returns to `at` — a refusal as a toast naming the field's problem, success as a toast.
 */
export async function askSecondOpinionAction(
  form: FormData,
  reportId: string,
  at: string,
  { actor, t, ip }: { actor: Actor; t: TFunction; ip: string },
) {
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
