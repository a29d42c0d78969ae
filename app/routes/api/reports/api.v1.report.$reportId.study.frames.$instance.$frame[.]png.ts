import { openStudyFrame } from "~/domain/consultation/index.server";
import { DomainError } from "~/domain/platform/errors";
import { isPreset } from "~/domain/records/index.server";
import { tFor } from "~/i18n/i18n.server";
import { apiRoute, errorResponse } from "~/web/api.server";
import { fileActor } from "~/web/file-access.server";
import { fileFrameHeaders } from "~/web/file-response.server";
import { clientOf } from "~/web/request.server";

/**
 * One frame of one instance as PNG: `…/frames/<instance id>/<frame, from 0>.png?preset=lung`
 * (default, lung, bone, soft, brain). Rendered on the server and cached encrypted; served to
 * those who may open the report's file (bearer or the browser session, same-site), audited.
 * Private cache: a frame of a given preset never changes.
 */
const route = apiRoute({
  GET: async (request, params, context) => {
    const { t } = await tFor(request);
    try {
      const actor = await fileActor(request);
      // "$frame[.]png": the router matches "<n>.png" and gives the number alone.
      const m = /^(\d{1,6})$/.exec(params.frame ?? "");
      const preset = new URL(request.url).searchParams.get("preset") ?? "default";
      if (!m || !isPreset(preset)) throw new DomainError("invalid", "imaging.badFrameRequest");
      const png = await openStudyFrame(
        actor,
        params.reportId ?? "",
        params.instance ?? "",
        Number(m[1]),
        preset,
        clientOf(context).ip,
        request.signal,
      );
      return new Response(new Uint8Array(png), {
        status: 200,
        headers: {
          "Content-Type": "image/png",
          "Content-Length": String(png.length),
          "X-Content-Type-Options": "nosniff",
          "Cache-Control": "private, max-age=3600",
          Vary: "Cookie, Authorization",
          ...fileFrameHeaders("image/png", { ownFrames: true }),
        },
      });
    } catch (err) {
      if (err instanceof DomainError) return errorResponse(err, t);
      throw err;
    }
  },
});
export const loader = route.loader;
export const action = route.action;
