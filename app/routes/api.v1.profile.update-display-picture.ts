import { setDisplayPicture, getProfile } from "~/domain/accounts.server";
import { deleteStored } from "~/domain/files.server";
import { toApiUser } from "~/domain/users.server";
import { DomainError } from "~/domain/errors";
import { api, apiRoute, requireApiActor } from "~/utils/api.server";
import { parseUpload } from "~/utils/multipart.server";

const route = apiRoute({
  PUT: (request) =>
    api(request, async () => {
      const actor = requireApiActor(request);
      const { file } = await parseUpload(request, { fileField: "displayPicture", kind: "image", maxBytes: 2 * 1024 * 1024 });
      if (!file) {
        throw new DomainError("invalid", "profile.pictureRequired", { fieldErrors: { displayPicture: ["profile.pictureRequired"] } });
      }
      const { previous } = setDisplayPicture(actor, file.key);
      if (previous) await deleteStored(previous).catch(() => {});
      const { user, profile } = getProfile(actor.id);
      return { message: "profile.pictureUpdated", data: toApiUser(user, profile) };
    }),
});
export const loader = route.loader;
export const action = route.action;
