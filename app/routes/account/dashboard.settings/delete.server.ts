import type { SubmissionResult } from "@conform-to/react";
import { data } from "@remix-run/node";
import { eraseAccount } from "~/domain/rights/index.server";
import { deleteAccountFormSchema } from "~/schemas/rights";
import { parseFormData } from "~/schemas/strict";
import { proofFromText } from "~/schemas/two-factor";
import { clearSessionHeaders } from "~/web/auth.server";
import { DEFAULT_TIME_ZONE, formatDateTime } from "~/lib/format";
import { formFailure, refusalOnForm, toastFailure } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";
import { SETTINGS, type IntentArgs } from "./shared";

/** Step one (needed without JavaScript): show the confirmation. */
export function deleteStartAction() {
  return data({ intent: "delete" as const, result: undefined as SubmissionResult<string[]> | undefined });
}

/**
 * Step two: the erasure, after the notice unless the person asks for it now. The password is
 * asked again: a session left open on a shared phone cannot delete the account.
 */
export async function deleteAction({ formData, actor, t, locale, client }: IntentArgs) {
  const submission = parseFormData(formData, { schema: deleteAccountFormSchema });
  if (submission.status !== "success") {
    return data(
      { intent: "delete" as const, result: submission.reply({ hideFields: ["password"] }) },
      { status: 400 },
    );
  }
  let erased: boolean;
  let dueAt: string | null;
  try {
    const { password, proof, immediate } = submission.value;
    const outcome = await eraseAccount(
      actor,
      { password, ...proofFromText(proof ?? ""), immediate: !!immediate },
      client,
    );
    erased = outcome.erased;
    dueAt = outcome.request.dueAt;
  } catch (err) {
    if (refusalOnForm(err)) {
      return formFailure(err, t, (o) => submission.reply(o), {
        fieldsOnly: true,
        hideFields: ["password", "proof"],
        // The second factor is one field here (a code or a recovery code).
        renameFields: { code: "proof", recoveryCode: "proof" },
        wrap: (result) => ({ intent: "delete" as const, result }),
      });
    }
    return toastFailure(err, t, SETTINGS, { fallbackKey: "profile.deleteFailedLater" });
  }
  if (!erased) {
    return redirectWithSuccess(
      "/dashboard/my-data#erasure",
      t("rights.erasureRequested", { date: formatDateTime(dueAt!, locale, DEFAULT_TIME_ZONE) }),
    );
  }
  return redirectWithSuccess("/", t("profile.deleted"), { headers: await clearSessionHeaders(true) });
}
