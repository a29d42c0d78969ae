import type { TFunction } from "i18next";
import type { Actor } from "~/domain/accounts/index.server";
import { checkNumberProof, sendNumberProof, setNoticePreference } from "~/domain/care/index.server";
import type { Client } from "~/domain/platform/client";
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

/**
 * Proving the number a call would go to (decision 0102), on the three screens where "call me" is
 * chosen — Settings (`patientId` null: her own), the family page, a centre patient's page:
 * `intent=proof-send` sends the code by SMS, `intent=proof-check` types it back (`code`). Back to
 * `back` with a toast either way — what was done, or the reason — at `anchor` (the choice's
 * heading, where the code is typed). Plain form posts.
 */
export async function numberProofAction(opts: {
  actor: Actor;
  patientId: string | null;
  form: FormData;
  back: string;
  t: TFunction;
  client: Client;
  anchor: string;
}): Promise<Response> {
  const { actor, patientId, form, t, client } = opts;
  const back = `${opts.back}#${opts.anchor}`;
  try {
    if (form.get("intent") === "proof-send") {
      const sent = await sendNumberProof(actor, patientId, client);
      return redirectWithSuccess(
        back,
        t("calls.codeSent", { phone: sent.phone, minutes: sent.expiresInMinutes }),
      );
    }
    await checkNumberProof(actor, patientId, { code: form.get("code") ?? "" }, client);
  } catch (err) {
    return toastFailure(err, t, back, { field: ["code", "noticeBy"] });
  }
  return redirectWithSuccess(back, t("calls.proven"));
}
