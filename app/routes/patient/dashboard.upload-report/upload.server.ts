import type { SubmissionResult } from "@conform-to/react";
import { data, type ActionFunctionArgs } from "@remix-run/node";
import { assertCanUpload, createReport, refuseReportUpload } from "~/domain/consultation/index.server";
import { limit, zodFieldErrors } from "~/domain/platform/index.server";
import { reportUploadMaxBytes } from "~/domain/records/index.server";
import { tFor } from "~/i18n/i18n.server";
import { UPLOAD_FORM_FIELDS, uploadReportFormSchema } from "~/schemas/reports";
import { formSchema } from "~/schemas/strict";
import { requireActor } from "~/web/auth.server";
import { actorFromCookie } from "~/web/session-cookie.server";
import { guardForm } from "~/web/guard.server";
import { idempotent } from "~/web/idempotency.server";
import { parseUpload } from "~/web/multipart.server";
import { clientOf } from "~/web/request.server";
import { formFailure } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";

/**
 * The action, once per `Idempotency-Key` (decision 0062): an outbox item re-sent after a lost answer
 * makes one report; a refusal of the key shows on the form like any other.
 */
export function uploadActionOnce(args: ActionFunctionArgs) {
  return idempotent(
    args.request,
    {
      maxBytes: reportUploadMaxBytes(),
      actor: actorFromCookie,
      refuse: (status, message, headers) =>
        data(
          {
            status: "error",
            initialValue: null,
            error: { "": [message] },
            fields: [...UPLOAD_FORM_FIELDS, "report"],
          } satisfies SubmissionResult<string[]>,
          { status, headers },
        ),
    },
    (request) => uploadAction({ ...args, request }),
  );
}

/**
 * The form posted without JavaScript (or when the upload code could not be fetched): one
 * multipart request with the file. A refusal comes back onto the form with the details given,
 * file problems under the file input, the rest where the domain put them.
 */
export async function uploadAction({ request, context }: ActionFunctionArgs) {
  await guardForm(request);
  // Non-patients get 403 "Only patients can upload reports" (assertCanUpload, before the body is read).
  const actor = await requireActor(request);
  const { t } = await tFor(request);
  let fields: Record<string, string> | null = null;
  try {
    assertCanUpload(actor); // before a single byte of the file is read
    await limit("upload", actor.id, clientOf(context));
    const upload = await parseUpload(request, {
      fileField: "report",
      kind: "report",
      maxBytes: reportUploadMaxBytes(),
    });
    fields = upload.fields;
    const input = Object.fromEntries(
      UPLOAD_FORM_FIELDS.filter((k) => k in upload.fields).map((k) => [k, upload.fields[k]]),
    );
    // The screen also requires a country code and consent: read with its own schema first (a
    // refusal removes the file), then the domain validates the one shape every adapter sends.
    const screen = formSchema(uploadReportFormSchema).safeParse(input);
    if (!screen.success) await refuseReportUpload(upload.file, zodFieldErrors(screen.error));
    await createReport(actor, input, upload.file, { ip: clientOf(context).ip });
  } catch (err) {
    const given = fields;
    // The browser cannot put a file back, so the reply carries the other details as they were sent.
    const reply = (o: { formErrors?: string[]; fieldErrors?: Record<string, string[]> }) =>
      ({
        status: "error",
        initialValue: given
          ? Object.fromEntries(UPLOAD_FORM_FIELDS.filter((k) => k in given).map((k) => [k, given[k]]))
          : null,
        error: { "": o.formErrors ?? [], ...(o.fieldErrors ?? {}) },
        fields: [...UPLOAD_FORM_FIELDS, "report"],
      }) satisfies SubmissionResult<string[]>;
    return formFailure(err, t, reply, {
      onField: {
        field: "report",
        when: (e) => e.code === "too_large" || e.code === "unsupported_type" || e.message === "files.empty",
        formKey: "reports.uploadFailed",
      },
    });
  }
  return redirectWithSuccess("/report-submitted", t("reports.uploadSuccess"));
}
