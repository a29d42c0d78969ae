import {
  data,
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { useParams } from "@remix-run/react";
import { myDataDownloadHref } from "~/components/DownloadMyData";
import { useTranslation } from "react-i18next";
import { useListLoading } from "~/components/reports/useListLoading";
import { ConfirmDelete } from "~/components/reports/ConfirmDelete";
import { EmptyState } from "~/components/reports/EmptyState";
import { useDateText } from "~/components/reports/LocalDate";
import { screenMeta } from "~/components/reports/meta";
import { NotAllowed } from "~/components/reports/NotAllowed";
import { PageHeader } from "~/components/reports/PageHeader";
import { Pager } from "~/components/reports/Pager";
import { useReportTypeLabel } from "~/components/reports/ReportTypeSelect";
import { FollowUpThread, Opinion } from "~/components/reports/Opinion";
import { pageError, pageInfo, screenPage } from "~/utils/screen.server";
import { Flag, StatusBadge } from "~/components/reports/StatusBadge";
import { DocumentIcon, EyeIcon } from "~/components/ui/Icon";
import { isDomainError } from "~/domain/platform/errors";
import {
  askFollowUp,
  deleteReport,
  listPatientReports,
  type PatientReport,
} from "~/domain/consultation/index.server";
import { parseFormData } from "~/schemas/strict";
import { tFor } from "~/i18n/i18n.server";
import { deleteReportSchema } from "~/schemas/reports";
import { requireActor } from "~/utils/auth.server";
import { readForm } from "~/utils/forms.server";
import { guardForm } from "~/utils/guard.server";
import { clientOf } from "~/utils/request.server";
import { redirectWithError, redirectWithSuccess } from "~/utils/toast.server";

const VIEWS_SHOWN = 3;

function cardOf(r: PatientReport) {
  return {
    _id: r._id,
    reportType: r.reportType,
    description: r.description,
    status: r.status,
    review: r.review,
    reportUrl: r.reportUrl,
    isPdf: r.resourceType === "raw" || r.reportUrl.includes("/raw/"),
    createdAt: r.createdAt,
    patientName: `${r.patient.firstName} ${r.patient.lastName}`.trim(),
    fileViews: r.fileViews,
    linkOpens: r.linkOpens,
    urgent: r.urgent,
    inReview: !!r.claimedBy,
    findings: r.findings,
    recommendations: r.recommendations,
    seeDoctorSoon: r.seeDoctorSoon,
    expert: r.expert,
    opinionUrl: r.opinionUrl,
    followUps: r.followUps ?? [],
    followUpsLeft: r.followUpsLeft ?? 0,
    followUpsUntil: r.followUpsUntil ?? null,
  };
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const actor = await requireActor(request);
  const patientId = params.patientId ?? "";
  const page = screenPage(request);
  if (actor.accountType === "Expert" || (actor.accountType === "Patient" && actor.id !== patientId)) {
    // Inside the dashboard, why not (the same answer whether that id exists or not).
    const { t } = await tFor(request);
    const patient = actor.accountType === "Patient";
    return data(
      {
        title: t("reports.previousTitle"),
        notAllowed: t(patient ? "reports.notYourReports" : "reports.patientOrAdminOnly"),
        ownReports: patient ? `/dashboard/previous-report/${encodeURIComponent(actor.id)}` : null,
      },
      { status: 403 },
    );
  }
  let result: Awaited<ReturnType<typeof listPatientReports>>;
  try {
    // The patient themself or an Admin (an unknown patient id is not found).
    result = await listPatientReports(actor, patientId, page);
  } catch (err) {
    pageError(err);
  }
  const info = pageInfo(result);
  if (result.items.length === 0 && page.page > info.totalPages && result.total > 0) {
    const url = new URL(request.url);
    url.searchParams.set("page", String(info.totalPages));
    throw redirect(`${url.pathname}${url.search}`);
  }
  const { t } = await tFor(request);
  return {
    title: t("reports.previousTitle"),
    notAllowed: null,
    own: actor.id === patientId,
    canUpload: actor.accountType === "Patient",
    items: result.items.map(cardOf),
    pagination: info,
  };
}

export const meta: MetaFunction<typeof loader> = screenMeta;

export async function action({ request, params, context }: ActionFunctionArgs) {
  await guardForm(request);
  const actor = await requireActor(request);
  const { t } = await tFor(request);
  const url = new URL(request.url);
  url.searchParams.delete("confirm");
  url.searchParams.delete("index");
  const back = `/dashboard/previous-report/${encodeURIComponent(params.patientId ?? "")}${url.search}`;
  const form = await readForm(request);
  if (form.get("intent") === "ask") {
    // A follow-up question about the opinion (issue 12); the domain checks owner, count and window.
    const reportId = String(form.get("reportId") ?? "");
    const at = `${back}#report-${encodeURIComponent(reportId)}`;
    try {
      await askFollowUp(actor, reportId, { question: form.get("question") }, { ip: clientOf(context).ip });
    } catch (err) {
      if (!isDomainError(err)) throw err;
      const field = err.extra.fieldErrors?.question?.[0];
      return redirectWithError(at, t(field ?? err.message, err.extra.values ?? {}));
    }
    return redirectWithSuccess(at, t("followups.askSuccess"));
  }
  const submission = parseFormData(form, { schema: deleteReportSchema });
  if (submission.status !== "success") return redirectWithError(back, t("reports.deleteFailed"));
  try {
    // The owning patient or an Admin (the domain decides).
    await deleteReport(actor, submission.value.reportId, { ip: clientOf(context).ip });
  } catch (err) {
    if (!isDomainError(err)) throw err;
    return redirectWithError(back, t(err.message));
  }
  return redirectWithSuccess(back, t("reports.deleteSuccess"));
}

type Card = ReturnType<typeof cardOf>;
type ListData = Exclude<ReturnType<typeof useLoaderData<typeof loader>>, { notAllowed: string }>;

type TrailEntry =
  | ({ via: "account" } & Card["fileViews"][number])
  | ({ via: "link" } & Card["linkOpens"][number]);

/** Who opened the report: experts and admins by name, and openings through the patient's sharing links (issue 14). */
function FileViews({ views: accounts, opens }: { views: Card["fileViews"]; opens: Card["linkOpens"] }) {
  const { t } = useTranslation();
  const dates = useDateText();
  const views: TrailEntry[] = [
    ...accounts.map((v) => ({ via: "account" as const, ...v })),
    ...opens.map((o) => ({ via: "link" as const, ...o })),
  ].sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
  if (views.length === 0) return null;
  const line = (v: TrailEntry) =>
    v.via === "link"
      ? v.label
        ? t("share.openedViaFor", { label: v.label, date: dates.dateTime(v.at) })
        : t("share.openedVia", { date: dates.dateTime(v.at) })
      : t(v.viewerAccountType === "Expert" ? "audit.viewedByExpert" : "audit.viewedByAdmin", {
          name: `${v.viewerFirstName} ${v.viewerLastName}`.trim(),
          date: dates.dateTime(v.at),
        });
  const first = views.slice(0, VIEWS_SHOWN);
  const rest = views.slice(VIEWS_SHOWN);
  return (
    <div className="mt-3 text-sm text-slate-600" data-testid="file-views">
      <p className="sr-only">{t("audit.fileViewsTitle")}</p>
      <ul className="space-y-0.5">
        {first.map((v, i) => (
          <li key={`${v.at}-${i}`} className="flex gap-1.5">
            <EyeIcon className="mt-0.5 h-4 w-4 shrink-0" />
            <span>{line(v)}</span>
          </li>
        ))}
      </ul>
      {rest.length > 0 && (
        <details className="mt-1">
          <summary className="link cursor-pointer">{t("audit.allViews", { count: views.length })}</summary>
          <ul className="mt-1 space-y-0.5">
            {rest.map((v, i) => (
              <li key={`${v.at}-${i}`}>{line(v)}</li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}

function ReportCard({ report, own }: { report: Card; own: boolean }) {
  const { t } = useTranslation();
  const typeLabel = useReportTypeLabel();
  const dates = useDateText();
  const title = typeLabel(report.reportType);
  const reviewed = report.status === "Reviewed";
  return (
    <li id={`report-${report._id}`} className="card flex scroll-mt-4 flex-col" data-testid="report-card">
      <h2 className="text-lg font-bold text-slate-900">{title}</h2>
      <p className="text-sm text-slate-600">
        <time dateTime={report.createdAt}>
          {t("reports.submittedOn", { date: dates.day(report.createdAt) })}
        </time>
      </p>
      <p
        className={`mt-3 break-words whitespace-pre-line ${report.description ? "text-slate-800" : "text-slate-500 italic"}`}
      >
        {report.description || t("reports.noDescription")}
      </p>

      <div className="mt-4">
        {report.isPdf ? (
          <a href={report.reportUrl} target="_blank" rel="noopener noreferrer" className="btn-secondary">
            <DocumentIcon />
            {t("reports.viewPdf")}
            <span className="sr-only"> {t("reports.opensInNewTab")}</span>
          </a>
        ) : (
          <a href={report.reportUrl} target="_blank" rel="noopener noreferrer" className="block">
            <img
              src={report.reportUrl}
              loading="lazy"
              decoding="async"
              alt={t("reports.imageAlt", { type: title })}
              className="aspect-[4/3] w-full rounded-lg border border-slate-200 bg-slate-100 object-contain"
            />
            <span className="sr-only"> {t("reports.opensInNewTab")}</span>
          </a>
        )}
      </div>

      <p className="mt-4 flex flex-wrap items-center gap-2">
        <span className="font-semibold text-slate-700">{t("reports.status")}:</span>
        <StatusBadge status={report.status} inReview={report.inReview} forPatient />
        {report.urgent && <Flag kind="urgent" />}
      </p>

      {reviewed && (
        <div className="mt-3 space-y-3 rounded-lg border border-green-200 bg-green-50 p-3">
          <h3 className="font-bold text-green-900">{t("reports.expertReview")}</h3>
          <Opinion opinion={report} headingLevel={4} />
          {report.opinionUrl && (
            <a href={report.opinionUrl} className="btn-secondary" download data-testid="download-opinion">
              {t("reports.downloadOpinion")}
            </a>
          )}
        </div>
      )}
      {reviewed && (
        <div className="mt-3">
          <FollowUpThread
            reportId={report._id}
            followUps={report.followUps}
            ask={own ? { left: report.followUpsLeft, until: report.followUpsUntil } : undefined}
          />
        </div>
      )}

      <FileViews views={report.fileViews} opens={report.linkOpens} />

      <div className="mt-auto flex flex-wrap items-start gap-3 pt-4">
        {own && (
          <Link
            to={`/dashboard/share/${encodeURIComponent(report._id)}`}
            className="btn-secondary"
            data-testid="share-report-link"
          >
            {t("share.action")}
            <span className="sr-only"> {title}</span>
          </Link>
        )}
        <div className="min-w-0 flex-1">
          <ConfirmDelete reportId={report._id} label={title} />
        </div>
      </div>
    </li>
  );
}

export default function PreviousReports() {
  const { t } = useTranslation();
  const loaded = useLoaderData<typeof loader>();
  if (loaded.notAllowed !== null) {
    return (
      <NotAllowed title={t("reports.previousTitle")} message={loaded.notAllowed}>
        {loaded.ownReports && (
          <Link to={loaded.ownReports} className="link">
            {t("reports.seeOwnReports")}
          </Link>
        )}
      </NotAllowed>
    );
  }
  return <ReportList {...loaded} />;
}

function ReportList({
  items,
  pagination,
  own,
  canUpload,
}: Pick<ListData, "items" | "pagination" | "own" | "canUpload">) {
  const { t } = useTranslation();
  const loading = useListLoading();
  const patientName = items[0]?.patientName;
  const { patientId } = useParams();
  return (
    <section aria-busy={loading || undefined}>
      <PageHeader
        title={t("reports.previousTitle")}
        intro={
          own
            ? t("reports.previousIntro")
            : patientName
              ? t("reports.previousIntroAdmin", { name: patientName })
              : undefined
        }
      >
        {canUpload && (
          <Link to="/dashboard/upload-report" className="btn-primary">
            {t("dashboard.uploadReport")}
          </Link>
        )}
        {/* Issue 14: an admin looking at a patient's reports can download all of that patient's data. */}
        {!own && patientId && (
          <a href={myDataDownloadHref(patientId)} className="btn-secondary">
            {t("fhir.adminButton")}
          </a>
        )}
      </PageHeader>
      {items.length === 0 ? (
        <EmptyState message={t("reports.noReportsForPatient")}>
          {canUpload && (
            <>
              <p className="w-full text-slate-600">{t("reports.uploadFirst")}</p>
              <Link to="/dashboard/upload-report" className="btn-primary">
                {t("dashboard.uploadReport")}
              </Link>
            </>
          )}
        </EmptyState>
      ) : (
        <ul className="grid gap-4 sm:grid-cols-2">
          {items.map((r) => (
            <ReportCard key={r._id} report={r} own={own} />
          ))}
        </ul>
      )}
      <Pager pagination={pagination} />
    </section>
  );
}
