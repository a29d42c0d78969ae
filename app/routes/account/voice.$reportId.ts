import type { ActionFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { addVoiceNote, setHeardNote, voiceMaxBytes } from "~/domain/consultation/index.server";
import { limit } from "~/domain/platform/index.server";
import { tFor } from "~/i18n/i18n.server";
import { requireActor } from "~/web/auth.server";
import { readForm } from "~/web/forms.server";
import { guardForm } from "~/web/guard.server";
import { parseUpload } from "~/web/multipart.server";
import { clientOf } from "~/web/request.server";
import { toastFailure } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";

/**
 * The screens' voice-note forms post here (decision 0037), with or without JavaScript: a
 * recording (multipart: `audio`, `kind`, `language`, `question`) or the typed "what I heard"
 * (`intent=heard`, `noteId`, `heardNote`). Either way the person lands back where they were
 * (`back`, a path inside the dashboard), with the outcome as a toast.
 */
function backTo(raw: unknown, reportId: string) {
  const back = typeof raw === "string" ? raw : "";
  const safe = /^\/dashboard(\/[^\\]*)?$/.test(back) && !back.startsWith("//") ? back : "/dashboard";
  return safe.includes("#") ? safe : `${safe}#voice-${encodeURIComponent(reportId)}`;
}

export async function action({ request, params, context }: ActionFunctionArgs) {
  await guardForm(request);
  const actor = await requireActor(request);
  const { t } = await tFor(request);
  const reportId = params.reportId ?? "";
  const ip = clientOf(context).ip;
  const back = new URL(request.url).searchParams.get("back");
  const to = backTo(back, reportId);
  if (!/^multipart\/form-data/i.test(request.headers.get("Content-Type") ?? "")) {
    const form = await readForm(request);
    try {
      await setHeardNote(
        actor,
        String(form.get("noteId") ?? ""),
        { heardNote: form.has("heardNote") ? form.get("heardNote") : undefined },
        { ip },
      );
    } catch (err) {
      return toastFailure(err, t, to, { field: "heardNote" });
    }
    return redirectWithSuccess(to, t("voice.heardSaved"));
  }
  try {
    await limit("upload", actor.id, clientOf(context));
    const { fields, file } = await parseUpload(request, {
      fileField: "audio",
      kind: "audio",
      maxBytes: voiceMaxBytes(),
    });
    await addVoiceNote(actor, reportId, fields, file, { ip });
  } catch (err) {
    return toastFailure(err, t, to, { field: "audio" });
  }
  return redirectWithSuccess(to, t("voice.added"));
}

export function loader() {
  return redirect("/dashboard");
}
