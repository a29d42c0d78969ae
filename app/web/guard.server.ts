import { tFor } from "~/i18n/i18n.server";
import { isCrossSiteRequest } from "./forms.server";

/** Every screen action starts here: a form post from another site is refused with 403. */
export async function guardForm(request: Request) {
  if (isCrossSiteRequest(request)) {
    const { t } = await tFor(request);
    throw new Response(t("errors.forbiddenOrigin"), { status: 403 });
  }
}
