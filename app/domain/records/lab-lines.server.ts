import { median, TALLER } from "./labs";

/**
 * Lines of a page with their boxes (decision 0082): the words of a TSV (poppler's `pdftotext -tsv`
 * or Tesseract's `tsv`, same columns) grouped into lines by their vertical middle, each line's
 * box kept as fractions of its page so the reading keeps where every value was found.
 */
export type PageLine = {
  page: number;
  text: string;
  box: [number, number, number, number];
  /**
   * Words the OCR was unsure of (Tesseract's confidence under WEAK_CONF, or a digit with a rival:
   * RIVAL_CONF); a text layer has none.
   */
  weak?: string[];
  /** The line's words, each with its box (same fractions): a value's own box is cut from them. */
  words?: { text: string; box: Box }[];
  /**
   * OCR only: Tesseract's mean confidence (0–100) over the line's words that hold a digit (over all
   * its words when none does); how two readings of one page are compared (surerLines).
   */
  conf?: number;
};

type Box = [number, number, number, number];

/** Tesseract's word confidence (0–100) under which a word is doubted. */
export const WEAK_CONF = 70;
/**
 * A digit, decimal point or comma of a word is doubted when Tesseract's LSTM gave another of them
 * at least this confidence (0–100) in its place (`lstm_choice_mode=2`): "4,000" read "4,900" with
 * word confidence 70 and the "9" at 98, its rival "0" at 54 (decision 0089).
 */
export const RIVAL_CONF = 30;

type Word = {
  page: number;
  line: string;
  left: number;
  top: number;
  width: number;
  height: number;
  text: string;
  conf: number;
  /** A digit of it had a rival (unsureWords). */
  unsure: boolean;
};

/** A word's box as Tesseract's hOCR prints it (left top right bottom, in pixels). */
const boxKey = (left: number, top: number, right: number, bottom: number) =>
  `${left} ${top} ${right} ${bottom}`;

/**
 * The words of Tesseract's hOCR (with `hocr_char_boxes=1 lstm_choice_mode=2`) holding a digit,
 * decimal point or comma that another of them rivalled (RIVAL_CONF): their boxes, as boxKey.
 */
export function unsureWords(hocr: string): Set<string> {
  const out = new Set<string>();
  const numeric = /^[0-9.,]$/;
  const decode = (t: string) =>
    t.replace(
      /&(amp|lt|gt|quot|#39);/g,
      (_, e: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" })[e]!,
    );
  let word: string | null = null;
  let chosen = "";
  const tokens =
    /class='ocrx_word'[^>]*title='bbox (\d+) (\d+) (\d+) (\d+)|title='x_bboxes [^']*'>([^<]*)<|title='x_confs ([\d.]+)'>([^<]*)</g;
  for (const m of hocr.matchAll(tokens)) {
    if (m[1] !== undefined) {
      word = boxKey(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]));
      chosen = "";
    } else if (m[5] !== undefined) chosen = decode(m[5]);
    else if (word && numeric.test(chosen)) {
      const rival = decode(m[7] ?? "");
      if (rival !== chosen && numeric.test(rival) && Number(m[6]) >= RIVAL_CONF) out.add(word);
    }
  }
  return out;
}

/**
 * Parses a TSV of words (level 5) and pages (level 1) into lines, top to bottom, left to right;
 * `unsure` (from unsureWords) names words whose digits Tesseract was unsure of.
 */
export function linesFromTsv(
  tsv: string,
  pageOffset = 0,
  ownLines = false,
  unsure: Set<string> = new Set(),
): PageLine[] {
  const pages = new Map<number, { w: number; h: number }>();
  const words: Word[] = [];
  for (const raw of tsv.split("\n").slice(1)) {
    const c = raw.split("\t");
    if (c.length < 12) continue;
    const [level, page, block, par, line, , left, top, width, height, conf] = c.slice(0, 11).map(Number);
    const text = c.slice(11).join("\t").trim();
    if (level === 1) pages.set(page, { w: width, h: height });
    if (level !== 5 || !text || text.startsWith("###")) continue;
    const doubted = unsure.has(boxKey(left, top, left + width, top + height));
    words.push({
      page,
      line: `${block}.${par}.${line}`,
      left,
      top,
      width,
      height,
      text,
      conf,
      unsure: doubted,
    });
  }
  const out: PageLine[] = [];
  for (const [page, size] of [...pages].sort((a, b) => a[0] - b[0])) {
    const onPage = words
      .filter((w) => w.page === page)
      .sort((a, b) => a.top + a.height / 2 - (b.top + b.height / 2));
    const groups: Word[][] = [];
    // A word far taller than the page's text (a watermark's letter across the table, a large
    // title) is a line of its own kind: it never joins the text's lines, nor gathers them into one.
    const tall = TALLER * median(onPage.map((w) => w.height));
    const open = { text: undefined as Word[] | undefined, tall: undefined as Word[] | undefined };
    for (const w of onPage) {
      const mid = w.top + w.height / 2;
      if (ownLines) {
        // Tesseract's own lines follow a skewed page; words of one line share block, paragraph and line.
        const same = groups.find((g) => g[0].line === w.line);
        if (same) same.push(w);
        else groups.push([w]);
        continue;
      }
      const kind = w.height > tall ? "tall" : "text";
      const last = open[kind];
      const ref = last?.[0];
      if (last && ref && Math.abs(mid - (ref.top + ref.height / 2)) <= Math.max(ref.height, w.height) * 0.5)
        last.push(w);
      else groups.push((open[kind] = [w]));
    }
    for (const g of groups) {
      g.sort((a, b) => a.left - b.left);
      const x0 = Math.min(...g.map((w) => w.left));
      const y0 = Math.min(...g.map((w) => w.top));
      const x1 = Math.max(...g.map((w) => w.left + w.width));
      const y1 = Math.max(...g.map((w) => w.top + w.height));
      const r = (n: number) => Math.round(n * 10_000) / 10_000;
      const boxOf = (a: number, b: number, c: number, d: number): Box => [
        r(a / size.w),
        r(b / size.h),
        r((c - a) / size.w),
        r((d - b) / size.h),
      ];
      out.push({
        page: page + pageOffset,
        text: joinWords(g),
        box: boxOf(x0, y0, x1, y1),
        words: g.map((w) => ({
          text: w.text,
          box: boxOf(w.left, w.top, w.left + w.width, w.top + w.height),
        })),
        ...(ownLines
          ? {
              weak: g.filter((w) => w.unsure || (w.conf >= 0 && w.conf < WEAK_CONF)).map((w) => w.text),
              conf: meanConf(g),
            }
          : {}),
      });
    }
  }
  return out;
}

/**
 * The box of one row on a line that may hold two (two columns): from the word where its printed
 * name starts to the word with its value, or with the last number of its range; the whole line's
 * box when the words cannot be found.
 */
export function rowBox(line: PageLine, printedName: string, printedValue: string, range: string | null): Box {
  const words = line.words;
  if (!words?.length) return line.box;
  const norm = (t: string) => t.toLowerCase().replace(/[^\p{L}\p{N}.]+/gu, "");
  const first = norm(printedName.split(/\s+/)[0] ?? "");
  const start = first ? words.findIndex((w) => norm(w.text).startsWith(first)) : -1;
  if (start < 0) return line.box;
  const at = words.findIndex((w, i) => i >= start && w.text.includes(printedValue));
  if (at < 0) return line.box;
  let end = at;
  const last = range?.match(/\d+(?:\.\d+)?/g)?.at(-1);
  if (last) {
    const k = words.findIndex((w, i) => i > at && i <= at + 6 && w.text.includes(last));
    if (k > 0) end = k;
  }
  const part = words.slice(start, end + 1).map((w) => w.box);
  const x0 = Math.min(...part.map((b) => b[0]));
  const y0 = Math.min(...part.map((b) => b[1]));
  const x1 = Math.max(...part.map((b) => b[0] + b[2]));
  const y1 = Math.max(...part.map((b) => b[1] + b[3]));
  const r = (n: number) => Math.round(n * 10_000) / 10_000;
  return [r(x0), r(y0), r(x1 - x0), r(y1 - y0)];
}

/** The mean of the confidences of a line's words with a digit (of all its words when none has one). */
function meanConf(g: Word[]): number {
  const digits = g.filter((w) => /\d/.test(w.text));
  const use = digits.length ? digits : g;
  return use.reduce((sum, w) => sum + w.conf, 0) / use.length;
}

/** Whether a page's OCR doubted a word that holds a digit: a second reading may settle it (surerLines). */
export function doubtsDigits(lines: PageLine[]): boolean {
  return lines.some((l) => l.weak?.some((w) => /\d/.test(w)));
}

/**
 * One page read twice (the second time rendered larger, decision 0089): each line of the first
 * reading, or the lines of the second at the same height (their middles within half the line's
 * height; page fractions, so the scale does not matter) when Tesseract was surer of their digits
 * by more than `margin` on the lowest of them. A line of the second reading replaces at most one of
 * the first; lines only the second reading found are not added.
 */
export function surerLines(first: PageLine[], second: PageLine[], margin = 0): PageLine[] {
  const used = new Set<PageLine>();
  const mid = (l: PageLine) => l.box[1] + l.box[3] / 2;
  return first.flatMap((a) => {
    const rivals = second.filter(
      (b) => b.page === a.page && !used.has(b) && Math.abs(mid(b) - mid(a)) < a.box[3] * 0.5,
    );
    if (!rivals.length || a.conf === undefined) return [a];
    const lowest = Math.min(...rivals.map((b) => b.conf ?? -1));
    if (!(lowest > a.conf + margin)) return [a];
    for (const b of rivals) used.add(b);
    return rivals;
  });
}

/** Words joined with one space, or with three where a wide gap parts two columns. */
function joinWords(g: Word[]): string {
  let s = g[0].text;
  for (let i = 1; i < g.length; i++) {
    const gap = g[i].left - (g[i - 1].left + g[i - 1].width);
    s += (gap > g[i].height * 1.5 ? "   " : " ") + g[i].text;
  }
  return s;
}
