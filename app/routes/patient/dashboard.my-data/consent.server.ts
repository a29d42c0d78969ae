import { changeConsent } from "~/domain/rights/index.server";
import { consentChangeSchema } from "~/schemas/rights";
import { formSchema } from "~/schemas/strict";
import { toastFailure } from "~/web/screen.server";
import { redirectWithError, redirectWithSuccess } from "~/web/toast.server";
import type { IntentArgs } from "./intent.server";
import { MY_DATA } from "./Section";

/**
 * Give or withdraw one consent (ConsentsSection). The answer is a toast on the consent's card;
 * withdrawing review consent says how many waiting reports it deleted.
 */
export async function consentAction({ actor, t, locale, client, formData }: IntentArgs) {
  const parsed = formSchema(consentChangeSchema).safeParse({
    purpose: formData.get("purpose"),
    granted: formData.get("granted"),
  });
  if (!parsed.success) return redirectWithError(`${MY_DATA}#consents`, t("rights.purposeInvalid"));
  try {
    const after = await changeConsent(actor, parsed.data, { via: "settings", locale, ip: client.ip });
    const key = parsed.data.granted
      ? "rights.consentGiven"
      : after.withdrawnReports
        ? "rights.consentWithdrawnReports"
        : "rights.consentWithdrawn";
    return redirectWithSuccess(
      `${MY_DATA}#consent-${parsed.data.purpose}`,
      t(key, { reports: after.withdrawnReports ?? 0 }),
    );
  } catch (err) {
    return toastFailure(err, t, `${MY_DATA}#consents`);
  }
}
