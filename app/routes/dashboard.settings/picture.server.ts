import { data } from "@remix-run/node";
import { updateDisplayPicture, type Actor } from "~/domain/accounts/index.server";
import type { Client } from "~/domain/platform/client";
import { HTTP_STATUS, isDomainError, type DomainError } from "~/domain/platform/errors";
import { limit } from "~/domain/platform/index.server";
import { tFor } from "~/i18n/i18n.server";
import { DISPLAY_PICTURE_MAX_BYTES } from "~/schemas/auth";
import { parseUpload } from "~/utils/multipart.server";
import { redirectWithSuccess } from "~/utils/toast.server";
import { SETTINGS } from "./shared";

/** The picture upload's error as an i18n key of this screen (the file store's codes mapped). */
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
export async function pictureAction(request: Request, actor: Actor, client: Client) {
  const fail = (key: string, status = 400, e?: DomainError) => {
    const seconds = e?.extra.retryAfterSeconds;
    const headers: Record<string, string> = seconds ? { "Retry-After": String(seconds) } : {};
    return data({ intent: "picture" as const, error: key, values: e?.extra.values }, { status, headers });
  };
  try {
    await limit("upload", actor.id, client); // before a single byte of the file is read
    const { file } = await parseUpload(request, {
      fileField: "displayPicture",
      kind: "image",
      maxBytes: DISPLAY_PICTURE_MAX_BYTES,
    });
    await updateDisplayPicture(actor, file);
  } catch (err) {
    if (isDomainError(err)) return fail(pictureErrorKey(err), HTTP_STATUS[err.code], err);
    throw err;
  }
  const { t } = await tFor(request);
  return redirectWithSuccess(SETTINGS, t("profile.pictureUpdated"));
}
