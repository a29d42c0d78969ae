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
  // Whole class names, so that the stylesheet's build finds them.
  const [look, dot] = {
    reviewed: ["badge-reviewed", "bg-green-600"],
    "in-review": ["badge-in-review", "bg-sky-600"],
    pending: ["badge-pending", "bg-amber-500"],
  }[state];
  const label =
    state === "reviewed"
      ? t("reports.statusReviewed")
      : state === "in-review"
        ? t(forPatient ? "reports.inReviewPatient" : "reports.statusInReview")
        : t("reports.statusPending");
  // The look is in the stylesheet (badge, badge-<state>): short classes on every row of a list.
  return (
    <span data-status={state} className={forPatient ? `badge ${look}` : `badge ${look} whitespace-nowrap`}>
      <span aria-hidden="true" className={`badge-dot ${dot}`} />
      {label}
    </span>
  );
}

/** Each flag's label and its look (whole class names, so that the stylesheet's build finds them). */
const FLAGS = {
  urgent: { label: "reports.urgent", look: "flag flag-urgent" },
  overdue: { label: "reports.overdue", look: "flag flag-overdue" },
  match: { label: "reports.matchesSpecialties", look: "flag flag-match" },
} as const;

/** Small flags beside a report: urgent, overdue, matching the expert's specialties. */
export function Flag({ kind, title }: { kind: keyof typeof FLAGS; title?: string }) {
  const { t } = useTranslation();
  return (
    <span data-flag={kind} title={title} className={FLAGS[kind].look}>
      {t(FLAGS[kind].label)}
    </span>
  );
}
