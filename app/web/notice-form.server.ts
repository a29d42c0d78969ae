import type { TFunction } from "i18next";
import type { Actor } from "~/domain/accounts/index.server";
import { setNoticePreference } from "~/domain/care/index.server";
import { toastFailure } from "./screen.server";
import { redirectWithSuccess } from "./toast.server";

/**
 * The "call me" form (`intent=calls`, decision 0080) posted on a page of someone the actor acts
 * for — a centre's patient, a family member: the two radio groups to the domain (which decides who
 * may set it), then back to `back` with a toast: `saved`, or the reason, the field's own first
 * ("add a phone number first"). Plain form posts: works without JavaScript.
 */
export async function noticeFormAction(opts: {
  actor: Actor;
  patientId: string;
  form: FormData;
  back: string;
  t: TFunction;
  saved: string;
  ip?: string | null;
}): Promise<Response> {
  const { actor, patientId, form, back, t } = opts;
  try {
    await setNoticePreference(
      actor,
      patientId,
      { noticeBy: form.get("noticeBy"), callWindow: form.get("callWindow") },
      { ip: opts.ip },
    );
  } catch (err) {
    return toastFailure(err, t, back, { field: ["noticeBy", "callWindow"] });
  }
  return redirectWithSuccess(back, opts.saved);
}
