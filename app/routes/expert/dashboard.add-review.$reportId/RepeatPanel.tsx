import { LabCharts, type LabSeriesView } from "~/components/labs/LabValues";
import { useTranslation } from "~/i18n/useTranslation";

/**
 * The repeat tests the expert asked for (decision 0114): this report is attached to a tests step of
 * an earlier opinion, so the step's values are drawn before and now, one chart per test.
 */
export function RepeatPanel({ series }: { series: LabSeriesView[] }) {
  const { t } = useTranslation();
  if (!series.length) return null;
  return (
    <div data-testid="repeat-panel">
      <p className="mb-2 rounded-lg border border-sky-200 bg-sky-50 px-4 py-3 text-sm text-sky-900">
        {t("reminders.repeatIntro")}
      </p>
      <LabCharts series={series} forExpert />
    </div>
  );
}
