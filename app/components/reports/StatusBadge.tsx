import { useTranslation } from "react-i18next";

/** The spec's status colours — green Reviewed, yellow Pending — always with the word too. */
export function StatusBadge({ status }: { status: "Pending" | "Reviewed" | string }) {
  const { t } = useTranslation();
  const reviewed = status === "Reviewed";
  return (
    <span
      data-status={reviewed ? "reviewed" : "pending"}
      className={`inline-flex items-center gap-1.5 rounded-full border px-2.5 py-0.5 text-sm font-semibold whitespace-nowrap ${
        reviewed
          ? "border-green-300 bg-green-100 text-green-800"
          : "border-amber-300 bg-amber-100 text-amber-900"
      }`}
    >
      <span
        aria-hidden="true"
        className={`h-2 w-2 rounded-full ${reviewed ? "bg-green-600" : "bg-amber-500"}`}
      />
      {reviewed ? t("reports.statusReviewed") : t("reports.statusPending")}
    </span>
  );
}
