import type { SubmissionResult } from "@conform-to/react";
import type { ActionFunctionArgs } from "@remix-run/node";
import { config } from "~/config.server";
import { registerPatient, requireWorkerCentre, withRegistrationBudget } from "~/domain/care/index.server";
import { tFor } from "~/i18n/i18n.server";
import { REGISTRATION_FIELDS } from "~/schemas/registration";
import { requireActor } from "~/web/auth.server";
import { guardForm } from "~/web/guard.server";
import { parseUpload } from "~/web/multipart.server";
import { clientOf } from "~/web/request.server";
import { formFailure } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";

/**
 * The registration form, one multipart post (the photo of a signature or thumbprint with it). A
 * refusal comes back onto the form with everything typed kept (the photo has to be chosen again);
 * a patient who refused consent gets the message what to do, and nothing is saved.
 */
export async function registerAction({ request, context }: ActionFunctionArgs) {
  await guardForm(request);
  const actor = await requireActor(request);
  const { t } = await tFor(request);
  let fields: Record<string, string> | null = null;
  try {
    await requireWorkerCentre(actor); // before a byte of the photo is read
    const patient = await withRegistrationBudget(actor, clientOf(context), async () => {
      const upload = await parseUpload(request, {
        fileField: "evidence",
        kind: "image",
        maxBytes: config().maxUploadBytes,
      });
      fields = upload.fields;
      const input = Object.fromEntries(
        REGISTRATION_FIELDS.filter((k) => k in upload.fields).map((k) => [k, upload.fields[k]]),
      );
      return registerPatient(actor, input, upload.file, { ip: clientOf(context).ip });
    });
    return redirectWithSuccess(
      `/dashboard/centre/patients/${encodeURIComponent(patient._id)}/slip`,
      t("registration.registeredToast", { shortId: patient.shortId }),
    );
  } catch (err) {
    const given = fields;
    const reply = (o: { formErrors?: string[]; fieldErrors?: Record<string, string[]> }) =>
      ({
        status: "error",
        initialValue: given
          ? Object.fromEntries(REGISTRATION_FIELDS.filter((k) => k in given).map((k) => [k, given[k]]))
          : null,
        error: { "": o.formErrors ?? [], ...(o.fieldErrors ?? {}) },
        fields: [...REGISTRATION_FIELDS, "evidence"],
      }) satisfies SubmissionResult<string[]>;
    return formFailure(err, t, reply, {
      onField: {
        field: "evidence",
        when: (e) => e.code === "too_large" || e.code === "unsupported_type" || e.message === "files.empty",
        formKey: "registration.checkFields",
      },
    });
  }
}
