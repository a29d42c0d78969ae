import type { SubmissionResult } from "@conform-to/react";
import { data } from "@remix-run/node";
import { createShareLink } from "~/domain/sharing/index.server";
import { createShareLinkFormSchema } from "~/schemas/share-links";
import { parseFormData } from "~/schemas/strict";
import { formFailure } from "~/web/screen.server";
import type { IntentArgs } from "./intent.server";
import type { Created } from "./NewLink";

export type ActionData = { result: SubmissionResult<string[]>; created?: Created };

/** The passcode is never sent back into the page. */
const hide = { hideFields: ["passcode"] };

/**
 * Make a link (CreateForm): 201 with the new link, shown this once (NewLink), and the form
 * emptied; a refusal answers with the form and its reason.
 */
export async function createAction({ actor, t, client, reportId, form }: IntentArgs) {
  form.set("reportId", reportId);
  const submission = parseFormData(form, { schema: createShareLinkFormSchema });
  if (submission.status !== "success") {
    return data<ActionData>(
      { result: submission.reply({ ...hide, formErrors: [t("share.createFailed")] }) },
      { status: 400 },
    );
  }
  try {
    const link = await createShareLink(actor, Object.fromEntries(form), { form: true, client });
    return data<ActionData>(
      {
        result: submission.reply({ resetForm: true }),
        created: { url: link.url, expiresAt: link.expiresAt, passcode: link.passcode, label: link.label },
      },
      { status: 201 },
    );
  } catch (err) {
    return formFailure(err, t, (o) => submission.reply(o), {
      ...hide,
      wrap: (result): ActionData => ({ result }),
    });
  }
}
