import { DISPLAY_PICTURE_MAX_BYTES, updateDisplayPicture } from "~/domain/accounts.server";
import { toApiUser } from "~/domain/users.server";
import { api, apiRoute, requireApiActor } from "~/utils/api.server";
import { parseUpload } from "~/utils/multipart.server";

const route = apiRoute({
  PUT: (request) =>
    api(request, async () => {
      const actor = requireApiActor(request);
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
