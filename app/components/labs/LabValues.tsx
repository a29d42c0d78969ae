import type { LabSeriesView } from "~/types/lab-series";
import { useLabSay } from "./words";

/**
 * The patient's side of lab values (decisions 0084, 0090): checked values in plain words, and for
 * an analyte in two or more reports a server-rendered SVG chart — each report at the date printed on
 * it (else the day it was uploaded, said so), dates on its axis, the range printed on each report as
 * a labelled band, in the unit her reports print — with a table as its text alternative, and the
 * test named in her language beside the name her reports print. No JavaScript needed. Every sentence
 * is the clinic's correction where it made one (decision 0108).
 */

export type { LabPointView, LabSeriesView } from "~/types/lab-series";

export function LabLines({ lines }: { lines: string[] }) {
  const t = useLabSay();
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
const H = 190;
const LEFT = 52;
const RIGHT = 24;
const TOP = 22;
const BOTTOM = 40;

const num = (n: number) => String(Number(n.toPrecision(6)));

function Chart({ s, mixed }: { s: LabSeriesView; mixed: boolean }) {
  const nums = s.points.flatMap((p) => [p.value, p.low, p.high]).filter((n): n is number => n != null);
  const min = Math.min(...nums);
  const max = Math.max(...nums);
  const span = max - min || Math.abs(max) || 1;
  // A little room above and below, so a point on the band's edge is not on the frame.
  const lo = min - span * 0.08;
  const hi = max + span * 0.08;
  const y = (v: number) => TOP + (1 - (v - lo) / (hi - lo)) * (H - TOP - BOTTOM);
  const n = s.points.length;
  const x = (i: number) => (n === 1 ? W / 2 : LEFT + (i / (n - 1)) * (W - LEFT - RIGHT));
  const half = n === 1 ? (W - LEFT - RIGHT) / 2 : (W - LEFT - RIGHT) / (n - 1) / 2;
  const line = s.points.map((p, i) => `${x(i).toFixed(1)},${y(p.value).toFixed(1)}`).join(" ");
  // Dates on the axis: every one when they fit, else the first, the last and some between.
  const every = Math.ceil(n / 4);
  const labelled = (i: number) => i === 0 || i === n - 1 || (i % every === 0 && n - 1 - i >= every / 2);
  const base = H - BOTTOM;
  return (
    <svg viewBox={`0 0 ${W} ${H}`} className="h-auto w-full max-w-md" aria-hidden="true" focusable="false">
      {s.points.map((p, i) => {
        if (p.low == null && p.high == null) return null;
        const top = y(p.high ?? hi);
        const bottom = y(p.low ?? lo);
        const left = Math.max(LEFT - 12, x(i) - half);
        const right = Math.min(W - 4, x(i) + half);
        // Each report's band, with the bounds it printed at its edges: the first in the margin, as
        // an axis's marks; a later one that prints other bounds, inside its own band.
        const edge = (v: number, at: number, inside: number) =>
          i === 0 ? (
            <text x={LEFT - 15} y={at + 3.5} fontSize="10" textAnchor="end" fill="#065f46">
              {num(v)}
            </text>
          ) : (
            <text x={left + 3} y={inside} fontSize="10" fill="#065f46">
              {num(v)}
            </text>
          );
        return (
          <g key={`band-${i}`} data-testid="lab-band">
            <rect x={left} y={top} width={right - left} height={Math.max(1, bottom - top)} fill="#d1fae5" />
            {(i === 0 || p.range !== s.points[i - 1].range) && (
              <>
                {p.high != null && edge(p.high, top, top + 11)}
                {p.low != null && edge(p.low, bottom, bottom - 3)}
              </>
            )}
          </g>
        );
      })}
      <line x1={LEFT - 12} x2={W - 4} y1={base} y2={base} stroke="#94a3b8" strokeWidth="1" />
      <polyline points={line} fill="none" stroke="#0f766e" strokeWidth="2" />
      {s.points.map((p, i) => {
        const out = p.judgement === "above" || p.judgement === "below";
        return (
          <g key={`pt-${i}`}>
            <circle cx={x(i)} cy={y(p.value)} r="4.5" fill={out ? "#be123c" : "#0f766e"} />
            <text
              x={x(i)}
              y={y(p.value) - 8}
              fontSize="11"
              fontWeight="600"
              textAnchor="middle"
              fill="#0f172a"
            >
              {num(p.value)}
            </text>
            <line x1={x(i)} x2={x(i)} y1={base} y2={base + 4} stroke="#94a3b8" />
            {labelled(i) && (
              <text
                x={x(i)}
                y={base + 17}
                fontSize="10"
                textAnchor={n > 1 && i === 0 ? "start" : n > 1 && i === n - 1 ? "end" : "middle"}
                fill="#334155"
                data-testid="lab-axis-date"
              >
                {`${p.axis}${mixed && p.dated === "uploaded" ? "*" : ""}`}
              </text>
            )}
          </g>
        );
      })}
    </svg>
  );
}

export function LabCharts({
  series,
  forExpert = false,
}: {
  series: LabSeriesView[];
  /** Drawn for the expert (the repeat tests he asked for): about the patient, not to her. */
  forExpert?: boolean;
}) {
  const t = useLabSay();
  if (!series.length) return null;
  return (
    <section className="card mb-4 p-4" aria-labelledby="lab-series-title" data-testid="lab-series">
      <h2 id="lab-series-title" className="text-lg font-semibold text-slate-900">
        {forExpert ? t("labs.seriesTitleExpert") : t("labs.seriesTitle")}
      </h2>
      <p className="text-sm text-slate-700">{t("labs.seriesBand")}</p>
      {series.map((s) => {
        const mixed = s.dates === "mixed";
        const ranges = [...new Set(s.points.map((p) => p.range ?? ""))];
        return (
          <figure key={s.loinc} className="mt-4" data-testid="lab-chart">
            <figcaption className="text-slate-900">
              <span className="font-semibold">{s.name}</span> ({s.unit})
              {s.printedAs && (
                <span className="block text-sm text-slate-700">
                  {forExpert
                    ? t("labs.printedAsExpert", { names: s.printedAs })
                    : t("labs.printedAs", { names: s.printedAs })}
                </span>
              )}
            </figcaption>
            <Chart s={s} mixed={mixed} />
            {/* The band's label: the range as her report prints it. */}
            <p className="flex items-start gap-2 text-sm text-slate-800" data-testid="lab-band-label">
              <span
                aria-hidden="true"
                className="mt-1 inline-block h-3 w-5 shrink-0 rounded-sm bg-emerald-100"
              />
              <span>
                {ranges.length === 1 && ranges[0]
                  ? t("labs.bandLabel", { range: `${ranges[0]} ${s.unit}` })
                  : t("labs.bandLabelEach")}
              </span>
            </p>
            <p className="text-sm text-slate-700" data-testid="lab-dates-note">
              {t(
                s.dates === "printed"
                  ? "labs.datesPrinted"
                  : s.dates === "uploaded"
                    ? "labs.datesUploaded"
                    : "labs.datesMixed",
              )}
            </p>
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
                    <td>{`${p.date}${mixed && p.dated === "uploaded" ? "*" : ""}`}</td>
                    <td>{`${num(p.value)} ${s.unit}`}</td>
                    <td>{p.range ?? "—"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </figure>
        );
      })}
    </section>
  );
}
