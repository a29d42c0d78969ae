import type { LoaderFunctionArgs } from "@remix-run/node";
import { exportZip } from "~/domain/interop/index.server";
import { tFor } from "~/i18n/i18n.server";
import { requireActor } from "~/web/auth.server";
import { fileActor } from "~/web/file-access.server";
import { zipResponse } from "~/web/fhir-response.server";
import { clientOf } from "~/web/request.server";
import { toastFailure } from "~/web/screen.server";

const FALLBACK = "/dashboard/settings";

/** Where a refused download sends the browser back to: the dashboard page it came from, else Settings. */
function backTo(request: Request): string {
  const referer = request.headers.get("Referer");
  if (!referer) return FALLBACK;
  try {
    const from = new URL(referer);
    const here = new URL(request.url);
    if (from.host !== here.host || !from.pathname.startsWith("/dashboard/")) return FALLBACK;
    if (from.pathname.startsWith("/dashboard/my-data/download")) return FALLBACK;
    return from.pathname + from.search;
  } catch {
    return FALLBACK;
  }
}

/**
 * "Download my data": the signed-in patient's ZIP — or the ZIP of the profile named by
 * `?patientId=` for whoever the access rule lets act for it (a family manager, the centre's health
 * worker, an admin) — streamed as an attachment. A plain link, so it works without
 * JavaScript; a refusal (another patient's id, too many exports, a link from another site) goes
 * back to the page it came from with the reason as a toast.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  // Remix runs loaders for HEAD too: that would start an export whose body nobody reads.
  if (request.method !== "GET") return new Response(null, { status: 405, headers: { Allow: "GET" } });
  const actor = await requireActor(request);
  const patientId = new URL(request.url).searchParams.get("patientId") ?? actor.id;
  try {
    // Same-site requests only: another site must not start exports in the patient's name.
    await fileActor(request);
    const { stream, fileName } = await exportZip(actor, patientId, clientOf(context));
    return zipResponse(stream, fileName);
  } catch (err) {
    const { t } = await tFor(request);
    throw await toastFailure(err, t, backTo(request));
  }
}
