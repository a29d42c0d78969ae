import { requestCorrection } from "~/domain/rights/index.server";
import { correctionSchema } from "~/schemas/rights";
import { parseFormData } from "~/schemas/strict";
import { formFailure } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";
import { forIntent, formReply, type IntentArgs } from "./intent.server";
import { MY_DATA } from "./Section";

/**
 * Ask for a correction of one's data (RequestsSection). A refusal (too many open requests)
 * answers with the form, the text kept; a sent request appears in the list below it.
 */
export async function correctionAction({ actor, t, client, formData }: IntentArgs) {
  const submission = parseFormData(formData, { schema: correctionSchema });
  if (submission.status !== "success") return formReply("correction", submission.reply());
  try {
    await requestCorrection(actor, submission.value, { ip: client.ip });
  } catch (err) {
    return formFailure(err, t, (o) => submission.reply(o), { wrap: forIntent("correction") });
  }
  return redirectWithSuccess(`${MY_DATA}#requests`, t("rights.correctionSent"));
}
