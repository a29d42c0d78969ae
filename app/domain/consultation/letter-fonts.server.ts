// The opinion letter's fonts and scripts (decision 0012): which font draws each code point, the
// Noto fonts read and parsed once, and the fixes to fontkit's shaping they need. See
// letter-pdf.server.ts for the letter itself.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { inflateSync } from "node:zlib";

/**
 * pdfkit (with fontkit and its tables) is loaded when the first letter is drawn, not when the server
 * starts: most processes never draw one (decision 0111).
 */
let pdfkitClass: typeof import("pdfkit") | undefined;
export function PdfKit(): typeof import("pdfkit") {
  return (pdfkitClass ??= createRequire(import.meta.url)("pdfkit") as typeof import("pdfkit"));
}

/** The languages a letter is written in. */
export type LetterLocale = "en" | "hi" | "bn" | "ta";

export type Face = "latin" | "latinExt" | "deva" | "beng" | "taml";
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
export function fonts(): Map<string, FkFont> {
  if (!parsedFonts) {
    const require = createRequire(import.meta.url);
    const boot = new (PdfKit())({ autoFirstPage: false });
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

export const fontName = (face: Face, w: Weight) => `${face}-${w}`;

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
export const SUBSTITUTES: Record<number, string> = {
  0x2010: "-", 0x2011: "-", 0x2012: "–", 0x2015: "—",
  0x2264: "<=", 0x2265: ">=", 0x2248: "~", 0x2190: "<-", 0x2192: "->",
  0x202f: "\u00a0", 0x2007: "\u00a0", 0x2008: " ", 0x200a: " ", 0x2060: "",
}; // prettier-ignore

const inRanges = (cp: number, ranges: [number, number][]) => ranges.some(([a, b]) => cp >= a && cp <= b);

export type Kind = Face | "join";

export function kindOf(cp: number): Kind {
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

export const isIndic = (f: Face | undefined) => f === "deva" || f === "beng" || f === "taml";
export const LOCALE_SCRIPT: Record<LetterLocale, Face> = { en: "deva", hi: "deva", bn: "beng", ta: "taml" };

/** One code point: what it means (l, for ActualText) and what is drawn (d), with which font. */
export type Unit = { l: string; d: string; face: Face };

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
