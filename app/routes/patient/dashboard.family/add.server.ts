import type { SubmissionResult } from "@conform-to/react";
import { data } from "@remix-run/node";
import type { TFunction } from "i18next";
import type { Actor } from "~/domain/accounts/index.server";
import { addFamilyMember } from "~/domain/care/index.server";
import { familyMemberSchema } from "~/schemas/family";
import { parseFormData } from "~/schemas/strict";
import { formFailure } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";

export type AddData = { result: SubmissionResult<string[]> };

/**
 * Add a family member (AddMemberForm): back to the list with the new short ID in a toast, or the
 * form again with every field kept and the reason on the field it concerns (the consent box that
 * fits the age entered, for one).
 */
export async function addAction({
  actor,
  t,
  form,
  ip,
}: {
  actor: Actor;
  t: TFunction;
  form: FormData;
  ip?: string | null;
}) {
  const submission = parseFormData(form, { schema: familyMemberSchema });
  if (submission.status !== "success") {
    return data<AddData>(
      { result: submission.reply({ formErrors: [t("family.addFailed")] }) },
      { status: 400 },
    );
  }
  try {
    const member = await addFamilyMember(actor, submission.value, { ip });
    return redirectWithSuccess(
      "/dashboard/family",
      t("family.added", { name: `${member.firstName} ${member.lastName}`.trim(), shortId: member.shortId }),
    );
  } catch (err) {
    return formFailure(err, t, (o) => submission.reply(o), {
      wrap: (result): AddData => ({ result }),
    });
  }
}
