/**
 * The table reader (decision 0104): a lab report's result table read by its geometry, not by line
 * patterns. The table is found by its header row (Test / Investigation / Parameter, Result / Value /
 * Observed, Unit(s), Reference / Biological Ref. Interval / Normal Range, Flag — in any order, any
 * of them missing); each column's band is taken from the header; every word below is given to a
 * column by where it stands; the lines between one test's name and the next are that test's row, so
 * a value printed a little below its name, a name that wraps, a range printed over several lines
 * and a method line under the name all belong to the row they stand in, and the method line is no
 * result. Each row goes on as one line in the order the row recogniser reads (name, value, unit,
 * range, flag), whatever order the columns were printed in; lines outside any table go on as they
 * were (the line patterns are the fallback when no header is found). Text layers (pdftotext's word
 * boxes) and OCR (Tesseract's) go through the same reader. Pure: no I/O, browser-safe.
 */
import { RANGE_CELL } from "./lexer";
import { toUcum } from "./units";
import { namesInLine } from "./recognise";

type Box = [number, number, number, number];
/** A line of a page with its words' boxes (page fractions), as lab-lines.server.ts makes them. */
export type TableLine = {
  page: number;
  text: string;
  box: Box;
  words?: { text: string; box: Box }[];
  weak?: string[];
  conf?: number;
};

type Col = "name" | "result" | "unit" | "range" | "flag" | "method";

/** Header words and the column each begins; the words after one in the same cell join it. */
const HEAD: [RegExp, Col][] = [
  [/^(tests?|investigations?|parameters?|examinations?|descriptions?|analytes?|particulars)$/, "name"],
  [/^(results?|values?|observed|observations?|findings?|reading)$/, "result"],
  [/^(units?|uom)$/, "unit"],
  [/^(reference|ref|references|biological|bio|normal|ranges?|intervals?|expected|limits?)$/, "range"],
  [/^(flags?|status|h\/l)$/, "flag"],
  [/^(methods?|methodology|technique)$/, "method"],
];
/** Words that never begin a column: they go on the cell before them ("Test Name", "Ref. Interval"). */
const HEAD_MORE =
  /^(name|names|description|interval|intervals|limits?|and|&|of|level|levels|ref|range|ranges)$/;
/** Words that go on a range or result cell before them ("Normal Values", "Observed Value", "Bio. Ref."). */
const HEAD_AFTER_VALUE = /^(value|values|reference|normal|biological|bio)$/;

const key = (w: string) => w.toLowerCase().replace(/[^a-z/&]+/g, "");

type Cell = { col: Col; left: number; right: number };

/** The header cells of a line, or null when it is not a table's header. */
type Word = NonNullable<TableLine["words"]>[number];
const isHead = (k: string) => HEAD.some(([re]) => re.test(k)) || HEAD_MORE.test(k);

/**
 * Two header words OCR ran together where two tables meet ("RangeTest"): split where both halves
 * are header words, each with its share of the box.
 */
function unglued(w: Word): Word[] {
  const k = key(w.text);
  if (!k || isHead(k)) return [w];
  const letters = w.text.replace(/[^A-Za-z]/g, "");
  for (let at = 2; at < letters.length - 1; at++) {
    const [a, b] = [letters.slice(0, at), letters.slice(at)];
    if (!isHead(a.toLowerCase()) || !HEAD.some(([re]) => re.test(b.toLowerCase()))) continue;
    const [x, y, width, h] = w.box;
    const cut = (width * a.length) / letters.length;
    return [
      { text: a, box: [x, y, cut, h] },
      { text: b, box: [x + cut, y, width - cut, h] },
    ];
  }
  return [w];
}

function headerOf(line: TableLine): Cell[] | null {
  const words = line.words?.flatMap(unglued);
  if (!words?.length || words.length > 30 || /\d/.test(line.text)) return null;
  const cells: Cell[] = [];
  let known = 0;
  for (const w of words) {
    const k = key(w.text);
    if (!k) continue;
    const col = HEAD.find(([re]) => re.test(k))?.[1];
    const last = cells.at(-1);
    const gap = last ? w.box[0] - last.right : Infinity;
    // Words of one cell stand a space apart: a space is about as wide as the text is tall in a
    // text layer's boxes, but OCR boxes only the ink (lower), and a typewriter font's space is a
    // letter wide with room on both sides (Courier's "Test Name" is two letters apart): a gap
    // under two letters' width (this word's mean) is a space too (decision 0112).
    const letter = w.box[2] / Math.max(1, w.text.length);
    const close = gap < Math.max(w.box[3] * 1.2, letter * 1.6);
    const more =
      HEAD_MORE.test(k) || (HEAD_AFTER_VALUE.test(k) && (last?.col === "range" || last?.col === "result"));
    if (last && close && (more || !col)) {
      // "Test Name", "Biological Ref. Interval", "Normal Values": one cell.
      last.right = w.box[0] + w.box[2];
      if (more) known++;
      continue;
    }
    if (!col) return null;
    known++;
    // Two header words of one kind side by side are one cell, whatever the gap OCR saw between
    // them ("Bio.   Ref. Interval" in a typewriter font; decision 0124): never two tables.
    if (last?.col === col) {
      last.right = w.box[0] + w.box[2];
      continue;
    }
    cells.push({ col, left: w.box[0], right: w.box[0] + w.box[2] });
  }
  const cols = new Set(cells.map((c) => c.col));
  if (!cols.has("result") && !(cols.has("range") && cols.has("unit"))) return null;
  if (cols.size < 2 || known < words.length * 0.6) return null;
  return cells;
}

type Table = { bands: { col: Col; from: number }[]; page: number };

/**
 * One table per name column: a header printed twice on one line ("Test Result Unit Range   Test
 * Result Unit Range") is two tables side by side, each with its own bands.
 */
function tablesOf(cells: Cell[], page: number): (Table & { from: number; to: number })[] {
  const groups: Cell[][] = [];
  for (const c of cells) {
    const g = groups.at(-1);
    if (!g || g.some((x) => x.col === c.col)) groups.push([c]);
    else g.push(c);
  }
  return groups.map((g, i) => {
    const from = i === 0 ? -Infinity : g[0]!.left - 0.005;
    const to = groups[i + 1] ? groups[i + 1]![0]!.left - 0.005 : Infinity;
    // The name column runs from the table's left edge; a header without one ("Result Unit Range"
    // over names) has it implied, left of the first column.
    const bands = g.map((c, n) => ({
      col: c.col,
      // Numbers are often right-aligned under a short header: a column starts a little before it.
      from: n === 0 ? from : c.left - Math.min(0.02, (c.left - g[n - 1]!.right) / 2),
    }));
    if (bands[0]!.col !== "name") bands.unshift({ col: "name", from });
    bands[0]!.from = from;
    return { bands, page, from, to };
  });
}

/** How many times a table's (or page's) median word height a word stands when it is a watermark's letter, not text. */
export const TALLER = 2.2;

type Cells = Record<Col, string[]>;
const emptyCells = (): Cells => ({ name: [], result: [], unit: [], range: [], flag: [], method: [] });

function cellsOf(line: TableLine, t: Table & { from: number; to: number }, tall: number): Cells | null {
  const out = emptyCells();
  let any = false;
  let last: { col: Col; right: number } | null = null;
  for (const w of line.words ?? []) {
    const mid = w.box[0] + w.box[2] / 2;
    if (w.box[0] < t.from - 0.002 || mid >= t.to) continue;
    // A watermark's letters stand far taller than the table's text.
    if (w.box[3] > tall * TALLER) continue;
    // A name starts where its column does: its first word is given by where it begins.
    const x = w.box[0] < (t.bands[1]?.from ?? Infinity) && /^[\p{L}(]/u.test(w.text) ? w.box[0] : mid;
    let col: Col = "name";
    for (const b of t.bands) if (x >= b.from) col = b.col;
    // A long name runs on past its column's edge ("ABSOLUTE NEUTROPHIL COUNT" over the unit
    // column): a word of letters (or a colon) a space after a name's word, not a unit, is the
    // name's (decision 0124).
    if (
      col !== "name" &&
      last?.col === "name" &&
      w.box[0] - last.right < w.box[3] &&
      (/^\p{L}+$/u.test(w.text) || /^[:.\-–]$/.test(w.text)) &&
      !toUcum(w.text)
    )
      col = "name";
    out[col].push(w.text);
    last = { col, right: w.box[0] + w.box[2] };
    any = true;
  }
  return any ? out : null;
}

/**
 * A line under a test's name that names a method, a specimen or a remark: never a result. A remark
 * wholly in brackets ("(PNPP-AMP)", "(CHOD-PAP )") is one too, when it names no test (decision 0124).
 */
const ANNOTATION =
  /^(method|methodology|principle|specimen|sample|technique|note|remarks?|comments?)\b|^(by\s+)?[\p{L}\s'-]*(metry|metric|scopy|graphy|assay|kinetic|calculated|derived|impedance|colorimetric|cytometry|hplc|elisa|clia|eclia|ise|enzymatic|jaffe'?s?)\W*$|^\([^()]+\)$/iu;
/** Where a report's notes begin: the table has ended. */
const TABLE_END =
  /^\s*(\*+\s*)?(notes?|interpretation|comments?|clinical (significance|notes?)|disclaimer|end of report|[-~*=\s]*end of report|advice|suggested|kindly|please)\b/i;

type Row = {
  first: number;
  lines: number[];
  name: string[];
  result: string[];
  unit: string[];
  range: string[];
  flag: string[];
};

/** Whether a name printed on two lines names a test across the break ("Total Leucocyte" / "Count"). */
function across(above: string[], below: string): boolean {
  const first = above.join(" ");
  // A heading in capitals under a name that is not ("Basophils" / "ABSOLUTE COUNT") starts a section.
  const capitals = (t: string) => /\p{Ll}/u.test(t) === false && /\p{Lu}/u.test(t);
  if (capitals(below) !== capitals(first)) return false;
  const cut = first.split(/\s+/).length;
  return namesInLine(`${first} ${below}`).some((m) => m.from < cut && m.to > cut);
}

/** The middle value of a list (0 for none). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** The median height of the words of some lines (a table's text size). */
function medianHeight(lines: TableLine[]): number {
  const heights = lines.flatMap((l) => (l.words ?? []).map((w) => w.box[3]));
  return heights.length ? median(heights) : 0.01;
}

/**
 * The lines of a report with every table read by its geometry: each row of a table one line in
 * the recogniser's order, on the line where its name stands (the other lines of the row left empty,
 * so line numbers stay those of the page); every other line as it was. `source[i]` is the line a
 * result on output line i was read from, for its box.
 */
export function readTables<L extends TableLine>(lines: readonly L[]): L[] {
  const out: L[] = [...lines];
  let i = 0;
  while (i < lines.length) {
    const head = headerOf(lines[i]!);
    if (!head) {
      i++;
      continue;
    }
    const tables = tablesOf(head, lines[i]!.page);
    // The table runs to its end: notes, the end of the report, or the next header (a new table).
    let end = i + 1;
    while (end < lines.length && !TABLE_END.test(lines[end]!.text) && !headerOf(lines[end]!)) end++;
    const body = lines.slice(i + 1, end);
    const tall = medianHeight(body);
    const rows: Row[] = [];
    const consumed = new Set<number>();
    for (const t of tables) {
      let row: Row | null = null;
      for (let k = 0; k < body.length; k++) {
        const at = i + 1 + k;
        const line = body[k]!;
        const c = cellsOf(line, t, tall);
        if (!c) continue;
        let name = c.name.join(" ");
        const others = c.result.length + c.unit.length + c.range.length + c.flag.length;
        if (name && !namesInLine(name).length && (ANNOTATION.test(name) || c.method.length)) {
          // A method, specimen or remark line is no result ("Sample Type  Serum (2 ml)  TAT : 1
          // day"); only the value of the row above, set beside its method line, is taken from it.
          const value = row !== null && !row.result.length && c.result.some((w) => /\d/.test(w));
          // …nor the next part of its range printed beside it ("Method: Photometry   Male : 13.0 - 17.0").
          const part = row !== null && !c.result.length && c.range.some((w) => /\d/.test(w));
          if (part) {
            row!.lines.push(at);
            row!.range.push(...c.range);
            continue;
          }
          if (!value) {
            consumed.add(at);
            continue;
          }
          name = "";
        }
        if (name) {
          const named = namesInLine(name).length > 0;
          // A name that wraps ("Mean Corpuscular" / "Volume"): the line joins the row above when
          // the two together name a test across the break, with the value on either line.
          const wraps =
            !named && row !== null && !(row.result.length && c.result.length) && across(row.name, name);
          if (!named && others === 0 && !wraps) {
            row = null; // a heading: the line goes on as it was (it may set the section)
            continue;
          }
          if (wraps) {
            row!.name.push(name);
          } else {
            row = { first: at, lines: [], name: [name], result: [], unit: [], range: [], flag: [] };
            rows.push(row);
          }
        } else if (!row) continue;
        else if (c.result.length && row.result.some((w) => /\d/.test(w))) {
          row = null; // a second value for one name: the lines go on as they were
          continue;
        }
        if (!row) continue;
        row.lines.push(at);
        row.result.push(...c.result);
        row.unit.push(...c.unit);
        row.range.push(...c.range);
        row.flag.push(...c.flag);
      }
    }
    // Each row on the line of its name; two tables side by side put two rows on one line, parted
    // by a wide gap as two columns are.
    // A row whose name names no test (a footer, the patient's details) goes on as it was printed.
    const read = rows.filter((r) => r.result.length && namesInLine(r.name.join(" ")).length > 0);
    const placed = new Map<number, Row[]>();
    for (const r of read) placed.set(r.first, [...(placed.get(r.first) ?? []), r]);
    const emptied = new Set(consumed);
    for (const r of read) for (const n of r.lines) if (!placed.has(n)) emptied.add(n);
    for (const n of emptied) out[n] = { ...lines[n]!, text: "", words: [] };
    for (const [at, list] of placed) {
      // The row recogniser's order: name, the value (with any flag), the unit, the range.
      const text = list
        .map((r) =>
          [
            r.name.join(" "),
            [...r.result, ...r.flag].join(" "),
            r.unit.join(" "),
            r.range.length ? `${RANGE_CELL} ${r.range.join(" ")}` : "",
          ]
            .filter(Boolean)
            .join("   "),
        )
        .join("      ");
      const all = [...new Set(list.flatMap((r) => [r.first, ...r.lines]))].map((n) => lines[n]!);
      out[at] = {
        ...lines[at]!,
        text,
        words: all.flatMap((l) => l.words ?? []),
        weak: all.flatMap((l) => l.weak ?? []),
      };
    }
    i = end;
  }
  return out;
}
