import type { AppLoadContext } from "@remix-run/node";
import { DomainError } from "~/domain/platform/errors";
import { openVoiceNote } from "~/domain/consultation/index.server";
import { tFor } from "~/i18n/i18n.server";
import { apiRoute, errorResponse } from "~/web/api.server";
import { fileActor } from "~/web/file-access.server";
import { rangeResponse } from "~/web/file-response.server";
import { clientOf } from "~/web/request.server";

/**
 * A voice note's audio for those who may open its report's file (bearer token, or the browser
 * session on a same-site request, as for report files), with `Range` so players can seek. Every
 * hearing is audited.
 */
async function serve(request: Request, params: Record<string, string | undefined>, context: AppLoadContext) {
  try {
    const actor = await fileActor(request);
    return rangeResponse(request, await openVoiceNote(actor, params.voiceNoteId ?? "", clientOf(context)));
  } catch (err) {
    if (err instanceof DomainError) return errorResponse(err, (await tFor(request)).t);
    throw err;
  }
}

const route = apiRoute({ GET: serve, HEAD: serve });
export const loader = route.loader;
export const action = route.action;
