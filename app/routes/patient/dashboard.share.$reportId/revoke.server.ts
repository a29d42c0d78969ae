import { revokeShareLink } from "~/domain/sharing/index.server";
import { toastFailure } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";
import type { IntentArgs } from "./intent.server";

/** Revoke one of the report's links (LinkList): back to the list with a toast either way. */
export async function revokeAction({ actor, t, client, reportId, form }: IntentArgs) {
  const links = `/dashboard/share/${encodeURIComponent(reportId)}#links`;
  try {
    await revokeShareLink(actor, String(form.get("linkId") ?? ""), { ip: client.ip });
  } catch (err) {
    return toastFailure(err, t, links);
  }
  return redirectWithSuccess(links, t("share.revoked"));
}
