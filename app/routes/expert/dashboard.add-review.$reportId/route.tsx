import { lazy, Suspense } from "react";
import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link, useLoaderData, useNavigation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { screenMeta } from "~/components/reports/meta";
import { NotAllowed } from "~/components/reports/NotAllowed";
import { PageHeader } from "~/components/reports/PageHeader";
import { config } from "~/config.server";
import {
  labWordsFor,
  listVoiceNotes,
  phrasePicker,
  repeatSeries,
  reviewScreenReport,
  studyForScreen,
} from "~/domain/consultation/index.server";
import { seriesView } from "~/web/lab-series-view.server";
import { viewerState } from "~/components/imaging/viewer-state";
import { tFor } from "~/i18n/i18n.server";
import { requireActor } from "~/web/auth.server";
import { readForm } from "~/web/forms.server";
import { guardForm } from "~/web/guard.server";
import { clientOf } from "~/web/request.server";
import { pageError } from "~/web/screen.server";
import { claimAction } from "./claim.server";
import { ClaimPanel, ReleaseBar } from "./ClaimPanel";
import { ReportFacts } from "./ReportFacts";
import { ReportViewer } from "./ReportViewer";
import { StudyPanel } from "./StudyPanel";
import { reviewAction } from "./review.server";
import { askSecondAction, panelOf } from "./panel.server";
import { SecondOpinionPanel } from "./SecondOpinionPanel";
import { ReviewForm } from "./ReviewForm";
import { VoicePanel } from "./VoicePanel";
import { labAction, labsSection } from "./labs.server";
import { stepAnalytes } from "./steps.server";
import { LabPanel, LabPreview } from "./LabPanel";

/**
 * The before/after chart of a repeat report (decision 0114): its code (the charts) is fetched only
 * for a report attached to a step, rendered in full by the server as every part is (0111).
 */
const RepeatPanel = lazy(() => import("./RepeatPanel").then((m) => ({ default: m.RepeatPanel })));

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const actor = await requireActor(request);
  const { t, locale } = await tFor(request);
  const title = t("reports.addReview");
  if (actor.accountType !== "Expert") {
    // Patients and admins: the dashboard says why (the spec's message), not the not-found page.
    return data(
      {
        title,
        notAllowed: t("reports.onlyExperts"),
        approved: false as const,
        report: null,
        panel: null,
        phrases: null,
        labs: null,
        analytes: [],
      },
      { status: 403 },
    );
  }
  if (!actor.approved)
    return {
      title,
      notAllowed: null,
      approved: false as const,
      report: null,
      panel: null,
      phrases: null,
      labs: null,
      analytes: [],
    };
  let report: Awaited<ReturnType<typeof reviewScreenReport>>["report"];
  let fileAllowed: boolean;
  try {
    ({ report, fileAllowed } = await reviewScreenReport(actor, params.reportId ?? ""));
  } catch (err) {
    pageError(err);
  }
  const claimedByMe = report.claimedBy?._id === actor.id;
  // Medical images: the viewer replaces the file's frame (same rule, read from the same row).
  const study =
    fileAllowed && (!report.claimedBy || claimedByMe)
      ? await studyForScreen(actor, report._id, clientOf(context).ip)
      : null;
  // The patient's voice notes are heard by whoever may open the report's file (the same rule).
  const voiceNotes = fileAllowed ? await listVoiceNotes(actor, report._id) : [];
  const reviewedByMe = report.status === "Reviewed" && report.expert?._id === actor.id;
  // Lab values read from the file (decision 0084): for the expert holding the report.
  const labs =
    fileAllowed && !study
      ? await labsSection(
          actor,
          report,
          new URL(request.url).searchParams.get("value"),
          new URL(request.url).searchParams.get("add") === "1",
          locale,
        )
      : null;
  return {
    title,
    notAllowed: null,
    approved: true as const,
    panel: panelOf(actor, report),
    labs,
    // A repeat report attached to a tests step (decision 0114): the step's values before and now.
    repeat: fileAllowed
      ? seriesView(await repeatSeries(actor, report._id), await labWordsFor(locale), locale)
      : [],
    // The phrase book (decisions 0081, 0094): offered only while the opinion can still be written,
    // in the expert's language with the patient's beside it.
    phrases: report.status === "Pending" ? await phrasePicker(report.patient._id, locale) : null,
    // The lab catalogue for the next steps' tests (decision 0114), while the opinion can be written.
    analytes: report.status === "Pending" && claimedByMe ? stepAnalytes(locale) : [],
    report: {
      _id: report._id,
      reportType: report.reportType,
      description: report.description,
      createdAt: report.createdAt,
      reportUrl: report.reportUrl,
      // The domain decides from the report's row, by the same rule as the file route.
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
      study: study ? { study, state: viewerState(new URL(request.url).searchParams, study.series) } : null,
      voiceNotes,
      holds: claimedByMe || reviewedByMe,
      voiceMaxSeconds: config().voiceMaxSeconds,
      claimUntil:
        claimedByMe && report.claimedAt
          ? new Date(Date.parse(report.claimedAt) + config().claimTtlMs).toISOString()
          : null,
    },
  };
}

export const meta: MetaFunction<typeof loader> = screenMeta;

/** Three forms on one screen: claim and release (claim.server.ts), and the review (review.server.ts). */
export async function action({ request, params, context }: ActionFunctionArgs) {
  await guardForm(request);
  // Non-experts get 403 "Only experts can add reviews" from the domain.
  const actor = await requireActor(request);
  const { t } = await tFor(request);
  const screen = { actor, t, reportId: params.reportId ?? "", ip: clientOf(context).ip };
  const form = await readForm(request);
  const intent = form.get("intent");
  if (intent === "claim" || intent === "release") return claimAction(intent, screen);
  if (intent === "second-opinion") return askSecondAction(form, screen);
  if (intent === "lab-check" || intent === "lab-add" || intent === "lab-confirm-all")
    return labAction(intent, form, screen, new URL(request.url));
  return reviewAction(form, screen);
}

export type ReviewLabs = NonNullable<ReturnType<typeof useLoaderData<typeof loader>>["labs"]>;
export type ReviewReport = NonNullable<ReturnType<typeof useLoaderData<typeof loader>>["report"]>;

export default function AddReview() {
  const { t } = useTranslation();
  const loaded = useLoaderData<typeof loader>();
  const { approved, report, notAllowed, panel, phrases, labs, analytes } = loaded;
  const repeat = "repeat" in loaded ? loaded.repeat : [];
  const navigation = useNavigation();
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

  return (
    <section>
      <PageHeader title={t("reports.addReview")} />
      {/*
       * The opinion form first (decision 0058), after the lab values still to check (decision 0090): at
       * 1024 px and wider the report (or images) stays in view beside them while the expert writes; the
       * second opinion and the spoken explanation follow the form.
       */}
      <div className="grid gap-5 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)] lg:items-start">
        {/* The file opens (and is recorded as opened) only for an expert who may take the report. */}
        <div
          className="min-w-0 lg:sticky lg:top-20 lg:max-h-[calc(100vh-6rem)] lg:overflow-y-auto"
          data-testid="report-column"
        >
          {!report.fileAllowed ? (
            <p className="card text-slate-700">{t("reports.fileNotYours")}</p>
          ) : report.claimedBy && !report.claimedByMe ? (
            <div className="card">
              <a href={report.reportUrl} target="_blank" rel="noopener noreferrer" className="link">
                {t("reports.openInNewTab")}
                <span className="sr-only"> {t("reports.opensInNewTab")}</span>
              </a>
            </div>
          ) : report.study ? (
            <StudyPanel reportId={report._id} {...report.study} />
          ) : (
            <div className="space-y-3">
              {labs?.preview && <LabPreview reportId={report._id} preview={labs.preview} />}
              <ReportViewer report={report} />
            </div>
          )}
        </div>
        <div className="min-w-0 space-y-5">
          <ReportFacts report={report} />
          {/* A second opinion's request and the first opinion are what its form answers. */}
          {panel?.second && <SecondOpinionPanel panel={panel} />}
          {/*
           * The values read from the file, beside it and before the opinion (decision 0090): open while
           * one waits for its check, then folded to one line so the form comes up.
           */}
          {labs && <LabPanel reportId={report._id} labs={labs} />}
          {repeat?.length ? (
            <Suspense fallback={null}>
              <RepeatPanel series={repeat} />
            </Suspense>
          ) : null}
          {report.status === "Reviewed" ? (
            <p
              role="alert"
              className="rounded-lg border border-amber-300 bg-amber-50 px-4 py-3 font-semibold text-amber-900"
            >
              {t("reports.alreadyReviewed")}
            </p>
          ) : !report.claimedByMe ? (
            <ClaimPanel report={report} busy={!!busyIntent} />
          ) : (
            <>
              <ReleaseBar report={report} busy={!!busyIntent} />
              <ReviewForm
                busyIntent={busyIntent}
                second={!!panel?.second}
                phrases={phrases}
                analytes={analytes ?? []}
              />
            </>
          )}
          {panel && !panel.second && <SecondOpinionPanel panel={panel} />}
          <VoicePanel
            reportId={report._id}
            notes={report.voiceNotes}
            holds={report.holds}
            maxSeconds={report.voiceMaxSeconds}
          />
          <p>{back}</p>
        </div>
      </div>
    </section>
  );
}
