import { cancelErasure, requestErasure } from "~/domain/rights/index.server";
import { erasureFormSchema } from "~/schemas/rights";
import { parseFormData } from "~/schemas/strict";
import { proofFromText } from "~/schemas/two-factor";
import { DEFAULT_TIME_ZONE, formatDateTime } from "~/lib/format";
import { formFailure, toastFailure } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";
import { forIntent, formReply, type IntentArgs } from "./intent.server";
import { MY_DATA } from "./Section";

/** The password and the second factor are never sent back into the page. */
const HIDDEN = ["password", "proof"];

/**
 * Ask for the account's erasure (ErasureSection): the password again, and the second factor when
 * two-step login is on. The account goes after the notice period unless it is cancelled.
 */
export async function erasureAction({ actor, t, locale, client, formData }: IntentArgs) {
  const submission = parseFormData(formData, { schema: erasureFormSchema });
  if (submission.status !== "success") return formReply("erasure", submission.reply({ hideFields: HIDDEN }));
  try {
    const { password, proof } = submission.value;
    const req = await requestErasure(actor, { password, ...proofFromText(proof ?? "") }, client);
    return redirectWithSuccess(
      `${MY_DATA}#erasure`,
      t("rights.erasureRequested", { date: formatDateTime(req.dueAt!, locale, DEFAULT_TIME_ZONE) }),
    );
  } catch (err) {
    return formFailure(err, t, (o) => submission.reply(o), {
      hideFields: HIDDEN,
      // The second factor is one field here (a code or a recovery code).
      renameFields: { code: "proof", recoveryCode: "proof" },
      fieldsOnly: true,
      wrap: forIntent("erasure"),
    });
  }
}

/** Cancel an erasure that is waiting out its notice (ErasureSection). */
export async function cancelErasureAction({ actor, t, client }: IntentArgs) {
  try {
    await cancelErasure(actor, {}, { ip: client.ip });
  } catch (err) {
    return toastFailure(err, t, `${MY_DATA}#erasure`);
  }
  return redirectWithSuccess(`${MY_DATA}#erasure`, t("rights.erasureCancelled"));
}
