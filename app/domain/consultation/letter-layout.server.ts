// The opinion letter's layout (decision 0012): text split into script runs and measured with
// shaped widths, words into lines, lines into rows on one baseline, rows drawn page after page
// (each line wrapped in a Span whose ActualText is its logical text).
import {
  LOCALE_SCRIPT,
  SUBSTITUTES,
  fontName,
  fonts,
  PdfKit,
  isIndic,
  kindOf,
  type Face,
  type Kind,
  type LetterLocale,
  type Unit,
} from "./letter-fonts.server";

// ---------------------------------------------------------------------------------------------
// Layout model

type Style = { size: number; bold: boolean; color: string };
type Cell = { x: number; units: Unit[]; style: Style };
/** One drawn line: its height, the distance from its top to the shared baseline, its cells. */
export type Row = { h: number; base: number; cells: Cell[] };

export const A4 = { w: 595.28, h: 841.89 };
export const MARGIN = 50;
export const TEXT_W = A4.w - 2 * MARGIN;
export const BOTTOM = A4.h - MARGIN - 12; // the footer sits below this
export const TEAL = "#0f766e";
const BLACK = "#000000";
export const WARN = { border: "#b91c1c", fill: "#fef2f2", text: "#7f1d1d" };

export const S = {
  product: { size: 10.5, bold: true, color: "#ffffff" },
  title: { size: 20, bold: true, color: "#ffffff" },
  label: { size: 9.5, bold: false, color: BLACK },
  value: { size: 10.5, bold: true, color: BLACK },
  heading: { size: 12.5, bold: true, color: TEAL },
  body: { size: 10.5, bold: false, color: BLACK },
  subhead: { size: 10, bold: true, color: BLACK },
  warning: { size: 11.5, bold: true, color: WARN.text },
  name: { size: 12.5, bold: true, color: BLACK },
  code: { size: 14, bold: true, color: BLACK },
  small: { size: 9, bold: false, color: BLACK },
  disclaimer: { size: 8.5, bold: false, color: BLACK },
  footer: { size: 8, bold: false, color: BLACK },
} satisfies Record<string, Style>;

/** Line height: Indic scripts need room for stacked conjuncts, top matras and below-base forms. */
export const leading = (style: Style, indic: boolean) => style.size * (indic ? 1.62 : 1.4);
export const baseOf = (style: Style, h: number) => h - 0.42 * style.size;

export class Letter {
  readonly doc: PDFKit.PDFDocument;
  y = MARGIN;
  private widths = new Map<string, number>();

  constructor(
    private readonly locale: LetterLocale,
    title: string,
    author: string,
  ) {
    const parsed = fonts();
    this.doc = new (PdfKit())({
      size: "A4",
      margin: MARGIN,
      bufferPages: true, // page numbers "n / total" are drawn at the end
      lang: { en: "en-IN", hi: "hi-IN", bn: "bn-IN", ta: "ta-IN" }[locale],
      displayTitle: true,
      info: { Title: title, Author: author, Creator: author },
      // A parsed font where pdfkit types a name: pdfkit never loads its built-in Helvetica then.
      font: parsed.get(fontName("latin", 400)) as unknown as string,
    });
    for (const [name, font] of parsed) this.doc.registerFont(name, font as unknown as Buffer);
  }

  // --- text to units, words, rows

  /** Code points with their fonts: script runs, joiners and no-break spaces follow their neighbours. */
  units(text: string): Unit[] {
    const out: Unit[] = [];
    const kinds: Kind[] = [];
    for (const ch of text) {
      const cp = ch.codePointAt(0)!;
      const kind = kindOf(cp);
      const sub = SUBSTITUTES[cp];
      out.push({ l: ch, d: sub ?? ch, face: kind === "join" ? "latin" : kind });
      kinds.push(kind);
    }
    for (let i = 0; i < out.length; i++) {
      if (kinds[i] !== "join") continue;
      const cp = out[i].l.codePointAt(0)!;
      const prev = i > 0 ? out[i - 1].face : undefined;
      let next: Face | undefined;
      for (let j = i + 1; j < out.length && next === undefined; j++)
        if (kinds[j] !== "join") next = out[j].face;
      if (cp === 0xa0 || cp === 0x202f) {
        out[i].face = prev ?? next ?? "latin"; // every font here has U+0020 and U+00A0
        if (cp === 0x202f) out[i].d = "\u00a0";
      } else {
        out[i].face = isIndic(prev) ? prev! : isIndic(next) ? next! : LOCALE_SCRIPT[this.locale];
      }
    }
    return out;
  }

  private font(face: Face, style: Style) {
    const name = fontName(face, style.bold ? 700 : 400);
    this.doc.font(name).fontSize(style.size);
  }

  /** Shaped width of a run drawn in one font. */
  private runWidth(face: Face, style: Style, s: string): number {
    const key = `${face}|${style.bold}|${style.size}|${s}`;
    let w = this.widths.get(key);
    if (w === undefined) {
      this.font(face, style);
      w = this.doc.widthOfString(s);
      this.widths.set(key, w);
    }
    return w;
  }

  /** Consecutive units with the same font. */
  private runs(units: Unit[]): { face: Face; d: string }[] {
    const runs: { face: Face; d: string }[] = [];
    for (const u of units) {
      const last = runs[runs.length - 1];
      if (last && last.face === u.face) last.d += u.d;
      else runs.push({ face: u.face, d: u.d });
    }
    return runs;
  }

  width(units: Unit[], style: Style): number {
    return this.runs(units).reduce((w, r) => w + this.runWidth(r.face, style, r.d), 0);
  }

  /**
   * Paragraphs (split at line breaks) → words → lines of at most `width`; long words are broken.
   * `indic`: the line's paragraph has Indic text (taller lines for the whole paragraph).
   */
  lines(text: string, width: number, style: Style): { units: Unit[]; indic: boolean }[] {
    const lines: { units: Unit[]; indic: boolean }[] = [];
    // eslint-disable-next-line no-control-regex
    const clean = text.replace(/\r\n?/g, "\n").replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, "");
    let blank = false;
    for (const para of clean.split("\n")) {
      const words = para.split(/[^\S\u00a0\u202f]+/).filter(Boolean);
      if (words.length === 0) {
        if (lines.length > 0 && !blank) lines.push({ units: [], indic: false }); // one blank line at most
        blank = true;
        continue;
      }
      blank = false;
      const paraLines: Unit[][] = [];
      let line: Unit[] = [];
      let lineW = 0;
      for (const word of words) {
        const units = this.units(word);
        const w = this.width(units, style);
        if (line.length > 0) {
          const space: Unit = { l: " ", d: " ", face: line[line.length - 1].face };
          const sw = this.runWidth(space.face, style, " ");
          if (lineW + sw + w <= width) {
            line.push(space, ...units);
            lineW += sw + w;
            continue;
          }
          paraLines.push(line);
          line = [];
          lineW = 0;
        }
        if (w <= width) {
          line = units;
          lineW = w;
          continue;
        }
        // A word longer than the line: break it between grapheme clusters (conjuncts stay whole).
        const pieces = this.breakWord(units, width, style);
        paraLines.push(...pieces.slice(0, -1));
        line = pieces[pieces.length - 1];
        lineW = this.width(line, style);
      }
      if (line.length > 0) paraLines.push(line);
      const indic = paraLines.some((l) => l.some((u) => isIndic(u.face)));
      for (const units of paraLines) lines.push({ units, indic });
    }
    while (lines.length > 0 && lines[lines.length - 1].units.length === 0) lines.pop();
    return lines;
  }

  private breakWord(units: Unit[], width: number, style: Style): Unit[][] {
    const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
    const clusters: Unit[][] = [];
    let i = 0;
    for (const { segment } of segmenter.segment(units.map((u) => u.l).join(""))) {
      const n = [...segment].length;
      clusters.push(units.slice(i, i + n));
      i += n;
    }
    const pieces: Unit[][] = [];
    let piece: Unit[] = [];
    for (const cluster of clusters) {
      const candidate = [...piece, ...cluster];
      if (piece.length > 0 && this.width(candidate, style) > width) {
        pieces.push(piece);
        piece = [...cluster];
      } else piece = candidate;
    }
    pieces.push(piece);
    return pieces;
  }

  /** Rows of one text block at x (relative to the left margin) within width. */
  rows(text: string, style: Style, x = 0, width = TEXT_W - x): Row[] {
    return this.lines(text, width, style).map(({ units, indic }) => {
      const h = leading(style, indic);
      return units.length === 0
        ? { h: h * 0.5, base: 0, cells: [] }
        : { h, base: baseOf(style, h), cells: [{ x, units, style }] };
    });
  }

  /** Two columns side by side (label | value), line by line. */
  columns(a: Row[], b: Row[]): Row[] {
    const out: Row[] = [];
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const ra = a[i];
      const rb = b[i];
      const base = Math.max(ra?.base ?? 0, rb?.base ?? 0);
      const below = Math.max(ra ? ra.h - ra.base : 0, rb ? rb.h - rb.base : 0);
      out.push({ h: base + below, base, cells: [...(ra?.cells ?? []), ...(rb?.cells ?? [])] });
    }
    return out;
  }

  // --- drawing

  newPage() {
    this.doc.addPage();
    this.y = MARGIN;
  }

  gap(h: number) {
    if (this.y > MARGIN) this.y += h;
  }

  /** Starts a new page unless `h` fits below y (or y is already the top of a page). */
  keep(h: number) {
    if (this.y + h > BOTTOM && this.y > MARGIN) this.newPage();
  }

  drawRow(row: Row, top: number) {
    const baseline = top + row.base;
    for (const cell of row.cells) {
      const doc = this.doc;
      doc.markContent("Span", { actual: cell.units.map((u) => u.l).join("") });
      let x = MARGIN + cell.x;
      for (const run of this.runs(cell.units)) {
        this.font(run.face, cell.style);
        doc.fillColor(cell.style.color);
        doc.text(run.d, x, baseline, { lineBreak: false, baseline: "alphabetic" });
        x += this.runWidth(run.face, cell.style, run.d);
      }
      // Text extractors (poppler) place the ActualText with the graphics state current at EMC, but
      // pdfkit draws each run inside its own q … Q with a flipped matrix and font. Recreate that
      // state for the EMC, or `pdftotext -layout` puts these lines mirrored and size-less.
      const fontId = (doc as unknown as { _font: { id: string } })._font.id;
      doc.addContent("q").addContent(`1 0 0 -1 0 ${doc.page.height} cm`);
      doc.addContent(`/${fontId} ${cell.style.size} Tf`);
      doc.endMarkedContent();
      doc.addContent("Q");
    }
  }

  /**
   * Draws rows from y on, page after page. With a box, each page's part of the block gets its
   * background and frame first (padding `pad`), then its rows. `together`: move the whole block to
   * the next page when it does not fit here but does fit on an empty page.
   */
  block(
    rows: Row[],
    opts: {
      pad?: number;
      together?: boolean;
      box?: (top: number, height: number) => void;
      keepWithNext?: number;
    } = {},
  ) {
    const pad = opts.pad ?? 0;
    const total = rows.reduce((s, r) => s + r.h, 2 * pad);
    if (opts.together && total + (opts.keepWithNext ?? 0) <= BOTTOM - MARGIN)
      this.keep(total + (opts.keepWithNext ?? 0));
    let i = 0;
    while (i < rows.length) {
      if (this.y + 2 * pad + rows[i].h > BOTTOM && this.y > MARGIN) this.newPage();
      let h = 2 * pad;
      let j = i;
      while (j < rows.length && (j === i || this.y + h + rows[j].h <= BOTTOM)) h += rows[j++].h;
      opts.box?.(this.y, h);
      let top = this.y + pad;
      for (let k = i; k < j; k++) {
        this.drawRow(rows[k], top);
        top += rows[k].h;
      }
      this.y += h;
      i = j;
    }
  }

  rule(color: string, width = 0.75, x = 0, w = TEXT_W) {
    this.doc
      .save()
      .moveTo(MARGIN + x, this.y)
      .lineTo(MARGIN + x + w, this.y)
      .lineWidth(width)
      .strokeColor(color)
      .stroke()
      .restore();
  }
}

export const present = (s: string | null | undefined): s is string => !!s && s.trim().length > 0;

/** Shaped width in points of one line of `text` in the letter's fonts (split into runs by script). */
export function textWidth(text: string, size: number, bold = false, locale: LetterLocale = "en"): number {
  const letter = new Letter(locale, "", "");
  return letter.width(letter.units(text), { size, bold, color: BLACK });
}
