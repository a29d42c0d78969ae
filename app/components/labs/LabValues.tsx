import { useTranslation } from "~/i18n/useTranslation";

/**
 * The patient's side of lab values (decision 0084): checked values in plain words, and for an
 * analyte in two or more reports a server-rendered SVG chart with the printed range as a band and
 * a table as its text alternative. No JavaScript needed.
 */

export type LabPointView = {
  date: string;
  value: number;
  low: number | null;
  high: number | null;
  range: string | null;
};
export type LabSeriesView = { loinc: string; name: string; unit: string; points: LabPointView[] };

export function LabLines({ lines }: { lines: string[] }) {
  const { t } = useTranslation();
  if (!lines.length) return null;
  return (
    <section className="mt-3" aria-label={t("labs.valuesTitle")}>
      <h4 className="text-sm font-semibold text-slate-800">{t("labs.valuesTitle")}</h4>
      <ul className="mt-1 list-disc space-y-1 pl-5 text-sm text-slate-800" data-testid="lab-values">
        {lines.map((line, i) => (
          <li key={i}>{line}</li>
        ))}
      </ul>
    </section>
  );
}

const W = 320;
const H = 140;
const PAD = 28;

function Chart({ s }: { s: LabSeriesView }) {
  const nums = s.points.flatMap((p) => [p.value, p.low, p.high]).filter((n): n is number => n != null);
  const min = Math.min(...nums);
  const max = Math.max(...nums);
  const span = max - min || 1;
  const y = (v: number) => H - PAD - ((v - min) / span) * (H - 2 * PAD);
  const x = (i: number) => PAD + (s.points.length === 1 ? 0 : (i / (s.points.length - 1)) * (W - 2 * PAD));
  const line = s.points.map((p, i) => `${x(i).toFixed(1)},${y(p.value).toFixed(1)}`).join(" ");
  return (
    <svg viewBox={`0 0 ${W} ${H}`} className="h-auto w-full max-w-md" aria-hidden="true" focusable="false">
      {s.points.map((p, i) => {
        if (p.low == null && p.high == null) return null;
        const top = y(p.high ?? max);
        const bottom = y(p.low ?? min);
        const half = s.points.length === 1 ? W / 2 - PAD : (W - 2 * PAD) / (s.points.length - 1) / 2;
        return (
          <rect
            key={`band-${i}`}
            x={Math.max(PAD, x(i) - half)}
            y={top}
            width={Math.min(2 * half, W - PAD - Math.max(PAD, x(i) - half))}
            height={Math.max(1, bottom - top)}
            fill="#d1fae5"
          />
        );
      })}
      <polyline points={line} fill="none" stroke="#0f766e" strokeWidth="2" />
      {s.points.map((p, i) => (
        <g key={`pt-${i}`}>
          <circle cx={x(i)} cy={y(p.value)} r="4" fill="#0f766e" />
          <text x={x(i)} y={y(p.value) - 8} fontSize="11" textAnchor="middle" fill="#0f172a">
            {p.value}
          </text>
        </g>
      ))}
    </svg>
  );
}

export function LabCharts({ series }: { series: LabSeriesView[] }) {
  const { t } = useTranslation();
  if (!series.length) return null;
  return (
    <section className="card mb-4 p-4" aria-labelledby="lab-series-title" data-testid="lab-series">
      <h2 id="lab-series-title" className="text-lg font-semibold text-slate-900">
        {t("labs.seriesTitle")}
      </h2>
      <p className="text-sm text-slate-700">{t("labs.seriesBand")}</p>
      {series.map((s) => (
        <figure key={s.loinc} className="mt-3">
          <figcaption className="font-medium text-slate-900">
            {s.name} ({s.unit})
          </figcaption>
          <Chart s={s} />
          <table className="mt-2 w-full text-left text-sm">
            <thead>
              <tr>
                <th scope="col">{t("labs.date")}</th>
                <th scope="col">{t("labs.value")}</th>
                <th scope="col">{t("labs.printedRange")}</th>
              </tr>
            </thead>
            <tbody>
              {s.points.map((p, i) => (
                <tr key={i}>
                  <td>{p.date}</td>
                  <td>{`${p.value} ${s.unit}`}</td>
                  <td>{p.range ?? "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </figure>
      ))}
    </section>
  );
}
