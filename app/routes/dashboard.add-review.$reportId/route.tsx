import { getFormProps, useForm } from "@conform-to/react";
import { parseFormData } from "~/schemas/strict";
import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { useDateText } from "~/components/reports/LocalDate";
import { screenMeta } from "~/components/reports/meta";
import { NotAllowed } from "~/components/reports/NotAllowed";
import { PageHeader } from "~/components/reports/PageHeader";
import { useReportTypeLabel } from "~/components/reports/ReportTypeSelect";
import { pageError } from "~/utils/screen.server";
import { Flag, StatusBadge } from "~/components/reports/StatusBadge";
import { useHydrated } from "~/components/reports/useHydrated";
import { TextAreaField } from "~/components/ui/Field";
import { FormError } from "~/components/ui/FormError";
import { config } from "~/config.server";
import { isDomainError } from "~/domain/platform/errors";
import {
  addReview,
  claimReport,
  releaseReport,
  reviewScreenReport,
} from "~/domain/consultation/index.server";
import { tFor } from "~/i18n/i18n.server";
import { REVIEW_MAX, reviewSchema } from "~/schemas/reports";
import { requireActor } from "~/utils/auth.server";
import { readForm } from "~/utils/forms.server";
import { guardForm } from "~/utils/guard.server";
import { clientOf } from "~/utils/request.server";
import { formFailure } from "~/utils/screen.server";
import { redirectWithError, redirectWithSuccess } from "~/utils/toast.server";

export async function loader({ request, params }: LoaderFunctionArgs) {
  const actor = await requireActor(request);
  const { t } = await tFor(request);
  const title = t("reports.addReview");
  if (actor.accountType !== "Expert") {
    // Patients and admins: the dashboard says why (the spec's message), not the not-found page.
    return data(
      { title, notAllowed: t("reports.onlyExperts"), approved: false as const, report: null },
      { status: 403 },
    );
  }
  if (!actor.approved) return { title, notAllowed: null, approved: false as const, report: null };
  let report: Awaited<ReturnType<typeof reviewScreenReport>>["report"];
  let fileAllowed: boolean;
  try {
    ({ report, fileAllowed } = await reviewScreenReport(actor, params.reportId ?? ""));
  } catch (err) {
    pageError(err);
  }
  const claimedByMe = report.claimedBy?._id === actor.id;
  return {
    title,
    notAllowed: null,
    approved: true as const,
    report: {
      _id: report._id,
      reportType: report.reportType,
      description: report.description,
      createdAt: report.createdAt,
      reportUrl: report.reportUrl,
      // Issue 19: the domain decides from the report's row, by the same rule as the file route.
      fileAllowed,
      resourceType: report.resourceType,
      status: report.status,
      urgent: report.urgent,
      urgentReason: report.urgentReason,
      overdue: report.overdue,
      matches: !!report.matchesSpecialties,
      claimedBy: report.claimedBy
        ? `${report.claimedBy.firstName} ${report.claimedBy.lastName}`.trim()
        : null,
      claimedByMe,
      claimUntil:
        claimedByMe && report.claimedAt
          ? new Date(Date.parse(report.claimedAt) + config().claimTtlMs).toISOString()
          : null,
    },
  };
}

export const meta: MetaFunction<typeof loader> = screenMeta;

export async function action({ request, params, context }: ActionFunctionArgs) {
  await guardForm(request);
  // Non-experts get 403 "Only experts can add reviews" from the domain.
  const actor = await requireActor(request);
  const { t } = await tFor(request);
  const reportId = params.reportId ?? "";
  const here = `/dashboard/add-review/${encodeURIComponent(reportId)}`;
  const form = await readForm(request);
  const intent = form.get("intent");
  if (intent === "claim" || intent === "release") {
    try {
      if (intent === "claim") await claimReport(actor, reportId, { ip: clientOf(context).ip });
      else await releaseReport(actor, reportId, { ip: clientOf(context).ip });
    } catch (err) {
      if (!isDomainError(err)) throw err;
      return redirectWithError(here, t(err.message, err.extra.values ?? {}));
    }
    return intent === "claim"
      ? redirectWithSuccess(here, t("reports.claimSuccess"))
      : redirectWithSuccess("/dashboard/pending-report", t("reports.releaseSuccess"));
  }
  const submission = parseFormData(form, { schema: reviewSchema });
  if (submission.status !== "success") {
    return Response.json(submission.reply(), { status: 400 });
  }
  try {
    // Only approved experts holding the claim (or a free report); the first review wins.
    await addReview(actor, reportId, submission.value, { ip: clientOf(context).ip });
  } catch (err) {
    if (isDomainError(err) && err.code === "conflict") {
      // Someone was first: say so and keep the text, but never overwrite.
      return data(
        { ...submission.reply({ formErrors: [t(err.message, err.extra.values ?? {})] }), conflict: true },
        { status: 409 },
      );
    }
    return formFailure(err, t, (o) => submission.reply(o));
  }
  return redirectWithSuccess("/dashboard/pending-report", t("reports.reviewSuccess"));
}

type Report = NonNullable<ReturnType<typeof useLoaderData<typeof loader>>["report"]>;

/** The report beside the form: the PDF in the browser's viewer, a photo with zoom. */
function ReportViewer({ report }: { report: Report }) {
  const { t } = useTranslation();
  const typeLabel = useReportTypeLabel();
  const hydrated = useHydrated();
  const [zoom, setZoom] = useState(1);
  const steps = [1, 1.5, 2, 3];
  const i = steps.indexOf(zoom);
  return (
    <figure className="card flex min-h-0 flex-col gap-3 p-3" aria-labelledby="viewer-caption">
      <figcaption id="viewer-caption" className="flex flex-wrap items-center justify-between gap-2">
        <span className="font-semibold text-slate-900">
          {t("reports.reportFile")}: {typeLabel(report.reportType)}
        </span>
        <a href={report.reportUrl} target="_blank" rel="noopener noreferrer" className="link text-sm">
          {t("reports.openInNewTab")}
          <span className="sr-only"> {t("reports.opensInNewTab")}</span>
        </a>
      </figcaption>
      {report.resourceType === "raw" ? (
        <iframe
          src={report.reportUrl}
          title={`${t("reports.reportFile")}: ${typeLabel(report.reportType)}`}
          className="h-[60vh] w-full rounded-md border border-slate-200 bg-slate-100 lg:h-[75vh]"
          data-testid="report-viewer"
        >
          {t("reports.pdfFallback")}
        </iframe>
      ) : (
        <>
          {hydrated && (
            <div className="flex gap-2" role="group" aria-label={t("reports.reportFile")}>
              <button
                type="button"
                className="btn-secondary px-3"
                onClick={() => setZoom(steps[Math.max(0, i - 1)])}
                disabled={i <= 0}
              >
                {t("reports.zoomOut")}
              </button>
              <button
                type="button"
                className="btn-secondary px-3"
                onClick={() => setZoom(1)}
                disabled={zoom === 1}
              >
                {t("reports.zoomReset")}
              </button>
              <button
                type="button"
                className="btn-secondary px-3"
                onClick={() => setZoom(steps[Math.min(steps.length - 1, i + 1)])}
                disabled={i >= steps.length - 1}
              >
                {t("reports.zoomIn")}
              </button>
            </div>
          )}
          <div
            className="max-h-[60vh] overflow-auto rounded-md border border-slate-200 bg-slate-100 lg:max-h-[75vh]"
            tabIndex={0}
            aria-label={t("reports.imageAlt", { type: typeLabel(report.reportType) })}
            data-testid="report-viewer"
          >
            <img
              src={report.reportUrl}
              alt={t("reports.imageAlt", { type: typeLabel(report.reportType) })}
              style={{ width: `${zoom * 100}%`, maxWidth: "none" }}
              className="block h-auto"
            />
          </div>
        </>
      )}
    </figure>
  );
}

export default function AddReview() {
  const { t } = useTranslation();
  const { approved, report, notAllowed } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const navigation = useNavigation();
  const typeLabel = useReportTypeLabel();
  const dates = useDateText();
  const [form, fields] = useForm({
    lastResult,
    onValidate: ({ formData }) => parseFormData(formData, { schema: reviewSchema }),
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
  });
  const busyIntent =
    navigation.state === "submitting" ? String(navigation.formData?.get("intent") ?? "review") : null;
  const back = (
    <Link to="/dashboard/pending-report" className="link">
      ← {t("reports.backToPending")}
    </Link>
  );

  if (notAllowed) return <NotAllowed title={t("reports.addReview")} message={notAllowed} />;

  if (!approved || !report) {
    return (
      <section className="max-w-2xl">
        <PageHeader title={t("reports.addReview")} />
        <p
          role="alert"
          className="rounded-lg border border-amber-300 bg-amber-50 px-4 py-3 font-semibold text-amber-900"
        >
          {t("reports.awaitApproval")}
        </p>
        <p className="mt-6">{back}</p>
      </section>
    );
  }

  // The loader's status, or the action's answer when another expert was first a moment ago.
  const conflict = !!(lastResult && "conflict" in lastResult && lastResult.conflict);
  const alreadyReviewed = report.status === "Reviewed";
  return (
    <section>
      <PageHeader title={t("reports.addReview")} />
      <div className="grid gap-5 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        {/* The file opens (and is recorded as opened) only for an expert who may take the report. */}
        {!report.fileAllowed ? (
          <p className="card text-slate-700">{t("reports.fileNotYours")}</p>
        ) : report.claimedBy && !report.claimedByMe ? (
          <div className="card">
            <a href={report.reportUrl} target="_blank" rel="noopener noreferrer" className="link">
              {t("reports.openInNewTab")}
              <span className="sr-only"> {t("reports.opensInNewTab")}</span>
            </a>
          </div>
        ) : (
          <ReportViewer report={report} />
        )}
        <div className="min-w-0 space-y-5">
          <div className="card">
            <dl className="grid gap-x-6 gap-y-3 sm:grid-cols-2 lg:grid-cols-1 xl:grid-cols-2">
              <div>
                <dt className="text-sm font-semibold text-slate-600">{t("reports.reportTypeLabel")}</dt>
                <dd className="text-lg font-bold text-slate-900">{typeLabel(report.reportType)}</dd>
              </div>
              <div>
                <dt className="text-sm font-semibold text-slate-600">{t("reports.submittedOnLabel")}</dt>
                <dd>
                  <time dateTime={report.createdAt}>{dates.day(report.createdAt)}</time>
                </dd>
              </div>
              <div>
                <dt className="text-sm font-semibold text-slate-600">{t("reports.status")}</dt>
                <dd className="flex flex-wrap items-center gap-1">
                  <StatusBadge
                    status={alreadyReviewed ? "Reviewed" : report.status}
                    inReview={!!report.claimedBy}
                  />
                  {report.urgent && <Flag kind="urgent" />}
                  {report.overdue && <Flag kind="overdue" />}
                  {report.matches && <Flag kind="match" />}
                </dd>
              </div>
              {report.urgentReason && (
                <div>
                  <dt className="text-sm font-semibold text-slate-600">{t("reports.urgentReasonLabel")}</dt>
                  <dd className="font-semibold break-words text-red-900">{report.urgentReason}</dd>
                </div>
              )}
              <div className="sm:col-span-2 lg:col-span-1 xl:col-span-2">
                <dt className="text-sm font-semibold text-slate-600">{t("reports.patientDescription")}</dt>
                <dd
                  className={`break-words whitespace-pre-line ${report.description ? "" : "text-slate-500 italic"}`}
                >
                  {report.description || t("reports.noDescription")}
                </dd>
              </div>
            </dl>
          </div>

          {alreadyReviewed ? (
            <p
              role="alert"
              className="rounded-lg border border-amber-300 bg-amber-50 px-4 py-3 font-semibold text-amber-900"
            >
              {t("reports.alreadyReviewed")}
            </p>
          ) : !report.claimedByMe ? (
            <div className="card space-y-3" data-testid="claim-panel">
              {report.claimedBy ? (
                <p role="status" className="font-semibold text-sky-900">
                  {t("reports.otherReviewing", { name: report.claimedBy })}
                </p>
              ) : (
                <>
                  <p>{t("reports.claimFirst")}</p>
                  <Form method="post">
                    <input type="hidden" name="intent" value="claim" />
                    <button type="submit" className="btn-primary w-full sm:w-auto" disabled={!!busyIntent}>
                      {t("reports.startReview")}
                    </button>
                  </Form>
                </>
              )}
            </div>
          ) : (
            <>
              <div className="flex flex-wrap items-center justify-between gap-3 rounded-lg border border-sky-200 bg-sky-50 px-4 py-3">
                <p role="status" className="text-sky-950">
                  {t("reports.youAreReviewing", {
                    time: report.claimUntil ? dates.dateTime(report.claimUntil) : "",
                  })}
                </p>
                <Form method="post">
                  <input type="hidden" name="intent" value="release" />
                  <button
                    type="submit"
                    className="btn-secondary"
                    disabled={!!busyIntent}
                    aria-describedby="release-hint"
                  >
                    {t("reports.release")}
                  </button>
                  <span id="release-hint" className="sr-only">
                    {t("reports.releaseHint")}
                  </span>
                </Form>
              </div>
              <Form method="post" {...getFormProps(form)} className="card space-y-4">
                <input type="hidden" name="intent" value="review" />
                <FormError id={form.errorId} errors={form.errors} />
                {conflict && <p className="sr-only">{t("reports.alreadyReviewed")}</p>}
                <div>
                  <TextAreaField
                    meta={fields.review}
                    label={t("opinion.summary")}
                    required
                    maxLength={REVIEW_MAX}
                    rows={5}
                    aria-describedby={`${fields.review.id}-hint${fields.review.errors?.length ? ` ${fields.review.errorId}` : ""}`}
                  />
                  <p id={`${fields.review.id}-hint`} className="mt-1 text-sm text-slate-600">
                    {t("reports.summaryHint")}
                  </p>
                </div>
                <div>
                  <TextAreaField
                    meta={fields.findings}
                    label={`${t("opinion.findings")} ${t("common.optional")}`}
                    maxLength={REVIEW_MAX}
                    rows={4}
                    placeholder={t("reports.findingsHint")}
                  />
                </div>
                <div>
                  <TextAreaField
                    meta={fields.recommendations}
                    label={`${t("opinion.recommendations")} ${t("common.optional")}`}
                    maxLength={REVIEW_MAX}
                    rows={4}
                    placeholder={t("reports.recommendationsHint")}
                  />
                </div>
                <label className="flex cursor-pointer items-start gap-3 rounded-lg border border-red-200 bg-red-50 p-3">
                  <input
                    type="checkbox"
                    name={fields.seeDoctorSoon.name}
                    id={fields.seeDoctorSoon.id}
                    defaultChecked={fields.seeDoctorSoon.initialValue === "on"}
                    className="mt-1 h-5 w-5 shrink-0 accent-red-700"
                  />
                  <span className="font-semibold text-red-950">{t("reports.seeDoctorSoonLabel")}</span>
                </label>
                <button type="submit" className="btn-primary w-full sm:w-auto" disabled={!!busyIntent}>
                  {busyIntent === "review" ? t("reports.submitting") : t("reports.submitReview")}
                </button>
              </Form>
            </>
          )}
          <p>{back}</p>
        </div>
      </div>
    </section>
  );
}
