import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod";
import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { useDateText } from "~/components/reports/LocalDate";
import { screenMeta } from "~/components/reports/meta";
import { NotAllowed } from "~/components/reports/NotAllowed";
import { PageHeader } from "~/components/reports/PageHeader";
import { useReportTypeLabel } from "~/components/reports/ReportTypeSelect";
import { pageError } from "~/components/reports/screen.server";
import { StatusBadge } from "~/components/reports/StatusBadge";
import { TextAreaField } from "~/components/ui/Field";
import { FormError } from "~/components/ui/FormError";
import { isDomainError } from "~/domain/errors";
import { addReview, getReportForReview } from "~/domain/reports.server";
import { tFor } from "~/i18n/i18n.server";
import { REVIEW_MAX, reviewSchema } from "~/schemas/reports";
import { requireActor } from "~/utils/auth.server";
import { parseForm } from "~/utils/forms.server";
import { guardForm } from "~/utils/guard.server";
import { clientOf } from "~/utils/request.server";
import { domainErrorReply } from "~/utils/screen-errors.server";
import { redirectWithSuccess } from "~/utils/toast.server";

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
  let report: Awaited<ReturnType<typeof getReportForReview>>;
  try {
    report = await getReportForReview(actor, params.reportId ?? "");
  } catch (err) {
    pageError(err);
  }
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
      status: report.status,
    },
  };
}

export const meta: MetaFunction<typeof loader> = screenMeta;

export async function action({ request, params, context }: ActionFunctionArgs) {
  await guardForm(request);
  // Non-experts get 403 "Only experts can add reviews" from the domain.
  const actor = await requireActor(request);
  const submission = await parseForm(request, reviewSchema);
  if (submission.status !== "success") {
    return Response.json(submission.reply(), { status: 400 });
  }
  const { t } = await tFor(request);
  try {
    // Only approved experts; the first review wins (a second one is a conflict, never an overwrite).
    await addReview(actor, params.reportId ?? "", submission.value, { ip: clientOf(context).ip });
  } catch (err) {
    if (isDomainError(err) && err.code === "conflict") {
      // Someone was first: say so and keep the review text, but never overwrite.
      return data({ ...submission.reply({ formErrors: [t(err.message)] }), conflict: true }, { status: 409 });
    }
    return domainErrorReply(err, t, (o) => submission.reply(o));
  }
  return redirectWithSuccess("/dashboard/pending-report", t("reports.reviewSuccess"));
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
    onValidate: ({ formData }) => parseWithZod(formData, { schema: reviewSchema }),
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
  });
  const busy = navigation.state === "submitting";
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
  const alreadyReviewed =
    report.status === "Reviewed" || !!(lastResult && "conflict" in lastResult && lastResult.conflict);
  return (
    <section className="max-w-2xl">
      <PageHeader title={t("reports.addReview")} />
      <div className="card mb-5">
        <dl className="grid gap-x-6 gap-y-3 sm:grid-cols-2">
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
            <dd>
              <StatusBadge status={alreadyReviewed ? "Reviewed" : report.status} />
            </dd>
          </div>
          <div>
            <dt className="text-sm font-semibold text-slate-600">{t("reports.colReport")}</dt>
            <dd>
              <a href={report.reportUrl} target="_blank" rel="noopener noreferrer" className="link">
                {t("reports.viewReport")}
                <span className="sr-only"> {t("reports.opensInNewTab")}</span>
              </a>
            </dd>
          </div>
          <div className="sm:col-span-2">
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
      ) : (
        <Form method="post" {...getFormProps(form)} className="card space-y-4">
          <FormError id={form.errorId} errors={form.errors} />
          <TextAreaField
            meta={fields.review}
            label={t("reports.reviewLabel")}
            required
            maxLength={REVIEW_MAX}
            rows={8}
            aria-describedby={`${fields.review.id}-hint${fields.review.errors?.length ? ` ${fields.review.errorId}` : ""}`}
          />
          <p id={`${fields.review.id}-hint`} className="-mt-2 text-sm text-slate-600">
            {t("reports.reviewHint")}
          </p>
          <button type="submit" className="btn-primary w-full sm:w-auto" disabled={busy}>
            {busy ? t("reports.submitting") : t("reports.submitReview")}
          </button>
        </Form>
      )}
      <p className="mt-6">{back}</p>
    </section>
  );
}
