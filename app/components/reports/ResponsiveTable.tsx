import type { ReactNode } from "react";

/**
 * When a wide table scrolls sideways, soft shadows at its edges show that there is more
 * (white covers that scroll with the content over shadows fixed to the box).
 */
const SCROLL_SHADOWS = [
  "sm:bg-no-repeat",
  "sm:[background-image:linear-gradient(to_right,white_30%,rgb(255_255_255/0)),linear-gradient(to_left,white_30%,rgb(255_255_255/0)),radial-gradient(farthest-side_at_0_50%,rgb(15_23_42/0.18),transparent),radial-gradient(farthest-side_at_100%_50%,rgb(15_23_42/0.18),transparent)]",
  "sm:[background-position:left_center,right_center,left_center,right_center]",
  "sm:[background-size:40px_100%,40px_100%,14px_100%,14px_100%]",
  "sm:[background-attachment:local,local,scroll,scroll]",
].join(" ");

export type Column<T> = {
  key: string;
  header: string;
  cell: (row: T, index: number) => ReactNode;
  /** Extra classes for this column's cells (desktop table). */
  className?: string;
};

/**
 * One list, two looks: a table from 640 px up and a stack of cards below it (each cell
 * then shows its column name in front of it). One DOM, so nothing is rendered twice.
 */
export function ResponsiveTable<T>({
  caption,
  columns,
  rows,
  rowKey,
  busy,
  testId,
  dense,
}: {
  caption: string;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string;
  busy?: boolean;
  testId?: string;
  /** Smaller type and padding, for tables with many columns. */
  dense?: boolean;
}) {
  const pad = dense ? "px-2.5" : "px-3";
  const cell = dense ? "rt-cell-dense" : "rt-cell";
  return (
    <div
      // `relative`: what is positioned inside (a button's screen-reader text) is clipped by the box
      // like the rest of the table, instead of widening the page when the table scrolls.
      className={`relative transition-opacity sm:overflow-x-auto sm:rounded-xl sm:border sm:border-slate-200 sm:bg-white sm:shadow-sm ${SCROLL_SHADOWS} ${
        busy ? "opacity-60" : ""
      }`}
      aria-busy={busy || undefined}
      // When the table is wider than the screen (long words in some languages), keyboard users can
      // focus the box and scroll it with the arrow keys (WCAG 2.1.1, axe scrollable-region-focusable).
      role="region"
      aria-label={caption}
      tabIndex={0}
    >
      <table
        className={`w-full border-collapse text-left max-sm:block ${dense ? "sm:text-sm" : ""}`}
        data-testid={testId}
      >
        <caption className="sr-only">{caption}</caption>
        <thead className="bg-slate-50 text-sm text-slate-700 max-sm:hidden">
          <tr>
            {columns.map((c) => (
              <th key={c.key} scope="col" className={`border-b border-slate-200 ${pad} py-3 font-semibold`}>
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="max-sm:block max-sm:space-y-3">
          {rows.map((row, i) => (
            <tr key={rowKey(row)} className="rt-row">
              {columns.map((c) => (
                <td
                  key={c.key}
                  data-label={c.header}
                  className={c.className ? `${cell} ${c.className}` : cell}
                >
                  <div className="rt-cell-body">{c.cell(row, i)}</div>
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
