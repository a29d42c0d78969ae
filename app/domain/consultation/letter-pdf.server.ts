// The opinion letter as a PDF (decision 0012): a pure function of its data, no I/O besides
// reading the font files. Decision 0012 explains the choices; in short:
// - pdfkit draws, its fontkit shapes (OpenType, Indic shaper: conjuncts, reordered matras);
// - Noto Sans for Latin, Noto Sans Devanagari/Bengali/Tamil for those scripts. The script fonts
//   have no Latin digits or punctuation, so every line is split into runs by script and each run
//   is drawn with its own font at an explicit x, all on one alphabetic baseline;
// - we lay out lines ourselves (words → lines measured with shaped widths) and wrap each drawn
//   line in a marked-content Span whose ActualText is the line's logical text, so that copy and
//   paste, search and pdftotext give the text as typed, not the glyphs' visual order.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { inflateSync } from "node:zlib";
import PDFDocument from "pdfkit";

export type LetterText = {
  /** Every label already translated by the caller. */
  title: string;
  patientLabel: string;
  reportLabel: string;
  submittedLabel: string;
  reviewedLabel: string;
  summaryLabel: string;
  findingsLabel: string;
  recommendationsLabel: string;
  /** A prominent warning sentence when the expert flagged it, else null. */
  seeDoctorSoon: string | null;
  followUpsLabel: string;
  questionLabel: string;
  answerLabel: string;
  notAnsweredYet: string;
  /** "Reviewed by" */
  signedByLabel: string;
  /** "Reg. No." */
  registrationLabel: string;
  verificationLabel: string;
  verifyHint: string;
  disclaimer: string;
};

export type LetterData = {
  locale: "en" | "hi" | "bn" | "ta";
  productName: string;
  patientName: string;
  /** Already translated. */
  reportType: string;
  /** Already formatted dates. */
  submittedOn: string;
  reviewedOn: string;
  summary: string;
  findings: string | null;
  recommendations: string | null;
  followUps: { question: string; answer: string | null; askedOn: string; answeredOn: string | null }[];
  /** `specialties` already translated and joined. */
  expert: { name: string; registrationNumber: string; registrationCouncil: string; specialties: string };
  verificationCode: string;
  text: LetterText;
  /**
   * A case's second opinions (decision 0038), each after the first opinion's signature: a heading
   * naming the specialty, how it stands to the first opinion and why, its opinion and its signer.
   * All already translated and formatted.
   */
  secondOpinions?: {
    heading: string;
    agreementLabel: string;
    agreement: string;
    summary: string;
    findings: string | null;
    recommendations: string | null;
    expert: LetterData["expert"];
    reviewedOn: string;
  }[];
};

// ---------------------------------------------------------------------------------------------
// Fonts and scripts

type Face = "latin" | "latinExt" | "deva" | "beng" | "taml";
type Weight = 400 | 700;
const FACES: Face[] = ["latin", "latinExt", "deva", "beng", "taml"];

const FONT_FILES: Record<Face, (w: Weight) => string> = {
  latin: (w) => `@fontsource/noto-sans/files/noto-sans-latin-${w}-normal.woff`,
  latinExt: (w) => `@fontsource/noto-sans/files/noto-sans-latin-ext-${w}-normal.woff`,
  deva: (w) => `@fontsource/noto-sans-devanagari/files/noto-sans-devanagari-devanagari-${w}-normal.woff`,
  beng: (w) => `@fontsource/noto-sans-bengali/files/noto-sans-bengali-bengali-${w}-normal.woff`,
  taml: (w) => `@fontsource/noto-sans-tamil/files/noto-sans-tamil-tamil-${w}-normal.woff`,
};

/**
 * WOFF 1.0 → the TrueType/OpenType file it wraps (zlib-compressed tables, otherwise the same).
 * fontkit reads WOFF itself but inflates the whole glyf table again for every glyph it embeds,
 * which made a letter take a second; from the plain file it reads glyphs directly.
 */
function woffToSfnt(woff: Buffer): Buffer {
  if (woff.readUInt32BE(0) !== 0x774f4646) throw new Error("not a WOFF file");
  const numTables = woff.readUInt16BE(12);
  const tables = Array.from({ length: numTables }, (_, i) => {
    const at = 44 + 20 * i;
    const [tag, offset, compLength, origLength, checksum] = [0, 4, 8, 12, 16].map((o) =>
      woff.readUInt32BE(at + o),
    );
    const raw = woff.subarray(offset, offset + compLength);
    return { tag, checksum, data: compLength < origLength ? inflateSync(raw) : raw };
  });
  const pow = 2 ** Math.floor(Math.log2(numTables));
  const head = Buffer.alloc(12 + 16 * numTables);
  head.writeUInt32BE(woff.readUInt32BE(4), 0); // flavor: 0x00010000 (TrueType) or 'OTTO'
  head.writeUInt16BE(numTables, 4);
  head.writeUInt16BE(pow * 16, 6);
  head.writeUInt16BE(Math.log2(pow), 8);
  head.writeUInt16BE(numTables * 16 - pow * 16, 10);
  const parts: Buffer[] = [head];
  let offset = head.length;
  tables.forEach((t, i) => {
    head.writeUInt32BE(t.tag, 12 + 16 * i);
    head.writeUInt32BE(t.checksum, 16 + 16 * i);
    head.writeUInt32BE(offset, 20 + 16 * i);
    head.writeUInt32BE(t.data.length, 24 + 16 * i);
    const padded = Buffer.alloc((t.data.length + 3) & ~3);
    t.data.copy(padded);
    parts.push(padded);
    offset += padded.length;
  });
  return Buffer.concat(parts);
}

let parsedFonts: Map<string, FkFont> | undefined;

/**
 * The ten fonts, read from node_modules (resolved from this module, so the server build finds them
 * too), parsed by pdfkit's fontkit and fixed once, then shared by every document: parsing them per
 * letter cost more than drawing it. pdfkit takes a parsed font wherever it takes a file.
 */
function fonts(): Map<string, FkFont> {
  if (!parsedFonts) {
    const require = createRequire(import.meta.url);
    const boot = new PDFDocument({ autoFirstPage: false });
    const map = new Map<string, FkFont>();
    for (const face of FACES) {
      for (const w of [400, 700] as const) {
        boot.font(woffToSfnt(readFileSync(require.resolve(FONT_FILES[face](w)))));
        const font = (boot as unknown as { _font: { font: FkFont } })._font.font;
        fixFontkitLayout(font);
        map.set(fontName(face, w), font);
      }
    }
    parsedFonts = map;
  }
  return parsedFonts;
}

const fontName = (face: Face, w: Weight) => `${face}-${w}`;

// Code points the `latin` subset file of @fontsource/noto-sans@5.3.0 has glyphs for (read from the
// font file; the subset's CSS unicode-range claims more than the file holds). Others go to
// `latin-ext` when it has them (LATIN_EXT), else to the substitutions below, else to `latin`
// (drawn as a missing-glyph box; the ActualText still carries the character).
const LATIN: [number, number][] = [
  [0x20, 0x7e], [0xa0, 0xff], [0x131, 0x131], [0x152, 0x153], [0x2bb, 0x2bc], [0x2c6, 0x2c6],
  [0x2da, 0x2da], [0x2dc, 0x2dc], [0x300, 0x301], [0x303, 0x304], [0x308, 0x309], [0x323, 0x323],
  [0x329, 0x329], [0x2002, 0x2002], [0x2009, 0x2009], [0x200b, 0x200b], [0x2013, 0x2014],
  [0x2018, 0x201a], [0x201c, 0x201e], [0x2022, 0x2022], [0x2026, 0x2026], [0x2032, 0x2033],
  [0x2039, 0x203a], [0x2044, 0x2044], [0x20ac, 0x20ac], [0x2122, 0x2122], [0x2212, 0x2212],
  [0xfeff, 0xfeff], [0xfffd, 0xfffd],
]; // prettier-ignore
const LATIN_EXT: [number, number][] = [
  [0x100, 0x130], [0x132, 0x151], [0x154, 0x2ba], [0x2bc, 0x2c5], [0x2c7, 0x2cc], [0x2ce, 0x2d7],
  [0x2dd, 0x2ff], [0x1d00, 0x1dbf], [0x1e00, 0x1e9f], [0x1ef2, 0x1eff], [0x2020, 0x2020],
  [0x20a0, 0x20ab], [0x20ad, 0x20c0], [0x2113, 0x2113], [0x2c60, 0x2c7f], [0xa720, 0xa7ca],
]; // prettier-ignore

/** Drawn instead of characters no font here has (the ActualText keeps the original). */
const SUBSTITUTES: Record<number, string> = {
  0x2010: "-", 0x2011: "-", 0x2012: "–", 0x2015: "—",
  0x2264: "<=", 0x2265: ">=", 0x2248: "~", 0x2190: "<-", 0x2192: "->",
  0x202f: "\u00a0", 0x2007: "\u00a0", 0x2008: " ", 0x200a: " ", 0x2060: "",
}; // prettier-ignore

const inRanges = (cp: number, ranges: [number, number][]) => ranges.some(([a, b]) => cp >= a && cp <= b);

type Kind = Face | "join";

function kindOf(cp: number): Kind {
  // ZWNJ/ZWJ, the dandas and no-break spaces belong to the script run they are in.
  if (cp === 0x200c || cp === 0x200d || cp === 0x964 || cp === 0x965 || cp === 0xa0 || cp === 0x202f)
    return "join";
  if ((cp >= 0x900 && cp <= 0x97f) || (cp >= 0xa8e0 && cp <= 0xa8ff) || (cp >= 0x1cd0 && cp <= 0x1cff))
    return "deva";
  if (cp >= 0x980 && cp <= 0x9ff) return "beng";
  if (cp >= 0xb80 && cp <= 0xbff) return "taml";
  if (inRanges(cp, LATIN)) return "latin";
  if (inRanges(cp, LATIN_EXT)) return "latinExt";
  return "latin";
}

const isIndic = (f: Face | undefined) => f === "deva" || f === "beng" || f === "taml";
const LOCALE_SCRIPT: Record<LetterData["locale"], Face> = { en: "deva", hi: "deva", bn: "beng", ta: "taml" };

/** One code point: what it means (l, for ActualText) and what is drawn (d), with which font. */
type Unit = { l: string; d: string; face: Face };

// ---------------------------------------------------------------------------------------------
// Two shaping bugs of fontkit 2.0.4 (what pdfkit uses), both fixed here on each parsed font:
// 1. It ignores the lookup flag useMarkFilteringSet (foliojs/fontkit PR #373, open): a lookup that
//    should skip marks outside its filtering set sees them, so contextual rules do not fire. Noto
//    Sans Bengali relies on it (201 of 243 GPOS lookups): without it ক্ত, the conjunct of রক্ত and
//    ডাক্তার, misses the advance of its headline extension, the next vowel sign overlaps it and the
//    following space vanishes.
// 2. It matches the backtrack of chaining-context rules in the wrong order (foliojs/fontkit PR
//    #372, open; the table lists backtrack glyphs nearest first, fontkit compares them farthest
//    first), so rules with two or more different backtrack glyphs never fire: দ্ধ, স্ক, ল্ক, দ্রু
//    came out too narrow, their parts overlapping. We reverse the backtrack arrays once.
// For 1, each such lookup gets its filtering set, and fontkit's glyph iterator (one class for all
// fonts, reached through an instance) skips marks outside it, as the OpenType spec says
// (IGNORE_MARKS wins; else a mark not in the set is skipped; the set replaces the mark attachment
// type). With both, the shaped widths of every Devanagari, Bengali and Tamil word in the tests and
// of ~300 conjuncts and vowel signs equal HarfBuzz's (Chromium) in both weights. If a later fontkit
// changes shape nothing is patched, and the test on these widths fails.

type FkCoverage =
  | { version: 1; glyphs: number[] }
  | { version: 2; rangeRecords: { start: number; end: number }[] };
type FkFlags = { flags?: { useMarkFilteringSet?: boolean; ignoreMarks?: boolean }; [MFS]?: Set<number> };
type FkRule = { backtrack?: unknown[] } | null;
type FkSubtable = {
  version?: number;
  lookupType?: number;
  extension?: FkSubtable;
  backtrackCoverage?: unknown[];
  chainRuleSets?: (FkRule[] | null)[];
  chainClassSet?: (FkRule[] | null)[];
};
type FkLookup = {
  lookupType: number;
  flags: FkFlags;
  markFilteringSet?: number;
  subTables: Iterable<FkSubtable>;
};
type FkIterator = { options?: FkFlags; shouldIgnore(glyph: { id: number; isMark: boolean }): boolean };
type FkFont = {
  GDEF?: { markGlyphSetsDef?: { coverage: FkCoverage[] } };
  GSUB?: { lookupList?: { toArray(): FkLookup[] } };
  GPOS?: { lookupList?: { toArray(): FkLookup[] } };
  layout(text: string): unknown;
  _layoutEngine?: {
    engine?: Record<"GSUBProcessor" | "GPOSProcessor", { glyphIterator?: FkIterator } | null>;
  };
};
const MFS = Symbol("markFilteringSet");
const fixedFonts = new WeakSet<object>();
let iteratorPatched = false;

const coverageSet = (c: FkCoverage) =>
  new Set(
    c.version === 1
      ? c.glyphs
      : c.rangeRecords.flatMap((r) => Array.from({ length: r.end - r.start + 1 }, (_, i) => r.start + i)),
  );

function fixFontkitLayout(font: FkFont) {
  if (fixedFonts.has(font)) return;
  fixedFonts.add(font);
  const sets = font.GDEF?.markGlyphSetsDef?.coverage;
  for (const [table, chaining, extension] of [
    [font.GSUB, 6, 7],
    [font.GPOS, 8, 9],
  ] as const) {
    for (const lookup of table?.lookupList?.toArray() ?? []) {
      const set = lookup.flags.flags?.useMarkFilteringSet ? sets?.[lookup.markFilteringSet ?? -1] : undefined;
      if (set) lookup.flags[MFS] = coverageSet(set);
      for (const sub of lookup.subTables) {
        const [type, st] =
          lookup.lookupType === extension ? [sub.lookupType, sub.extension] : [lookup.lookupType, sub];
        if (type !== chaining || !st) continue;
        st.backtrackCoverage?.reverse();
        for (const rules of [...(st.chainRuleSets ?? []), ...(st.chainClassSet ?? [])])
          for (const rule of rules ?? []) rule?.backtrack?.reverse();
      }
    }
  }
  if (iteratorPatched || !sets) return;
  font.layout("a"); // fontkit creates its glyph iterator on the first layout
  const engine = font._layoutEngine?.engine;
  const it = engine?.GSUBProcessor?.glyphIterator ?? engine?.GPOSProcessor?.glyphIterator;
  const proto = it && (Object.getPrototypeOf(it) as FkIterator);
  if (!proto || typeof proto.shouldIgnore !== "function") return;
  const original = proto.shouldIgnore;
  proto.shouldIgnore = function (this: FkIterator, glyph) {
    const set = this.options?.[MFS];
    if (set && glyph.isMark) return !!this.options?.flags?.ignoreMarks || !set.has(glyph.id);
    return original.call(this, glyph);
  };
  iteratorPatched = true;
}

// ---------------------------------------------------------------------------------------------
// Layout model

type Style = { size: number; bold: boolean; color: string };
type Cell = { x: number; units: Unit[]; style: Style };
/** One drawn line: its height, the distance from its top to the shared baseline, its cells. */
type Row = { h: number; base: number; cells: Cell[] };

const A4 = { w: 595.28, h: 841.89 };
const MARGIN = 50;
const TEXT_W = A4.w - 2 * MARGIN;
const BOTTOM = A4.h - MARGIN - 12; // the footer sits below this
const TEAL = "#0f766e";
const BLACK = "#000000";
const WARN = { border: "#b91c1c", fill: "#fef2f2", text: "#7f1d1d" };

const S = {
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
const leading = (style: Style, indic: boolean) => style.size * (indic ? 1.62 : 1.4);
const baseOf = (style: Style, h: number) => h - 0.42 * style.size;

class Letter {
  readonly doc: PDFKit.PDFDocument;
  y = MARGIN;
  private widths = new Map<string, number>();

  constructor(
    private readonly locale: LetterData["locale"],
    title: string,
    author: string,
  ) {
    const parsed = fonts();
    this.doc = new PDFDocument({
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

const present = (s: string | null | undefined): s is string => !!s && s.trim().length > 0;

/** Shaped width in points of one line of `text` in the letter's fonts (split into runs by script). */
export function textWidth(
  text: string,
  size: number,
  bold = false,
  locale: LetterData["locale"] = "en",
): number {
  const letter = new Letter(locale, "", "");
  return letter.width(letter.units(text), { size, bold, color: BLACK });
}

/** Renders the opinion letter. Pure: the same data gives the same pages (only the PDF's dates differ). */
export async function renderLetterPdf(data: LetterData): Promise<Buffer> {
  const t = data.text;
  const L = new Letter(data.locale, `${t.title} · ${data.productName}`, data.productName);
  const doc = L.doc;

  const done = new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    doc.on("data", (c: Buffer) => chunks.push(c));
    doc.on("end", () => resolve(Buffer.concat(chunks)));
    doc.on("error", reject);
  });

  // Header band: product name and title, white on the accent colour.
  {
    const pad = 14;
    const rows = [...L.rows(data.productName, S.product, pad), ...L.rows(t.title, S.title, pad)];
    L.block(rows, {
      pad,
      box: (top, h) => doc.save().rect(MARGIN, top, TEXT_W, h).fill(TEAL).restore(),
    });
    L.y += 16;
  }

  // Patient, report type, dates: labels in a column, values beside them.
  {
    const info: [string, string][] = [
      [t.patientLabel, data.patientName],
      [t.reportLabel, data.reportType],
      [t.submittedLabel, data.submittedOn],
      [t.reviewedLabel, data.reviewedOn],
    ];
    const labelW = Math.min(
      Math.max(...info.map(([label]) => L.width(L.units(label), S.label))) + 14,
      TEXT_W * 0.38,
    );
    const rows: Row[] = [];
    for (const [label, value] of info) {
      rows.push(...L.columns(L.rows(label, S.label, 0, labelW - 10), L.rows(value, S.value, labelW)));
    }
    L.block(rows, { together: true });
    L.y += 10;
    L.rule(TEAL);
    L.y += 14;
  }

  // The warning: framed, tinted, thick left bar and a drawn warning sign, bold dark red text.
  if (present(t.seeDoctorSoon)) {
    const pad = 10;
    const icon = 16;
    const textX = 6 + pad + icon + 10;
    L.block(L.rows(t.seeDoctorSoon, S.warning, textX, TEXT_W - textX - pad), {
      pad,
      together: true,
      box: (top, h) => {
        doc.save();
        doc.rect(MARGIN, top, TEXT_W, h).fill(WARN.fill);
        doc
          .rect(MARGIN + 0.75, top + 0.75, TEXT_W - 1.5, h - 1.5)
          .lineWidth(1.5)
          .stroke(WARN.border);
        doc.rect(MARGIN, top, 6, h).fill(WARN.border);
        // Warning sign: a triangle with an exclamation mark (shapes, not text).
        const ix = MARGIN + 6 + pad;
        const iy = top + pad + 2;
        doc
          .polygon([ix + icon / 2, iy], [ix + icon, iy + icon * 0.9], [ix, iy + icon * 0.9])
          .fill(WARN.border);
        doc.rect(ix + icon / 2 - 1, iy + icon * 0.3, 2, icon * 0.33).fill("#ffffff");
        doc.circle(ix + icon / 2, iy + icon * 0.76, 1.1).fill("#ffffff");
        doc.restore();
      },
    });
    L.y += 16;
  }

  const heading = (label: string, keepWithNext: number) => {
    L.gap(8);
    L.block(L.rows(label, S.heading), { together: true, keepWithNext });
    L.y += 3;
  };
  const section = (label: string, body: string | null) => {
    if (!present(body)) return;
    const rows = L.rows(body, S.body);
    heading(
      label,
      rows.slice(0, 2).reduce((s, r) => s + r.h, 0),
    );
    L.block(rows);
    L.y += 8;
  };
  section(t.summaryLabel, data.summary);
  section(t.findingsLabel, data.findings);
  section(t.recommendationsLabel, data.recommendations);

  if (data.followUps.length > 0) {
    const items = data.followUps.map((f) => {
      const q = L.rows([t.questionLabel, f.askedOn].filter(present).join(" · "), S.subhead);
      const a = L.rows([t.answerLabel, f.answeredOn ?? ""].filter(present).join(" · "), S.subhead);
      return {
        q,
        question: L.rows(f.question, S.body, 12),
        a,
        answer: L.rows(f.answer ?? t.notAnsweredYet, S.body, 12),
      };
    });
    const first = items[0];
    heading(t.followUpsLabel, first.q.length > 0 ? first.q[0].h + (first.question[0]?.h ?? 0) : 0);
    for (const it of items) {
      const head = [...it.q, ...it.question];
      L.block(head, { together: true, keepWithNext: (it.a[0]?.h ?? 0) + (it.answer[0]?.h ?? 0) });
      L.y += 3;
      L.block([...it.a, ...it.answer], { together: true });
      L.y += 10;
    }
  }

  // Signature: who reviewed, registration, specialties, date; kept on one page, teal bar on the left.
  const signature = (expert: LetterData["expert"], reviewedOn: string) => {
    L.gap(10);
    const x = 12;
    const reg = [t.registrationLabel, expert.registrationNumber].filter(present).join(" ");
    const rows = [
      ...L.rows(t.signedByLabel, S.label, x),
      ...L.rows(expert.name, S.name, x),
      ...L.rows([reg, expert.registrationCouncil].filter(present).join(" · "), S.body, x),
      ...(present(expert.specialties) ? L.rows(expert.specialties, S.body, x) : []),
      ...L.rows(`${t.reviewedLabel}: ${reviewedOn}`, S.body, x),
    ];
    L.block(rows, {
      pad: 4,
      together: true,
      box: (top, h) => doc.save().rect(MARGIN, top, 3, h).fill(TEAL).restore(),
    });
    L.y += 16;
  };
  signature(data.expert, data.reviewedOn);

  // Each second opinion: a ruled-off part of its own, then its signer.
  for (const second of data.secondOpinions ?? []) {
    L.rule(TEAL);
    L.y += 6;
    L.block(L.rows(second.heading, S.heading), { together: true, keepWithNext: 40 });
    L.y += 3;
    section(second.agreementLabel, second.agreement);
    section(t.summaryLabel, second.summary);
    section(t.findingsLabel, second.findings);
    section(t.recommendationsLabel, second.recommendations);
    signature(second.expert, second.reviewedOn);
  }

  // Verification code and where to check it, framed in the accent colour.
  {
    const pad = 10;
    const rows = [
      ...L.rows(t.verificationLabel, S.subhead, pad, TEXT_W - 2 * pad),
      ...L.rows(data.verificationCode, S.code, pad, TEXT_W - 2 * pad),
      ...L.rows(t.verifyHint, S.small, pad, TEXT_W - 2 * pad),
    ];
    L.block(rows, {
      pad,
      together: true,
      box: (top, h) => doc.save().rect(MARGIN, top, TEXT_W, h).lineWidth(1).stroke(TEAL).restore(),
    });
    L.y += 16;
  }

  // Disclaimer, small, after a thin rule.
  {
    const rows = L.rows(t.disclaimer, S.disclaimer);
    L.keep(
      8 +
        Math.min(
          rows.reduce((s, r) => s + r.h, 0),
          BOTTOM - MARGIN - 8,
        ),
    );
    L.rule("#9ca3af", 0.5);
    L.y += 6;
    L.block(rows);
  }

  // Footer on every page: product name and verification code, page n / total.
  const range = doc.bufferedPageRange();
  const total = range.count;
  for (let i = range.start; i < range.start + total; i++) {
    doc.switchToPage(i);
    L.y = A4.h - MARGIN + 4;
    L.rule("#9ca3af", 0.5);
    const left = L.rows(`${data.productName} · ${data.verificationCode}`, S.footer, 0, TEXT_W * 0.7)[0];
    const pageNo = L.units(`${i - range.start + 1} / ${total}`);
    const right: Row = {
      h: leading(S.footer, false),
      base: baseOf(S.footer, leading(S.footer, false)),
      cells: [{ x: TEXT_W - L.width(pageNo, S.footer), units: pageNo, style: S.footer }],
    };
    const row = L.columns(left ? [left] : [], [right])[0];
    L.drawRow(row, L.y + 3); // inside the bottom margin: no page logic
  }

  doc.end();
  return done;
}
