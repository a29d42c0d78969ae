import { useState } from "react";
import { useTranslation } from "~/i18n/useTranslation";
import { useReportTypeLabel } from "~/components/reports/ReportTypeSelect";
import { useHydrated } from "~/components/reports/useHydrated";
import type { ReviewReport } from "./route";

/** The report beside the form: the PDF in the browser's viewer, a photo with zoom. */
export function ReportViewer({ report }: { report: ReviewReport }) {
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
        />
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
