import { useTranslation } from "~/i18n/useTranslation";

export type StepWeekRow = {
  week: string;
  label: string;
  due: number;
  overdue: number;
  closed: number;
  share: string;
};

/**
 * The Service screen's next steps per week (decision 0114): due, still open past the date, closed,
 * and the share closed by the date, newest week first; the CSV has twelve weeks.
 */
export function StepsSection({ steps }: { steps: StepWeekRow[] }) {
  const { t } = useTranslation();
  const head = [
    t("worklist.figWeek"),
    t("worklist.figDue"),
    t("worklist.figOverdue"),
    t("worklist.figClosed"),
    t("worklist.figOnTime"),
  ];
  return (
    <section aria-labelledby="service-steps" className="card min-w-0 max-sm:px-3">
      <h2 id="service-steps" className="mb-3 text-lg font-bold text-slate-900">
        {t("worklist.figuresTitle")}
      </h2>
      <p className="mb-3 text-slate-700">{t("worklist.figuresIntro")}</p>
      <div
        className="max-w-full overflow-x-auto rounded-xl border border-slate-200 bg-white"
        role="region"
        aria-label={t("worklist.figuresTitle")}
        tabIndex={0}
      >
        <table className="w-full border-collapse text-left text-sm" data-testid="table-steps">
          <caption className="sr-only">{t("worklist.figuresTitle")}</caption>
          <thead className="bg-slate-50 text-slate-700">
            <tr>
              {head.map((h) => (
                <th key={h} scope="col" className="px-3 py-2 font-semibold">
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {steps.map((w) => (
              <tr key={w.week} className="border-t border-slate-100">
                <th scope="row" className="px-3 py-2 font-normal whitespace-nowrap">
                  {w.label}
                </th>
                <td className="px-3 py-2">{w.due}</td>
                <td className="px-3 py-2">{w.overdue}</td>
                <td className="px-3 py-2">{w.closed}</td>
                <td className="px-3 py-2">{w.share}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="mt-3">
        <a
          href="/dashboard/service/steps.csv"
          className="link inline-flex min-h-11 items-center"
          data-testid="steps-csv"
          download
        >
          {t("worklist.figuresCsv")}
        </a>
      </p>
    </section>
  );
}
