import { axisNumber, COLOURS, Frame, GRID, LEFT, niceMax, RIGHT, segments, TEXT, W, YAxis } from "./frame";

/** The charts of the Service screen, drawn on the server as inline SVG (see ./frame.tsx). */

export type Stack = { label: string; parts: { key: keyof typeof COLOURS; value: number }[] };

/** Stacked bars (requests per hour: answered, refused, server errors), a tick every `tickEvery` bars. */
export function StackedBars({
  title,
  desc,
  bars,
  tickEvery,
  testId,
}: {
  title: string;
  desc: string;
  bars: Stack[];
  tickEvery: number;
  testId?: string;
}) {
  const H = 180;
  const top = 8;
  const bottom = H - 24;
  const max = niceMax(Math.max(0, ...bars.map((b) => b.parts.reduce((a, p) => a + p.value, 0))));
  const slot = (W - LEFT - RIGHT) / Math.max(1, bars.length);
  const scale = (v: number) => ((bottom - top) * v) / max;
  return (
    <Frame title={title} desc={desc} height={H} testId={testId}>
      <YAxis max={max} top={top} bottom={bottom} format={axisNumber} />
      {bars.map((b, i) => {
        let y = bottom;
        const x = LEFT + i * slot + slot * 0.15;
        return (
          <g key={i}>
            {b.parts.map((p) => {
              if (!p.value) return null;
              const h = Math.max(0.8, scale(p.value));
              y -= h;
              return <rect key={p.key} x={x} y={y} width={slot * 0.7} height={h} fill={COLOURS[p.key]} />;
            })}
            {i % tickEvery === 0 && (
              <text x={LEFT + i * slot} y={H - 6} fill={TEXT}>
                {b.label}
              </text>
            )}
          </g>
        );
      })}
    </Frame>
  );
}

/** Pairs of horizontal bars (p50 and p99 per kind of request), each labelled with its value. */
export function PairedBars({
  title,
  desc,
  groups,
  testId,
}: {
  title: string;
  desc: string;
  groups: {
    label: string;
    a: { value: number | null; text: string };
    b: { value: number | null; text: string };
  }[];
  testId?: string;
}) {
  const row = 62;
  const H = groups.length * row + 4;
  const max = niceMax(Math.max(0, ...groups.flatMap((g) => [g.a.value ?? 0, g.b.value ?? 0])));
  const span = W - 110;
  const bar = (v: number | null) => (v === null ? 0 : Math.max(1, (span * v) / max));
  return (
    <Frame title={title} desc={desc} height={H} testId={testId}>
      {groups.map((g, i) => {
        const y = i * row + 15;
        return (
          <g key={g.label}>
            <text x={0} y={y} fill={TEXT} fontWeight={600} fontSize={14}>
              {g.label}
            </text>
            <rect x={0} y={y + 6} width={bar(g.a.value)} height={16} fill={COLOURS.p50} />
            <text x={bar(g.a.value) + 4} y={y + 19} fill={TEXT}>
              p50 {g.a.text}
            </text>
            <rect x={0} y={y + 25} width={bar(g.b.value)} height={16} fill={COLOURS.p99} />
            <text x={bar(g.b.value) + 4} y={y + 38} fill={TEXT}>
              p99 {g.b.text}
            </text>
          </g>
        );
      })}
    </Frame>
  );
}

/** Lines over time with points (time to opinion per week); null values leave a gap. */
export function Lines({
  title,
  desc,
  labels,
  series,
  tickEvery,
  unit,
  height = 200,
  testId,
}: {
  title: string;
  desc: string;
  labels: string[];
  series: { key: keyof typeof COLOURS; values: (number | null)[]; dashed?: boolean }[];
  tickEvery: number;
  /** The values' unit, written once above the axis (a unit on every label does not fit in every language). */
  unit: string;
  height?: number;
  testId?: string;
}) {
  const H = height;
  const top = 24;
  const bottom = H - 24;
  const max = niceMax(Math.max(0, ...series.flatMap((s) => s.values.map((v) => v ?? 0))));
  const n = Math.max(1, labels.length - 1);
  const x = (i: number) => LEFT + 6 + ((W - LEFT - RIGHT - 12) * i) / n;
  const y = (v: number) => bottom - ((bottom - top) * v) / max;
  return (
    <Frame title={title} desc={desc} height={H} testId={testId}>
      <text x={0} y={12} fill={TEXT}>
        {unit}
      </text>
      <YAxis max={max} top={top} bottom={bottom} format={axisNumber} />
      {labels.map((l, i) =>
        i % tickEvery === 0 ? (
          <text key={i} x={x(i)} y={H - 6} textAnchor="middle" fill={TEXT}>
            {l}
          </text>
        ) : null,
      )}
      {series.map((s) => (
        <g key={s.key}>
          {segments(s.values).map((seg, j) => (
            <polyline
              key={j}
              points={seg.map((i) => `${x(i).toFixed(1)},${y(s.values[i]!).toFixed(1)}`).join(" ")}
              fill="none"
              stroke={COLOURS[s.key]}
              strokeWidth={2}
              strokeDasharray={s.dashed ? "5 3" : undefined}
            />
          ))}
          {s.values.map((v, i) =>
            v === null ? null : <circle key={i} cx={x(i)} cy={y(v)} r={2.5} fill={COLOURS[s.key]} />,
          )}
        </g>
      ))}
    </Frame>
  );
}

/** Runs of consecutive non-null indexes. */
export function Spark({ title, desc, values }: { title: string; desc: string; values: (number | null)[] }) {
  const H = 48;
  const max = niceMax(Math.max(0, ...values.map((v) => v ?? 0)));
  const n = Math.max(1, values.length - 1);
  const x = (i: number) => 4 + ((W - 8) * i) / n;
  const y = (v: number) => H - 3 - ((H - 8) * v) / max;
  return (
    <Frame title={title} desc={desc} height={H}>
      <line x1={0} x2={W} y1={H - 3} y2={H - 3} stroke={GRID} />
      {segments(values).map((seg, j) =>
        seg.length === 1 ? (
          <circle key={j} cx={x(seg[0])} cy={y(values[seg[0]]!)} r={2.5} fill={COLOURS.line} />
        ) : (
          <polyline
            key={j}
            points={seg.map((i) => `${x(i).toFixed(1)},${y(values[i]!).toFixed(1)}`).join(" ")}
            fill="none"
            stroke={COLOURS.line}
            strokeWidth={2}
          />
        ),
      )}
    </Frame>
  );
}

/** A key to a chart's colours, in words (colour is never the only cue: the table has the same figures). */
export function Legend({
  items,
}: {
  items: { key: keyof typeof COLOURS; label: string; line?: boolean; dashed?: boolean }[];
}) {
  return (
    <ul className="mt-2 flex flex-wrap gap-x-4 gap-y-1 text-sm text-slate-700">
      {items.map((i) => (
        <li key={i.key} className="flex items-center gap-1.5">
          <svg width="18" height="10" aria-hidden="true">
            {i.line || i.dashed ? (
              <line
                x1="0"
                x2="18"
                y1="5"
                y2="5"
                stroke={COLOURS[i.key]}
                strokeWidth="2"
                strokeDasharray={i.dashed ? "5 3" : undefined}
              />
            ) : (
              <rect width="18" height="10" fill={COLOURS[i.key]} />
            )}
          </svg>
          {i.label}
        </li>
      ))}
    </ul>
  );
}

/** The chart's figures as a table, behind a disclosure (works without JavaScript); scrolls sideways on a phone. */
export function FiguresTable({
  summary,
  caption,
  head,
  rows,
  testId,
}: {
  summary: string;
  caption: string;
  head: string[];
  rows: (string | number)[][];
  testId?: string;
}) {
  return (
    <details className="mt-3">
      <summary className="link inline-flex min-h-11 cursor-pointer items-center">{summary}</summary>
      <div
        className="mt-2 max-w-full overflow-x-auto rounded-xl border border-slate-200 bg-white"
        role="region"
        aria-label={caption}
        tabIndex={0}
      >
        <table className="w-full border-collapse text-left text-sm" data-testid={testId}>
          <caption className="sr-only">{caption}</caption>
          <thead className="bg-slate-50 text-slate-700">
            <tr>
              {head.map((h) => (
                <th
                  key={h}
                  scope="col"
                  className="border-b border-slate-200 px-3 py-2 font-semibold whitespace-nowrap"
                >
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => (
              <tr key={i} className="border-b border-slate-100 last:border-b-0">
                {r.map((c, j) =>
                  j === 0 ? (
                    <th key={j} scope="row" className="px-3 py-1.5 font-normal whitespace-nowrap">
                      {c}
                    </th>
                  ) : (
                    <td key={j} className="px-3 py-1.5 tabular-nums whitespace-nowrap">
                      {c}
                    </td>
                  ),
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}
