import { Link } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";

/** A report of medical images: its viewer and what the images carry about the person. */
export function StudyLink({ reportId }: { reportId: string }) {
  const { t } = useTranslation();
  return (
    <Link
      to={`/dashboard/images/${encodeURIComponent(reportId)}`}
      className="btn-secondary"
      data-testid="study-link"
    >
      {t("imaging.viewImages")}
    </Link>
  );
}
