import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod";
import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useLocation, useNavigate } from "@remix-run/react";
import type { TFunction } from "i18next";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { decode } from "turbo-stream";
import { z } from "zod";
import { screenMeta } from "~/components/reports/meta";
import { NotAllowed } from "~/components/reports/NotAllowed";
import { ReportTypeOptions } from "~/components/reports/ReportTypeSelect";
import { countryCodeOptions, type CountryCodeOption } from "~/components/reports/screen.server";
import { UploadProgress } from "~/components/reports/UploadProgress";
import { toast } from "~/components/Toaster";
import { describedBy, FieldError, TextAreaField, TextField } from "~/components/ui/Field";
import { FormError } from "~/components/ui/FormError";
import { config } from "~/config.server";
import { HTTP_STATUS, isDomainError, type DomainError } from "~/domain/errors";
import { limit } from "~/domain/ratelimit.server";
import { assertCanUpload, createReport } from "~/domain/reports.server";
import { tFor } from "~/i18n/i18n.server";
import {
  DESCRIPTION_MAX,
  URGENT_REASON_MAX,
  uploadReportFormFields,
  urgentNeedsReason,
} from "~/schemas/reports";
import { requireActor } from "~/utils/auth.server";
import { formatBytes } from "~/utils/format";
import { guardForm } from "~/utils/guard.server";
import { parseUpload } from "~/utils/multipart.server";
import { clientOf } from "~/utils/request.server";
import { redirectWithSuccess } from "~/utils/toast.server";

/** The form's text fields (the file travels as `report`). */
const FIELDS = [
  "reportType",
  "countryCode",
  "phoneNumber",
  "description",
  "consent",
  "urgent",
  "urgentReason",
] as const;
/** Set by the script that sends the form with XMLHttpRequest: answer with data, not a redirect. */
const XHR_FLAG = "_xhr";

export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireActor(request);
  const { t, locale } = await tFor(request);
  const title = t("reports.uploadTitle");
  const maxBytes = config().maxUploadBytes;
  if (actor.accountType !== "Patient") {
    // Experts and admins: the dashboard says why, not the not-found page.
    return data(
      { title, notAllowed: t("reports.patientsOnly"), countryCodes: [] as CountryCodeOption[], maxBytes },
      { status: 403 },
    );
  }
  return { title, notAllowed: null, countryCodes: countryCodeOptions(locale), maxBytes };
}

export const meta: MetaFunction<typeof loader> = screenMeta;

type UploadResult = SubmissionResult<string[]> & { ok?: true };

/** A DomainError as the form's reply: file problems under the file input, the rest where the domain put them. */
function errorReply(err: DomainError, t: TFunction, fields: Record<string, string> | null): UploadResult {
  const message = t(err.message, err.extra.values ?? {});
  const fileProblem =
    err.code === "too_large" || err.code === "unsupported_type" || err.message === "files.empty";
  const fieldErrors: Record<string, string[]> = fileProblem
    ? { report: [message] }
    : { ...(err.extra.fieldErrors ?? {}) };
  const formErrors = fileProblem ? [t("reports.uploadFailed")] : [message];
  const initialValue = fields
    ? Object.fromEntries(FIELDS.filter((k) => k in fields).map((k) => [k, fields[k]]))
    : null;
  return {
    status: "error",
    initialValue,
    error: { "": formErrors, ...fieldErrors },
    fields: [...FIELDS, "report"],
  };
}

export async function action({ request, context }: ActionFunctionArgs) {
  await guardForm(request);
  // Non-patients get 403 "Only patients can upload reports" (assertCanUpload, before the body is read).
  const actor = await requireActor(request);
  const { t } = await tFor(request);
  const wantsData = /\bapplication\/json\b/i.test(request.headers.get("Accept") ?? "");
  let fields: Record<string, string> | null = null;
  try {
    assertCanUpload(actor); // before a single byte of the file is read
    await limit("upload", actor.id, clientOf(context));
    const upload = await parseUpload(request, {
      fileField: "report",
      kind: "report",
      maxBytes: config().maxUploadBytes,
    });
    fields = upload.fields;
    const input = Object.fromEntries(
      FIELDS.filter((k) => k in upload.fields).map((k) => [k, upload.fields[k]]),
    );
    // Validates (with the screen's required country code and consent) and removes the file on failure.
    await createReport(actor, input, upload.file, { form: true, ip: clientOf(context).ip });
  } catch (err) {
    if (!isDomainError(err)) throw err;
    const seconds = err.code === "rate_limited" ? err.extra.retryAfterSeconds : undefined;
    return data<UploadResult>(errorReply(err, t, fields), {
      status: HTTP_STATUS[err.code],
      headers: seconds ? { "Retry-After": String(seconds) } : {},
    });
  }
  if (wantsData || fields?.[XHR_FLAG] === "1") {
    return data<UploadResult>({ status: "success", ok: true }, { status: 201 });
  }
  return redirectWithSuccess("/report-submitted", t("reports.uploadSuccess"));
}

/** The same rules in the browser, plus the file: present and not over the size limit. */
function clientSchema(maxBytes: number) {
  return uploadReportFormFields
    .extend({
      report: z.any().superRefine((value, ctx) => {
        const isFile = typeof File !== "undefined" && value instanceof File && value.size > 0;
        if (!isFile) ctx.addIssue({ code: z.ZodIssueCode.custom, message: "reports.fileRequired" });
        else if ((value as File).size > maxBytes)
          ctx.addIssue({ code: z.ZodIssueCode.custom, message: "files.tooLarge" });
      }),
    })
    .superRefine(urgentNeedsReason);
}

/** What the single-fetch endpoint sent back: the action's data, or a redirect (e.g. signed out). */
async function readReply(xhr: XMLHttpRequest): Promise<{ data?: UploadResult; redirect?: string } | null> {
  try {
    const body = new Response(xhr.response as ArrayBuffer).body;
    if (!body) return null;
    const { value } = await decode(body);
    return value && typeof value === "object" ? (value as { data?: UploadResult; redirect?: string }) : null;
  } catch {
    return null;
  }
}

export default function UploadReport() {
  const { t } = useTranslation();
  const { countryCodes, maxBytes, notAllowed } = useLoaderData<typeof loader>();
  if (notAllowed) return <NotAllowed title={t("reports.uploadTitle")} message={notAllowed} />;
  return <UploadForm countryCodes={countryCodes} maxBytes={maxBytes} />;
}

function UploadForm({ countryCodes, maxBytes }: { countryCodes: CountryCodeOption[]; maxBytes: number }) {
  const { t, i18n } = useTranslation();
  const actionData = useActionData<typeof action>() as UploadResult | undefined;
  const navigate = useNavigate();
  const location = useLocation();
  const formRef = useRef<HTMLFormElement>(null);
  const xhrRef = useRef<XMLHttpRequest | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [xhrResult, setXhrResult] = useState<UploadResult | undefined>();
  const [file, setFile] = useState<File | null>(null);
  const maxMb = Number((maxBytes / (1024 * 1024)).toFixed(1));
  const uploading = progress !== null;

  useEffect(() => () => xhrRef.current?.abort(), []);

  const fail = (message?: string) => {
    setProgress(null);
    toast.show({ type: "error", message: message || t("reports.uploadFailed") });
  };

  const send = (formData: FormData) => {
    formData.set(XHR_FLAG, "1");
    const xhr = new XMLHttpRequest();
    xhrRef.current = xhr;
    // Remix's own data endpoint for this route's action (the same one <Form> would use).
    xhr.open("POST", `${location.pathname.replace(/\/+$/, "")}.data`);
    xhr.setRequestHeader("Accept", "application/json");
    xhr.responseType = "arraybuffer";
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) setProgress((e.loaded / e.total) * 100);
    };
    xhr.onload = async () => {
      xhrRef.current = null;
      const reply = await readReply(xhr);
      if (reply?.redirect) {
        window.location.assign(reply.redirect);
        return;
      }
      const result = reply?.data;
      if (xhr.status >= 200 && xhr.status < 300 && result?.ok) {
        setProgress(100);
        formRef.current?.reset();
        setFile(null);
        setXhrResult(undefined);
        toast.show({ type: "success", message: t("reports.uploadSuccess") });
        navigate("/report-submitted");
        return;
      }
      if (result?.error) {
        // Keep what the user typed: only the errors come from the server.
        setXhrResult({ ...result, initialValue: undefined });
        fail(result.error[""]?.[0]);
        return;
      }
      if (xhr.status === 413) {
        setXhrResult({
          status: "error",
          error: { "": [t("reports.uploadFailed")], report: [t("files.tooLarge", { max: maxMb })] },
          fields: ["report"],
        });
      }
      fail();
    };
    xhr.onerror = () => {
      xhrRef.current = null;
      fail(t("files.uploadInterrupted"));
    };
    xhr.onabort = () => {
      xhrRef.current = null;
      setProgress(null);
      toast.show({ type: "info", message: t("reports.uploadCancelled") });
    };
    setProgress(0);
    xhr.send(formData);
  };

  const [form, fields] = useForm({
    id: "upload-report",
    lastResult: xhrResult ?? actionData,
    defaultValue: { countryCode: "+91" },
    onValidate: ({ formData }) => parseWithZod(formData, { schema: clientSchema(maxBytes) }),
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onSubmit(event, { formData }) {
      // With JavaScript: send it ourselves to show real upload progress on slow connections.
      event.preventDefault();
      if (xhrRef.current) return;
      send(formData);
    },
  });

  /** Field messages are i18n keys from the shared schema or, for the file, already translated. */
  const say = (msg: string) =>
    i18n.exists(msg) ? t(msg, { max: maxMb, types: "PDF, PNG, JPEG, WebP, GIF" }) : msg;
  const fileError = fields.report.errors?.[0];
  const fileHintId = `${fields.report.id}-hint`;
  const fileNameId = `${fields.report.id}-chosen`;

  return (
    <section className="mx-auto max-w-2xl">
      <header className="mb-5">
        <h1 className="text-2xl font-bold text-slate-900 sm:text-3xl">{t("reports.uploadTitle")}</h1>
        <p className="mt-1 text-slate-700">{t("reports.uploadIntro")}</p>
      </header>
      <Form
        ref={formRef}
        method="post"
        encType="multipart/form-data"
        {...getFormProps(form)}
        aria-busy={uploading || undefined}
        className="card space-y-5"
      >
        <FormError id={form.errorId} errors={form.errors?.map(say)} />

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

        <div>
          <label htmlFor={fields.report.id} className="field-label">
            {t("reports.fileLabel")}
            <span aria-hidden="true" className="text-red-700">
              {" "}
              *
            </span>
          </label>
          <div
            className={`rounded-lg border-2 border-dashed px-3 py-3 ${
              fileError ? "border-red-700 bg-red-50/40" : "border-slate-300 bg-slate-50"
            }`}
          >
            <input
              id={fields.report.id}
              name={fields.report.name}
              type="file"
              accept=".pdf,image/*"
              aria-required
              aria-invalid={fileError ? true : undefined}
              aria-describedby={[
                fileHintId,
                file ? fileNameId : null,
                fileError ? fields.report.errorId : null,
              ]
                .filter(Boolean)
                .join(" ")}
              onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
              className="block w-full min-w-0 text-sm text-slate-700 file:mr-3 file:min-h-11 file:cursor-pointer file:rounded-lg file:border file:border-slate-300 file:bg-white file:px-4 file:py-2 file:text-base file:font-semibold file:text-brand-800 hover:file:bg-brand-50"
            />
            {file && (
              <p
                id={fileNameId}
                className="mt-2 text-sm font-semibold break-all text-slate-800"
                data-testid="chosen-file"
              >
                {t("reports.selectedFile", { name: file.name, size: formatBytes(file.size, i18n.language) })}
              </p>
            )}
          </div>
          <p id={fileHintId} className="mt-1 text-sm text-slate-600">
            {t("reports.fileHint", { max: maxMb })}
          </p>
          {actionData?.status === "error" && !file && !fileError && (
            <p className="mt-1 text-sm text-amber-900">{t("reports.chooseAgain")}</p>
          )}
          {fileError ? (
            <p id={fields.report.errorId} className="field-error" role="alert">
              {say(fileError)}
            </p>
          ) : (
            <div id={fields.report.errorId} />
          )}
        </div>

        <div className="grid grid-cols-[minmax(0,1fr)] gap-4 sm:grid-cols-[minmax(0,15rem)_minmax(0,1fr)]">
          <div className="min-w-0">
            <label htmlFor={fields.countryCode.id} className="field-label">
              {t("reports.countryCodeLabel")}
              <span aria-hidden="true" className="text-red-700">
                {" "}
                *
              </span>
            </label>
            <select
              id={fields.countryCode.id}
              name={fields.countryCode.name}
              defaultValue={
                fields.countryCode.errors?.length
                  ? ""
                  : ((fields.countryCode.initialValue as string | undefined) ?? "+91")
              }
              aria-invalid={fields.countryCode.errors?.length ? true : undefined}
              aria-describedby={describedBy(fields.countryCode)}
              aria-required
              autoComplete="tel-country-code"
              className="field-input"
            >
              <option value="">{t("reports.countryCodeLabel")}</option>
              {countryCodes.map((c) => (
                <option key={c.country} value={c.value}>
                  {c.label}
                </option>
              ))}
            </select>
            <FieldError meta={fields.countryCode} />
          </div>
          <TextField
            meta={fields.phoneNumber}
            label={t("reports.phoneLabel")}
            type="tel"
            inputMode="tel"
            autoComplete="tel-national"
            hint={t("reports.phoneHint")}
            required
            maxLength={20}
          />
        </div>

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
            <span className="text-slate-800">{t("reports.consentLabel")}</span>
          </label>
          <FieldError meta={fields.consent} />
        </div>

        {uploading && <UploadProgress percent={progress ?? 0} onCancel={() => xhrRef.current?.abort()} />}

        <button type="submit" className="btn-primary w-full sm:w-auto" disabled={uploading}>
          {uploading ? t("reports.uploading") : t("reports.uploadButton")}
        </button>
      </Form>
    </section>
  );
}
