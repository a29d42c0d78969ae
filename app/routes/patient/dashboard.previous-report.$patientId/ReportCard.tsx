import { Link } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { ConfirmDelete } from "~/components/reports/ConfirmDelete";
import { useDateText } from "~/components/reports/LocalDate";
import { FollowUpThread, Opinion } from "~/components/reports/Opinion";
import { useReportTypeLabel } from "~/components/reports/ReportTypeSelect";
import { Flag, StatusBadge } from "~/components/reports/StatusBadge";
import { DocumentIcon } from "~/components/ui/Icon";
import { ReportVoice } from "~/components/voice/ReportVoice";
import { LabLines } from "~/components/labs/LabValues";
import type { VoiceNoteView } from "~/components/voice/VoicePlayer";
import type { Card } from "./cards.server";
import { FileViews } from "./FileViews";
import { AttachOffers, NextSteps } from "./NextSteps";
import type { AttachOffer } from "./steps.server";
import type { StepWords } from "~/domain/consultation/index.server";
import { StudyLink } from "./StudyLink";
import { AskSecondOpinion, FirstOpinionHeading, SecondOpinions, useAskWhom } from "./SecondOpinions";

/**
 * One report: the file, its status, the opinion with its follow-up questions (askAction), who
 * opened it, sharing, and deleting it (deleteAction).
 */
export function ReportCard({
  report,
  own,
  voice,
  aboutPatient = false,
  canActSteps = false,
}: {
  report: Card & {
    voiceNotes: VoiceNoteView[];
    labLines: string[];
    steps?: StepWords[];
    attachOffers?: AttachOffer[];
  };
  /** Her side and her centre mark the opinion's next steps (decision 0114). */
  canActSteps?: boolean;
  own: boolean;
  /** Someone else's reports (a family member's, a centre's patient, an admin's view): speak of the patient. */
  aboutPatient?: boolean;
  voice: { canAdd: boolean; maxSeconds: number };
}) {
  const { t } = useTranslation();
  const typeLabel = useReportTypeLabel();
  const dates = useDateText();
  const title = typeLabel(report.reportType);
  const reviewed = report.status === "Reviewed";
  const askWhom = useAskWhom(report);
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
        {report.isStudy ? (
          <StudyLink reportId={report._id} />
        ) : report.isPdf ? (
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
      <AttachOffers reportId={report._id} offers={report.attachOffers ?? []} />

      {reviewed && (
        <div className="mt-3 space-y-3 rounded-lg border border-green-200 bg-green-50 p-3">
          <FirstOpinionHeading report={report} />
          <Opinion opinion={report} headingLevel={4} aboutPatient={aboutPatient} />
          <NextSteps reportId={report._id} steps={report.steps ?? []} canAct={canActSteps} />
          {report.opinionUrl && (
            <a href={report.opinionUrl} className="btn-secondary" download data-testid="download-opinion">
              {t("reports.downloadOpinion")}
            </a>
          )}
        </div>
      )}
      <SecondOpinions report={report} aboutPatient={aboutPatient} />
      {reviewed && (
        <div className="mt-3">
          <FollowUpThread
            reportId={report._id}
            followUps={report.followUps}
            ask={own ? { left: report.followUpsLeft, until: report.followUpsUntil } : undefined}
            askWhom={askWhom}
          />
        </div>
      )}

      <LabLines lines={report.labLines} />

      <div className="mt-3">
        <ReportVoice
          reportId={report._id}
          notes={report.voiceNotes}
          maxSeconds={voice.maxSeconds}
          canAdd={voice.canAdd}
          canAsk={voice.canAdd && own && reviewed && report.followUpsLeft > 0}
        />
      </div>

      {report.mayAskSecond && <AskSecondOpinion reportId={report._id} />}
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
        {/* Never narrower than its button: a long word (Tamil's "Delete") wraps to the next line, not past the card. */}
        <div className="flex-1">
          <ConfirmDelete reportId={report._id} label={title} />
        </div>
      </div>
    </li>
  );
}
