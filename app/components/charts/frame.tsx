import { useId, type ReactNode } from "react";

/**
 * The drawing primitives of the server-drawn charts (app/components/charts/Charts.tsx): the frame,
 * the axis, the palette and the number formats. The Service screen's charts, drawn on the server as inline SVG: no chart library, no script, so
 * they show without JavaScript. Each is an image with a name and a description; the same figures
 * are in a table beside it (FiguresTable). The drawing is 360 units wide — a phone's width — so
 * its text stays legible where it is smallest; on wider screens it grows to at most 36 rem.
 * Colours: the brand teal for what went well, amber for refusals, red only for errors.
 */

export const W = 360;
export const LEFT = 40;
export const RIGHT = 8;
export const TEXT = "#334155"; // slate-700
export const GRID = "#cbd5e1"; // slate-300
export const COLOURS = {
  ok: "#0d7468", // brand-600
  clientErrors: "#b45309", // amber-700
  serverErrors: "#b91c1c", // red-700
  p50: "#5eb8ad",
  p99: "#094c45", // brand-800
  median: "#0d7468",
  p90: "#334155",
  line: "#0d7468",
};

/** A round upper bound for an axis: 1, 2 or 5 × 10ⁿ at or above `max`. */
export function niceMax(max: number): number {
  if (max <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(max));
  for (const m of [1, 2, 5, 10]) if (m * p >= max) return m * p;
  return 10 * p;
}

/**
 * An axis label: whole numbers as they are, fractions with the digits that tell them apart (0.25,
 * 0.005 — never 0.0 for a value that is not nothing), thousands as "k" (it must fit left of the axis).
 */
export function axisNumber(v: number): string {
  if (v >= 1000) return `${axisNumber(v / 1000)}k`;
  return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(2)));
}

export function Frame({
  title,
  desc,
  height,
  children,
  testId,
}: {
  title: string;
  desc: string;
  height: number;
  children: ReactNode;
  testId?: string;
}) {
  const id = useId();
  return (
    <svg
      viewBox={`0 0 ${W} ${height}`}
      role="img"
      aria-labelledby={`${id}t ${id}d`}
      className="block h-auto w-full max-w-xl"
      data-testid={testId}
      fontFamily="inherit"
      fontSize={13}
    >
      <title id={`${id}t`}>{title}</title>
      <desc id={`${id}d`}>{desc}</desc>
      {children}
    </svg>
  );
}

export function YAxis({
  max,
  top,
  bottom,
  format,
}: {
  max: number;
  top: number;
  bottom: number;
  format: (v: number) => string;
}) {
  return (
    <g>
      {[0, 0.5, 1].map((f) => {
        const y = bottom - (bottom - top) * f;
        return (
          <g key={f}>
            <line x1={LEFT} x2={W - RIGHT} y1={y} y2={y} stroke={GRID} strokeWidth={f === 0 ? 1 : 0.5} />
            <text x={LEFT - 4} y={y + 4} textAnchor="end" fill={TEXT}>
              {format(max * f)}
            </text>
          </g>
        );
      })}
    </g>
  );
}

export function segments(values: (number | null)[]): number[][] {
  const out: number[][] = [];
  let run: number[] = [];
  values.forEach((v, i) => {
    if (v === null) {
      if (run.length) out.push(run);
      run = [];
    } else run.push(i);
  });
  if (run.length) out.push(run);
  return out;
}

/** A small line of one queue over 48 hours, no axis (its figures are in the table). */
