import { useTranslation } from "~/i18n/useTranslation";

const SHORT = 180;

/** A review as written (line breaks kept); long ones start folded so tables stay readable. */
export function ReviewText({ text, fold = true }: { text: string | null | undefined; fold?: boolean }) {
  const { t } = useTranslation();
  if (!text) return <span className="text-slate-500">{t("reports.notAvailable")}</span>;
  if (!fold || text.length <= SHORT) return <p className="whitespace-pre-line break-words">{text}</p>;
  return (
    <details className="group/review">
      <summary className="cursor-pointer list-none break-words [&::-webkit-details-marker]:hidden">
        <span className="group-open/review:hidden">{text.slice(0, SHORT).trimEnd()}… </span>
        <span className="link text-sm whitespace-nowrap group-open/review:hidden">
          {t("reports.showFullReview")}
        </span>
      </summary>
      <p className="whitespace-pre-line break-words">{text}</p>
    </details>
  );
}
