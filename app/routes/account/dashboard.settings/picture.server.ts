import { data } from "@remix-run/node";
import { updateDisplayPicture, type Actor } from "~/domain/accounts/index.server";
import type { Client } from "~/domain/platform/client";
import type { DomainError } from "~/domain/platform/errors";
import { limit } from "~/domain/platform/index.server";
import type { TFunction } from "i18next";
import { DISPLAY_PICTURE_MAX_BYTES } from "~/schemas/auth";
import { parseUpload } from "~/web/multipart.server";
import { screenFailure } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";
import { SETTINGS } from "./shared";

/**
 * The words this screen uses for a refused picture. The file store speaks of files in general;
 * the person chose a picture, and PictureSection shows the same keys for its own checks before
 * the upload, so the server's answer reads like them.
 */
function pictureErrorKey(err: DomainError) {
  switch (err.code) {
    case "too_large":
      return "profile.pictureTooLarge";
    case "unsupported_type":
      return "profile.pictureBadType";
    case "rate_limited":
      return err.message;
    case "invalid":
      return err.message === "files.empty" ? "profile.pictureRequired" : "profile.pictureFailed";
    default:
      return "profile.pictureFailed";
  }
}

/** Display picture: multipart, the file streamed straight into the encrypted store. */
export async function pictureAction(
  request: Request,
  { actor, t, client }: { actor: Actor; t: TFunction; client: Client },
) {
  try {
    await limit("upload", actor.id, client); // before a single byte of the file is read
    const { file } = await parseUpload(request, {
      fileField: "displayPicture",
      kind: "image",
      maxBytes: DISPLAY_PICTURE_MAX_BYTES,
    });
    await updateDisplayPicture(actor, file);
  } catch (err) {
    // The key (not its translation) goes back: the section translates it with the error's values.
    const f = screenFailure(err, t);
    return data(
      { intent: "picture" as const, error: pictureErrorKey(f.error), values: f.error.extra.values },
      { status: f.status, headers: f.headers },
    );
  }
  return redirectWithSuccess(SETTINGS, t("profile.pictureUpdated"));
}
