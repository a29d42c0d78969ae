import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseFormData } from "~/schemas/strict";
import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigate } from "@remix-run/react";
import type { TFunction } from "i18next";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { z } from "zod";
import { screenMeta } from "~/components/reports/meta";
import { NotAllowed } from "~/components/reports/NotAllowed";
import { ReportTypeOptions } from "~/components/reports/ReportTypeSelect";
import type { PhotoResult, Previous, Refusal, Sending } from "~/components/reports/resumable.client";
import { countryCodeOptions, type CountryCodeOption } from "~/utils/country-codes.server";
import { UploadProgress } from "~/components/reports/UploadProgress";
import { toast } from "~/components/Toaster";
import { describedBy, FieldError, TextAreaField, TextField } from "~/components/ui/Field";
import { FormError } from "~/components/ui/FormError";
import { config } from "~/config.server";
import { HTTP_STATUS, isDomainError, type DomainError } from "~/domain/platform/errors";
import { limit } from "~/domain/platform/index.server";
import { assertCanUpload, createReport } from "~/domain/consultation/index.server";
import { tFor } from "~/i18n/i18n.server";
import {
  DESCRIPTION_MAX,
  URGENT_REASON_MAX,
  UPLOAD_FORM_FIELDS,
  uploadReportFormFields,
  urgentNeedsReason,
} from "~/schemas/reports";
import { requireActor } from "~/utils/auth.server";
import { formatBytes } from "~/utils/format";
import { splitE164 } from "~/utils/phone.server";
import { findUserById } from "~/domain/accounts/index.server";
import { guardForm } from "~/utils/guard.server";
import { parseUpload } from "~/utils/multipart.server";
import { clientOf } from "~/utils/request.server";
import { redirectWithSuccess } from "~/utils/toast.server";

export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireActor(request);
  const { t, locale } = await tFor(request);
  const title = t("reports.uploadTitle");
  const maxBytes = config().maxUploadBytes;
  if (actor.accountType !== "Patient") {
    // Experts and admins: the dashboard says why, not the not-found page.
    return data(
      {
        title,
        notAllowed: t("reports.patientsOnly"),
        countryCodes: [] as CountryCodeOption[],
        maxBytes,
        owner: "",
        contact: { countryCode: "+91", phoneNumber: "" },
      },
      { status: 403 },
    );
  }
  // The number to call is filled in from the account (the mobile number a phone patient signed up with).
  const user = await findUserById(actor.id);
  const mobile = splitE164(user?.phone);
  const contact = {
    countryCode: mobile?.countryCode ?? user?.countryCode ?? "+91",
    phoneNumber: mobile?.national ?? user?.contactNumber ?? "",
  };
  // `owner` keeps one account's unfinished uploads apart from another's on a shared phone.
  return {
    title,
    notAllowed: null,
    countryCodes: countryCodeOptions(locale),
    maxBytes,
    owner: actor.id,
    contact,
  };
}

export const meta: MetaFunction<typeof loader> = screenMeta;

type UploadResult = SubmissionResult<string[]>;

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
    ? Object.fromEntries(UPLOAD_FORM_FIELDS.filter((k) => k in fields).map((k) => [k, fields[k]]))
    : null;
  return {
    status: "error",
    initialValue,
    error: { "": formErrors, ...fieldErrors },
    fields: [...UPLOAD_FORM_FIELDS, "report"],
  };
}

export async function action({ request, context }: ActionFunctionArgs) {
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
      maxBytes: config().maxUploadBytes,
    });
    fields = upload.fields;
    const input = Object.fromEntries(
      UPLOAD_FORM_FIELDS.filter((k) => k in upload.fields).map((k) => [k, upload.fields[k]]),
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
  return redirectWithSuccess("/report-submitted", t("reports.uploadSuccess"));
}

export default function UploadReport() {
  const { t } = useTranslation();
  const { countryCodes, maxBytes, notAllowed, owner, contact } = useLoaderData<typeof loader>();
  if (notAllowed) return <NotAllowed title={t("reports.uploadTitle")} message={notAllowed} />;
  return <UploadForm countryCodes={countryCodes} maxBytes={maxBytes} owner={owner} contact={contact} />;
}

type UploadModule = typeof import("~/components/reports/resumable.client");
type Prepared = { photo: PhotoResult; previous: Previous | null };

let uploadModule: Promise<UploadModule> | undefined;

/**
 * The upload code — tus-js-client and the photo shrinking — is its own chunk, fetched by this page
 * only (tests/integration/js-budget.test.ts checks that / and /login never load it).
 */
function loadUploadModule(): Promise<UploadModule> {
  uploadModule ??= import("~/components/reports/resumable.client").catch((err) => {
    uploadModule = undefined; // a flaky link: try again next time
    throw err;
  });
  return uploadModule;
}

/** Photos the browser may make smaller before sending (their size is checked after that, by the server). */
const SHRINKABLE = /^image\/(?:jpeg|png|webp)$/;

/** The same rules in the browser, plus the file: present and not over the size limit. */
function clientSchema(maxBytes: number) {
  return uploadReportFormFields
    .extend({
      report: z.any().superRefine((value, ctx) => {
        const isFile = typeof File !== "undefined" && value instanceof File && value.size > 0;
        if (!isFile) ctx.addIssue({ code: z.ZodIssueCode.custom, message: "reports.fileRequired" });
        else if ((value as File).size > maxBytes && !SHRINKABLE.test((value as File).type))
          ctx.addIssue({ code: z.ZodIssueCode.custom, message: "files.tooLarge" });
      }),
    })
    .superRefine(urgentNeedsReason);
}

function UploadForm({
  countryCodes,
  maxBytes,
  owner,
  contact,
}: {
  countryCodes: CountryCodeOption[];
  maxBytes: number;
  /** The account's own number, filled in (it can be changed). */
  contact: { countryCode: string; phoneNumber: string };
  owner: string;
}) {
  const { t, i18n } = useTranslation();
  const actionData = useActionData<typeof action>() as UploadResult | undefined;
  const navigate = useNavigate();
  const formRef = useRef<HTMLFormElement>(null);
  const sendingRef = useRef<Sending | null>(null);
  const preparedRef = useRef<Promise<Prepared | null> | null>(null);
  const [progress, setProgress] = useState<{ sent: number; total: number } | null>(null);
  const [waiting, setWaiting] = useState(false);
  const [serverResult, setServerResult] = useState<UploadResult | undefined>();
  const [file, setFile] = useState<File | null>(null);
  const [prepared, setPrepared] = useState<Prepared | null>(null);
  const [preparing, setPreparing] = useState(false);
  const [unfinished, setUnfinished] = useState(false);
  const maxMb = Number((maxBytes / (1024 * 1024)).toFixed(1));
  const uploading = progress !== null;
  const size = (bytes: number) => formatBytes(bytes, i18n.language);

  useEffect(() => {
    let live = true;
    // Fetches the upload code while the patient fills in the form, and says when an upload is unfinished.
    loadUploadModule()
      .then((m) => m.hasUnfinished(owner))
      .then((yes) => live && setUnfinished(yes))
      .catch(() => {});
    return () => {
      live = false;
      // Leaving the page stops sending; choosing the same file later continues the upload.
      sendingRef.current?.pause();
    };
  }, [owner]);

  /** Makes a photo smaller and looks for an unfinished upload of the result. */
  const prepare = async (chosen: File): Promise<Prepared | null> => {
    try {
      const m = await loadUploadModule();
      const photo = await m.shrinkPhoto(chosen);
      return { photo, previous: await m.findPrevious(photo.file, owner) };
    } catch {
      return null; // the upload code could not be fetched: the form is posted as it is
    }
  };

  /** The details given when an unfinished upload began, back in the form. */
  const fillIn = (fields: Record<string, string>) => {
    const form = formRef.current;
    if (!form) return;
    for (const name of UPLOAD_FORM_FIELDS) {
      const el = form.elements.namedItem(name);
      if (el instanceof HTMLInputElement && el.type === "checkbox") el.checked = !!fields[name];
      else if (
        el instanceof HTMLInputElement ||
        el instanceof HTMLSelectElement ||
        el instanceof HTMLTextAreaElement
      )
        el.value = fields[name] ?? "";
    }
  };

  const choose = (chosen: File | null) => {
    setFile(chosen);
    setPrepared(null);
    if (!chosen) {
      preparedRef.current = null;
      setPreparing(false);
      return;
    }
    const job = prepare(chosen);
    preparedRef.current = job;
    setPreparing(SHRINKABLE.test(chosen.type));
    void job.then((p) => {
      if (preparedRef.current !== job) return;
      setPreparing(false);
      setPrepared(p);
      if (p?.previous) fillIn(p.previous.fields);
    });
  };

  const refused = (r: Refusal) => {
    sendingRef.current = null;
    setProgress(null);
    setWaiting(false);
    if (r.status === 401) {
      window.location.assign(`/login?redirectTo=${encodeURIComponent("/dashboard/upload-report")}`);
      return;
    }
    const message = r.message || t("reports.uploadFailed");
    if (r.status === 413 || r.status === 415 || r.errors?.report) {
      setServerResult({
        status: "error",
        error: { "": [t("reports.uploadFailed")], report: [r.errors?.report?.[0] ?? message] },
        fields: ["report"],
      });
      toast.show({ type: "error", message: t("reports.uploadFailed") });
      return;
    }
    if (r.errors)
      setServerResult({
        status: "error",
        error: { "": [message], ...r.errors },
        fields: [...UPLOAD_FORM_FIELDS],
      });
    toast.show({ type: "error", message });
  };

  const start = async (formData: FormData) => {
    if (!file) return;
    setServerResult(undefined);
    setProgress({ sent: 0, total: file.size });
    let m: UploadModule | null = null;
    try {
      m = await loadUploadModule();
    } catch {
      /* below */
    }
    const p = m ? await (preparedRef.current ?? prepare(file)) : null;
    if (!m || !p) {
      // Without the upload code the form goes as a plain post, as it does without JavaScript.
      setProgress(null);
      formRef.current?.submit();
      return;
    }
    const toSend = p.photo.file;
    const metadata = m.metadataFrom(formData, toSend);
    // The earlier upload continues only with the same details; otherwise a new one replaces it.
    const previous = p.previous && m.sameFields(p.previous.fields, metadata) ? p.previous : null;
    if (p.previous && !previous) m.forget(p.previous);
    setProgress({ sent: previous?.offset ?? 0, total: toSend.size });
    sendingRef.current = await m.send(toSend, {
      owner,
      metadata,
      previous,
      onProgress: (sent, total) => setProgress({ sent, total }),
      onWaiting: setWaiting,
      onDone: () => {
        sendingRef.current = null;
        setProgress({ sent: toSend.size, total: toSend.size });
        toast.show({ type: "success", message: t("reports.uploadSuccess") });
        navigate("/report-submitted");
      },
      onRefused: refused,
    });
  };

  const cancel = () => {
    sendingRef.current?.cancel();
    sendingRef.current = null;
    setProgress(null);
    setWaiting(false);
    setPrepared((p) => p && { ...p, previous: null });
    toast.show({ type: "info", message: t("reports.uploadCancelled") });
  };

  const [form, fields] = useForm({
    id: "upload-report",
    lastResult: serverResult ?? actionData,
    defaultValue: { countryCode: contact.countryCode, phoneNumber: contact.phoneNumber },
    onValidate: ({ formData }) => parseFormData(formData, { schema: clientSchema(maxBytes) }),
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
  const fileError = fields.report.errors?.[0];
  const fileHintId = `${fields.report.id}-hint`;
  const fileNameId = `${fields.report.id}-chosen`;
  const photoId = `${fields.report.id}-photo`;
  const resumeId = `${fields.report.id}-resume`;
  const previous = prepared?.previous ?? null;
  const shrunk = prepared?.photo.changed ? prepared.photo : null;

  return (
    <section className="mx-auto max-w-2xl">
      <header className="mb-5">
        <h1 className="text-2xl font-bold text-slate-900 sm:text-3xl">{t("reports.uploadTitle")}</h1>
        <p className="mt-1 text-slate-700">{t("reports.uploadIntro")}</p>
      </header>
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
                shrunk ? photoId : null,
                previous ? resumeId : null,
                fileError ? fields.report.errorId : null,
              ]
                .filter(Boolean)
                .join(" ")}
              onChange={(e) => choose(e.currentTarget.files?.[0] ?? null)}
              disabled={uploading}
              className="block w-full min-w-0 text-sm text-slate-700 file:mr-3 file:min-h-11 file:cursor-pointer file:rounded-lg file:border file:border-slate-300 file:bg-white file:px-4 file:py-2 file:text-base file:font-semibold file:text-brand-800 hover:file:bg-brand-50"
            />
            {file && (
              <p
                id={fileNameId}
                className="mt-2 text-sm font-semibold break-all text-slate-800"
                data-testid="chosen-file"
              >
                {t("reports.selectedFile", { name: file.name, size: size(file.size) })}
              </p>
            )}
            {preparing && (
              <p className="mt-1 text-sm text-slate-700" role="status">
                {t("reports.photoPreparing")}
              </p>
            )}
            {shrunk && (
              <p id={photoId} className="mt-1 text-sm text-green-800" data-testid="photo-size">
                {t("reports.photoSmaller", { before: size(shrunk.before), after: size(shrunk.after) })}
              </p>
            )}
            {previous && !uploading && (
              <p
                id={resumeId}
                className="mt-2 rounded-md border border-sky-300 bg-sky-50 px-3 py-2 text-sm text-sky-900"
                data-testid="resume-found"
              >
                {t("reports.resumeFound", { sent: size(previous.offset), total: size(previous.length) })}
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

        {progress && (
          <UploadProgress
            sent={progress.sent}
            total={progress.total}
            waiting={waiting}
            onRetry={() => sendingRef.current?.retryNow()}
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
