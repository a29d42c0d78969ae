import { openReportStudy } from "~/domain/consultation/index.server";
import { api, apiRoute } from "~/web/api.server";
import { fileActor } from "~/web/file-access.server";
import { clientOf } from "~/web/request.server";

/**
 * A report's medical images: study metadata, the personal fields its files carry, series and
 * instances (their ids name the frames), the PACS hand-off. Same rule and audit as the file.
 */
const route = apiRoute({
  GET: (request, params, context) =>
    api(request, async () => {
      const actor = await fileActor(request);
      const study = await openReportStudy(actor, params.reportId ?? "", clientOf(context).ip);
      return { status: 200, message: "imaging.studyFound", data: study };
    }),
});
export const loader = route.loader;
export const action = route.action;
