import { Link } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { formatDuration } from "./duration";
import { useDateText } from "./LocalDate";
import { useReportTypeLabel } from "./ReportTypeSelect";
import type { Column } from "./ResponsiveTable";
import { Flag } from "./StatusBadge";

/** What an overdue list shows of a report (the turnaround screen's and a centre's). */
export type OverdueRow = {
  reportType: string;
  urgent: boolean;
  patientId: string;
  patientName: string;
  createdAt: string;
  dueAt: string;
  claimedBy: string | null;
};

/** The columns of an overdue list: type (urgent flagged), patient, waiting, due, status. */
export function useOverdueColumns<T extends OverdueRow>(now: number): Column<T>[] {
  const { t } = useTranslation();
  const typeLabel = useReportTypeLabel();
  const dates = useDateText();
  return [
    {
      key: "type",
      header: t("reports.reportTypeLabel"),
      cell: (r) => (
        <span className="flex flex-wrap items-center gap-1">
          {typeLabel(r.reportType)} {r.urgent && <Flag kind="urgent" />}
        </span>
      ),
    },
    {
      key: "patient",
      header: t("reports.colPatientName"),
      cell: (r) => (
        <Link to={`/dashboard/previous-report/${encodeURIComponent(r.patientId)}`} className="link">
          {r.patientName || t("reports.notAvailable")}
        </Link>
      ),
    },
    {
      key: "waiting",
      header: t("reports.colWaiting"),
      cell: (r) => formatDuration(now - Date.parse(r.createdAt), t),
    },
    { key: "due", header: t("turnaround.colDue"), cell: (r) => dates.dateTime(r.dueAt) },
    {
      key: "status",
      header: t("reports.status"),
      cell: (r) =>
        r.claimedBy ? t("reports.inReviewBy", { name: r.claimedBy }) : t("reports.statusPending"),
    },
  ];
}
