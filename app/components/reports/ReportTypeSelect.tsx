import { useTranslation } from "~/i18n/useTranslation";
import { REPORT_TYPE_KEYS, REPORT_TYPES } from "~/schemas/report-types";

/** The 13 report types: English values (what the server stores), labels in the UI language. */
export function ReportTypeOptions({ placeholder }: { placeholder: string }) {
  const { t } = useTranslation();
  return (
    <>
      <option value="">{placeholder}</option>
      {REPORT_TYPES.map((type) => (
        <option key={type} value={type}>
          {t(REPORT_TYPE_KEYS[type])}
        </option>
      ))}
    </>
  );
}

/** A stored report type in the UI language (unknown values as they are, none as 'Unknown Report'). */
export function useReportTypeLabel() {
  const { t } = useTranslation();
  return (type: string | null | undefined) => {
    if (!type) return t("reports.unknownReport");
    const key = (REPORT_TYPE_KEYS as Record<string, string>)[type];
    return key ? t(key) : type;
  };
}
