import { useTranslation } from "~/i18n/useTranslation";

/**
 * The spec's status colours — green Reviewed, yellow Pending — always with the word too. A report
 * an expert is reviewing now is blue "In review" (for the patient: "An expert is
 * reviewing your report").
 */
export function StatusBadge({
  status,
  inReview,
  forPatient,
}: {
  status: "Pending" | "Reviewed" | string;
  inReview?: boolean;
  forPatient?: boolean;
}) {
  const { t } = useTranslation();
  const state = status === "Reviewed" ? "reviewed" : inReview ? "in-review" : "pending";
  const look = {
    reviewed: ["border-green-300 bg-green-100 text-green-800", "bg-green-600"],
    "in-review": ["border-sky-300 bg-sky-100 text-sky-900", "bg-sky-600"],
    pending: ["border-amber-300 bg-amber-100 text-amber-900", "bg-amber-500"],
  }[state];
  const label =
    state === "reviewed"
      ? t("reports.statusReviewed")
      : state === "in-review"
        ? t(forPatient ? "reports.inReviewPatient" : "reports.statusInReview")
        : t("reports.statusPending");
  return (
    <span
      data-status={state}
      className={`inline-flex items-center gap-1.5 rounded-full border px-2.5 py-0.5 text-sm font-semibold ${
        forPatient ? "" : "whitespace-nowrap"
      } ${look[0]}`}
    >
      <span aria-hidden="true" className={`h-2 w-2 shrink-0 rounded-full ${look[1]}`} />
      {label}
    </span>
  );
}

const FLAG_LABEL = {
  urgent: "reports.urgent",
  overdue: "reports.overdue",
  match: "reports.matchesSpecialties",
} as const;

/** Small flags beside a report: urgent, overdue, matching the expert's specialties. */
export function Flag({ kind, title }: { kind: "urgent" | "overdue" | "match"; title?: string }) {
  const { t } = useTranslation();
  const look = {
    urgent: "border-red-300 bg-red-100 text-red-900",
    overdue: "border-orange-300 bg-orange-50 text-orange-900",
    match: "border-brand-600 bg-brand-50 text-brand-800",
  }[kind];
  const label = t(FLAG_LABEL[kind]);
  return (
    <span
      data-flag={kind}
      title={title}
      className={`inline-flex items-center rounded-full border px-2 py-0.5 text-xs font-bold whitespace-nowrap uppercase ${look}`}
    >
      {label}
    </span>
  );
}
