import { getFormProps, useForm } from "@conform-to/react";
import { Form, useActionData } from "@remix-run/react";
import { useRef } from "react";
import { useTranslation } from "~/i18n/useTranslation";
import { ReportTypeOptions } from "~/components/reports/ReportTypeSelect";
import { UploadProgress } from "~/components/reports/UploadProgress";
import { describedBy, FieldError, TextAreaField, TextField } from "~/components/ui/Field";
import { FormError } from "~/components/ui/FormError";
import { DESCRIPTION_MAX, URGENT_REASON_MAX } from "~/schemas/reports";
import { parseFormData } from "~/schemas/strict";
import type { CountryCodeOption } from "~/lib/country-codes.server";
import { formatBytes } from "~/lib/format";
import { clientSchema } from "./client-schema";
import { ContactFields } from "./ContactFields";
import { FileField } from "./FileField";
import type { action } from "./route";
import { useResumableUpload, type UploadResult } from "./useResumableUpload";
import type { Whose } from "./route";
import { PatientSearch, WhoseReportField } from "./WhoseReport";

/**
 * The report form. Without JavaScript a plain multipart post (uploadAction); with it, the file
 * goes over the resumable upload and the server's refusal comes back onto the same fields.
 */
export function UploadForm({
  countryCodes,
  maxBytes,
  studyBytes = maxBytes,
  owner,
  contact,
  whose = null,
  forPatient = false,
}: {
  countryCodes: CountryCodeOption[];
  maxBytes: number;
  /** MAX_STUDY_MB in bytes: medical images may be larger. */
  studyBytes?: number;
  /** The account's own number, filled in (it can be changed). */
  contact: { countryCode: string; phoneNumber: string };
  owner: string;
  /** Whose report: a worker's centre patients or a family's members (null: the uploader's own). */
  whose?: Whose | null;
  /** Sent for someone else (a worker's patient, a family member): the form speaks about the patient. */
  forPatient?: boolean;
}) {
  const { t, i18n } = useTranslation();
  const actionData = useActionData<typeof action>() as UploadResult | undefined;
  const formRef = useRef<HTMLFormElement>(null);
  const upload = useResumableUpload(owner, formRef);
  const { file, prepared, unfinished, progress, waiting, serverResult, uploading, start, cancel } = upload;
  const maxMb = Number((maxBytes / (1024 * 1024)).toFixed(1));
  const size = (bytes: number) => formatBytes(bytes, i18n.language);

  const [form, fields] = useForm({
    id: "upload-report",
    lastResult: serverResult ?? actionData,
    defaultValue: { countryCode: contact.countryCode, phoneNumber: contact.phoneNumber },
    onValidate: ({ formData }) => parseFormData(formData, { schema: clientSchema(maxBytes, studyBytes) }),
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onSubmit(event, { formData }) {
      // With JavaScript: resumable, in chunks, with real progress (decision 0015).
      event.preventDefault();
      if (uploading) return;
      void start(formData);
    },
  });

  /** Field messages are i18n keys from the shared schema or, for the file, already translated. */
  const say = (msg: string) =>
    i18n.exists(msg) ? t(msg, { max: maxMb, types: "PDF, PNG, JPEG, WebP, GIF" }) : msg;
  const previous = prepared?.previous ?? null;

  return (
    <section className="mx-auto max-w-2xl">
      <header className="mb-5">
        <h1 className="text-2xl font-bold text-slate-900 sm:text-3xl">{t("reports.uploadTitle")}</h1>
        <p className="mt-1 text-slate-700">
          {t(forPatient ? "reports.uploadIntroPatient" : "reports.uploadIntro")}
        </p>
      </header>
      {whose && <PatientSearch whose={whose} />}
      {unfinished && !file && !uploading && (
        <p
          className="mb-4 rounded-lg border border-sky-300 bg-sky-50 px-4 py-3 text-sky-900"
          data-testid="resume-hint"
        >
          {t("reports.resumeHint")}
        </p>
      )}
      <Form
        ref={formRef}
        method="post"
        encType="multipart/form-data"
        {...getFormProps(form)}
        aria-busy={uploading || undefined}
        className="card space-y-5"
      >
        <FormError id={form.errorId} errors={form.errors?.map(say)} />

        {whose && <WhoseReportField whose={whose} meta={fields.patientId} />}

        <div>
          <label htmlFor={fields.reportType.id} className="field-label">
            {t("reports.reportTypeLabel")}
            <span aria-hidden="true" className="text-red-700">
              {" "}
              *
            </span>
          </label>
          <select
            id={fields.reportType.id}
            name={fields.reportType.name}
            defaultValue={(fields.reportType.initialValue as string | undefined) ?? ""}
            aria-invalid={fields.reportType.errors?.length ? true : undefined}
            aria-describedby={describedBy(fields.reportType)}
            aria-required
            className="field-input"
          >
            <ReportTypeOptions placeholder={t("reports.selectReportType")} />
          </select>
          <FieldError meta={fields.reportType} />
        </div>

        <FileField
          meta={fields.report}
          upload={upload}
          maxMb={maxMb}
          studyMb={Number((studyBytes / (1024 * 1024)).toFixed(1))}
          chooseAgain={actionData?.status === "error"}
          say={say}
          size={size}
        />

        <ContactFields
          countryCode={fields.countryCode}
          phoneNumber={fields.phoneNumber}
          countryCodes={countryCodes}
          forPatient={forPatient}
        />

        <TextAreaField
          meta={fields.description}
          label={`${t("reports.descriptionLabel")} ${t("common.optional")}`}
          maxLength={DESCRIPTION_MAX}
          placeholder={t("reports.descriptionHint")}
        />

        <fieldset className="space-y-3 rounded-lg border border-amber-300 bg-amber-50/60 p-3">
          <legend className="sr-only">{t("reports.urgentLabel")}</legend>
          <label className="flex cursor-pointer items-start gap-3">
            <input
              id={fields.urgent.id}
              name={fields.urgent.name}
              type="checkbox"
              defaultChecked={fields.urgent.initialValue === "on"}
              aria-describedby={`${fields.urgent.id}-hint`}
              className="mt-1 h-5 w-5 shrink-0 accent-amber-700"
              data-testid="urgent"
            />
            <span>
              <span className="font-semibold text-slate-900">{t("reports.urgentLabel")}</span>
              <span id={`${fields.urgent.id}-hint`} className="block text-sm text-slate-700">
                {t("reports.urgentHint")}
              </span>
            </span>
          </label>
          <TextField
            meta={fields.urgentReason}
            label={t("reports.urgentReasonLabel")}
            maxLength={URGENT_REASON_MAX}
          />
        </fieldset>

        <div>
          <label className="flex cursor-pointer items-start gap-3 rounded-lg border border-slate-200 bg-slate-50 p-3">
            <input
              id={fields.consent.id}
              name={fields.consent.name}
              type="checkbox"
              defaultChecked={fields.consent.initialValue === "on"}
              aria-invalid={fields.consent.errors?.length ? true : undefined}
              aria-describedby={describedBy(fields.consent)}
              aria-required
              className="mt-1 h-5 w-5 shrink-0 accent-brand-700"
            />
            <span className="text-slate-800">
              {t(forPatient ? "reports.consentLabelPatient" : "reports.consentLabel")}
            </span>
          </label>
          <FieldError meta={fields.consent} />
        </div>

        {progress && (
          <UploadProgress
            sent={progress.sent}
            total={progress.total}
            waiting={waiting}
            onRetry={upload.retryNow}
            onCancel={cancel}
          />
        )}

        <button type="submit" className="btn-primary w-full sm:w-auto" disabled={uploading}>
          {uploading
            ? t("reports.uploading")
            : previous
              ? t("reports.continueUpload")
              : t("reports.uploadButton")}
        </button>
      </Form>
    </section>
  );
}
