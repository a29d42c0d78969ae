import { removeNominee, setNominee } from "~/domain/rights/index.server";
import { nomineeSchema } from "~/schemas/rights";
import { parseFormData } from "~/schemas/strict";
import { toastFailure } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";
import { formReply, type IntentArgs } from "./intent.server";
import { MY_DATA } from "./Section";

/** Name or change the nominee (NomineeSection). */
export async function nomineeAction({ actor, t, client, formData }: IntentArgs) {
  const submission = parseFormData(formData, { schema: nomineeSchema });
  if (submission.status !== "success") return formReply("nominee", submission.reply());
  await setNominee(actor, submission.value, { ip: client.ip });
  return redirectWithSuccess(`${MY_DATA}#nominee`, t("rights.nomineeSaved"));
}

/** Remove the nominee (NomineeSection); there may be none left to remove (another tab). */
export async function removeNomineeAction({ actor, t, client }: IntentArgs) {
  try {
    await removeNominee(actor, { ip: client.ip });
  } catch (err) {
    return toastFailure(err, t, `${MY_DATA}#nominee`);
  }
  return redirectWithSuccess(`${MY_DATA}#nominee`, t("rights.nomineeRemoved"));
}
