import { DISPLAY_PICTURE_MAX_BYTES, updateDisplayPicture, toApiUser } from "~/domain/accounts/index.server";
import { limit } from "~/domain/platform/index.server";
import { api, apiRoute, requireApiActor } from "~/web/api.server";
import { parseUpload } from "~/web/multipart.server";
import { clientOf } from "~/web/request.server";

const route = apiRoute({
  PUT: (request, _params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      await limit("upload", actor.id, clientOf(context)); // before reading a single byte of the file
      const { file } = await parseUpload(request, {
        fileField: "displayPicture",
        kind: "image",
        maxBytes: DISPLAY_PICTURE_MAX_BYTES,
      });
      const { user, profile } = await updateDisplayPicture(actor, file);
      return { message: "profile.pictureUpdated", data: toApiUser(user, profile) };
    }),
});
export const loader = route.loader;
export const action = route.action;
