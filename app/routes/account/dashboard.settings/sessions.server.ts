import { revokeAllSessions, revokeOwnSession } from "~/domain/accounts/index.server";
import { redirectWithSuccess } from "~/web/toast.server";
import { SETTINGS, type IntentArgs } from "./shared";

/** Ends one of the account's other sessions or API tokens. */
export async function revokeSessionAction({ formData, actor, t }: IntentArgs) {
  await revokeOwnSession(actor, String(formData.get("sessionId") ?? ""));
  return redirectWithSuccess(SETTINGS, t("profile.sessionRevoked"));
}

/** Ends every session and API token of the account but this one. */
export async function revokeOthersAction({ actor, t }: IntentArgs) {
  await revokeAllSessions(actor.id, actor.sessionId);
  return redirectWithSuccess(SETTINGS, t("profile.sessionsRevoked"));
}
