import PDFDocument from "pdfkit";
import { fontName, fonts } from "~/domain/consultation/letter-fonts.server";
import type { Row } from "./lab-panels";
import type { Column, LayoutSpec, Section } from "./lab-layouts";

/**
 * Draws a layout of the corpus (lab-layouts.ts) as a PDF with a text layer, the way lab
 * software prints a report: letterhead, patient block with its dates, column heads, sections of
 * rows, notes, footer (decision 0089).
 */

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** The header's date lines for a layout, in one of the ways lab software prints them. */
export function dateLines(iso: string, style: number): string[] {
  const [y, m, d] = iso.split("-").map(Number) as [number, number, number];
  const dd = String(d).padStart(2, "0");
  const mm = String(m).padStart(2, "0");
  const next = String(d >= 28 ? d : d + 1).padStart(2, "0");
  const mon = MONTHS[m - 1]!;
  switch (style % 8) {
    case 0:
      return [`Collected On : ${dd}/${mm}/${y} 08:42 AM`, `Reported On : ${dd}/${mm}/${y} 04:15 PM`];
    case 1:
      return [
        `Registered : ${dd}-${mon}-${y} 08:55`,
        `Sample Collected : ${dd}-${mon}-${y} 09:10`,
        `Report Date : ${next}-${mon}-${y}`,
      ];
    case 2:
      return [`Date of Collection : ${dd}.${mm}.${y}`, `Date of Report : ${next}.${mm}.${y}`];
    case 3:
      return [
        `Coll. Date : ${dd}/${mm}/${y} 07:30`,
        `Rep. Date : ${next}/${mm}/${y} 11:02`,
        `Printed On : 02/01/${y + 1}`,
      ];
    case 4:
      return [`Sample Date : ${y}-${mm}-${dd}`, `Lab No. : 25${mm}${dd}0417`];
    case 5:
      return [`Received On : ${dd} ${mon} ${y} 10:05`, `Reported On : ${dd} ${mon} ${y} 18:30`];
    case 6:
      return [`Report Date : ${mon} ${d}, ${y}`, "Sample Type : Serum"];
    default:
      return [`Collection Date/Time : ${dd}/${mm}/${y} / 08:42`, `DOB : 14/05/1971`];
  }
}

type Doc = InstanceType<typeof PDFDocument>;
const DEVA = /[\u0900-\u097F]/;

function latin(spec: LayoutSpec, bold = false): string {
  if (spec.font === "Noto") return fontName("latin", bold ? 700 : 400);
  if (spec.font === "Times-Roman") return bold ? "Times-Bold" : "Times-Roman";
  if (spec.font === "Courier") return bold ? "Courier-Bold" : "Courier";
  return bold ? "Helvetica-Bold" : "Helvetica";
}

/** Text that may mix Devanagari and Latin: each run in its own font, left to right. */
function mixed(doc: Doc, spec: LayoutSpec, text: string, x: number, y: number, bold = false): void {
  const runs = text
    .split(/([\u0900-\u097F][\u0900-\u097F\s]*[\u0900-\u097F]|[\u0900-\u097F]|[↑↓])/u)
    .filter(Boolean);
  let at = x;
  for (const run of runs) {
    // Arrows are not in the PDF standard fonts' encoding: Noto draws them.
    const font = DEVA.test(run)
      ? fontName("deva", bold ? 700 : 400)
      : /[↑↓]/.test(run)
        ? fontName("latin", 400)
        : latin(spec, bold);
    doc.font(font);
    doc.text(run, at, y, { lineBreak: false });
    at += doc.widthOfString(run);
  }
}

const flagged = (spec: LayoutSpec, r: Row): string => {
  if (r.word || !r.flag || spec.columns.includes("flag") || spec.flags === "none") return r.value;
  const word = spec.flagWords?.[r.flag] ?? r.flag;
  switch (spec.flags ?? "after") {
    case "before":
      return `${word} ${r.value}`;
    case "arrow":
      return `${r.value} ${r.flag === "H" ? "↑" : "↓"}`;
    case "star":
      return `${r.value} *`;
    case "paren":
      return `${r.value} (${word})`;
    default:
      return `${r.value} ${word}`;
  }
};

function nameOf(spec: LayoutSpec, r: Row): string {
  let name = spec.upper ? r.name.toUpperCase() : r.name;
  if (spec.colon) name = `${name} :`;
  if (spec.hindi && r.hindi) name = spec.hindi === "before" ? `${r.hindi} / ${name}` : `${name} / ${r.hindi}`;
  return name;
}

function rangeOf(spec: LayoutSpec, range: string): string {
  if (!range || !spec.brackets) return range;
  return `${spec.brackets[0]}${range}${spec.brackets[1]}`;
}

/** What each column of a row prints on the row's own line. */
function cellsOf(spec: LayoutSpec, r: Row): Record<Column, string> {
  return {
    name: nameOf(spec, r),
    method: spec.methodLine ? "" : (r.method ?? ""),
    value: flagged(spec, r),
    flag: r.word || !r.flag ? "" : (spec.flagWords?.[r.flag] ?? r.flag),
    status: spec.flags === "arrow" && r.flag && !r.status ? "" : (r.status ?? ""),
    unit: r.unit,
    range: rangeOf(spec, Array.isArray(r.range) ? r.range[0]! : r.range),
  };
}

/** The lines a row takes below its own: the value under a long name, range parts, a method line. */
export function extraLines(spec: LayoutSpec, r: Row): number {
  const more = Array.isArray(r.range) ? r.range.length - 1 : 0;
  const method = spec.methodLine && r.method ? 1 : 0;
  return (r.below ? 1 : 0) + Math.max(more, method) * 0.75;
}

/** The smallest type lab software prints a result table in; below it no page of the corpus goes. */
const SMALLEST_TYPE = 7;

/** A page's width for its table: half the page's 500 pt, less a gutter, when it has two columns. */
const tableWidth = (spec: LayoutSpec) => (spec.twoColumn ? 250 : 500);

/**
 * Column positions from what the columns hold (a layout without `at`): each column as wide as its
 * widest cell or head, the space left shared between them; the type made smaller until the columns
 * stand at least 10 pt apart. Null when they cannot at SMALLEST_TYPE: the cells would run into each
 * other, which no lab's software prints.
 */
function placeColumns(doc: Doc, spec: LayoutSpec): LayoutSpec | null {
  if (spec.at.length) return spec;
  const w = tableWidth(spec);
  for (let size = spec.size; size >= SMALLEST_TYPE; size -= 0.5) {
    doc.fontSize(size);
    const widths = spec.columns.map((c, i) => {
      doc.font(latin(spec, true));
      let m = doc.widthOfString(spec.heads[i] ?? "");
      doc.font(latin(spec));
      for (const r of spec.sections.flatMap((s) => s.rows)) {
        if (c === "name" && r.below) continue;
        const parts = c === "range" && Array.isArray(r.range) ? r.range.map((p) => rangeOf(spec, p)) : [];
        for (const t of [cellsOf(spec, r)[c], ...parts]) m = Math.max(m, doc.widthOfString(t));
      }
      return m;
    });
    const gap = Math.min(40, (w - widths.reduce((a, b) => a + b, 0)) / Math.max(1, widths.length - 1));
    if (gap >= 10) {
      let x = 0;
      const at = widths.map((wd) => {
        const here = x / w;
        x += wd + gap;
        return here;
      });
      return { ...spec, size, at };
    }
  }
  return null;
}

function fitColumns(doc: Doc, spec: LayoutSpec): LayoutSpec {
  const placed = placeColumns(doc, spec);
  if (!placed)
    throw new Error(`${spec.lab}: its columns do not fit ${tableWidth(spec)} pt at ${SMALLEST_TYPE} pt`);
  return placed;
}

/** Whether a layout's columns fit its table's width at a type lab software prints (layouts drawn from seeds). */
export function columnsFit(spec: LayoutSpec): boolean {
  return placeColumns(newDoc(), spec) !== null;
}

/** An A4 document with the corpus's fonts registered. */
function newDoc(): Doc {
  const doc = new PDFDocument({ size: "A4", margin: 40 });
  for (const [name, font] of fonts()) doc.registerFont(name, font as unknown as Buffer);
  return doc;
}

/** Draws one section's rows in a column block; returns the y below it. */
function drawSection(doc: Doc, spec: LayoutSpec, s: Section, x0: number, w: number, y0: number): number {
  const lh = spec.size * 2;
  const cols = spec.at.map((f) => x0 + w * f);
  let y = y0;
  if (s.title) {
    const title = spec.upper ? s.title.toUpperCase() : s.title;
    doc.fontSize(spec.size + 0.5);
    mixed(doc, spec, spec.bilingualHeads && s.hindi ? `${s.hindi} / ${title}` : title, x0, y, true);
    y += lh;
  }
  doc.fontSize(spec.size);
  for (const r of s.rows) {
    const cells = cellsOf(spec, r);
    spec.columns.forEach((c, i) => {
      const cy = r.below && c !== "name" ? y + lh : y;
      if (cells[c]) mixed(doc, spec, cells[c], cols[i]!, cy);
    });
    if (r.below) y += lh;
    const more = Array.isArray(r.range) ? r.range.slice(1) : [];
    const ri = spec.columns.indexOf("range");
    more.forEach((part, i) => mixed(doc, spec, rangeOf(spec, part), cols[ri]!, y + lh * 0.75 * (i + 1)));
    if (spec.methodLine && r.method) {
      doc.fontSize(spec.size - 1);
      mixed(doc, spec, spec.methodLine.replace("{}", r.method), cols[0]!, y + lh * 0.75);
      doc.fontSize(spec.size);
    }
    y += lh * (1 + extraLines(spec, r) - (r.below ? 1 : 0));
  }
  if (s.notes?.length) {
    doc.fontSize(spec.size - 1);
    for (const n of s.notes) {
      mixed(doc, spec, n, x0, y);
      y += lh * 0.8;
    }
    doc.fontSize(spec.size);
    y += lh * 0.4;
  }
  return y + lh * 0.3;
}

function letterhead(doc: Doc, spec: LayoutSpec, page: number, pages: number, style: number): number {
  doc.fillColor("black");
  const size = spec.letterhead?.size ?? 15;
  // Centred lines start where their width puts them in the middle of the page.
  const x = (text: string, bold: boolean) =>
    spec.letterhead?.centre ? (595 - doc.font(latin(spec, bold)).widthOfString(text)) / 2 : 40;
  doc.fontSize(size);
  mixed(doc, spec, spec.lab, x(spec.lab, true), 36, true);
  doc.fontSize(8);
  spec.sub.forEach((line, i) => mixed(doc, spec, line, x(line, false), 41 + size + 10 * i));
  let y = 47 + size + 10 * spec.sub.length;
  doc.moveTo(40, y).lineTo(555, y).lineWidth(0.7).stroke();
  y += 8;
  doc.fontSize(8.5);
  const dates = dateLines(spec.sampleDate, style);
  const left = spec.patient.lines;
  for (let i = 0; i < Math.max(left.length, dates.length); i++) {
    if (left[i]) mixed(doc, spec, left[i]!, 40, y);
    if (dates[i]) mixed(doc, spec, dates[i]!, 330, y);
    y += 12;
  }
  if (pages > 1) mixed(doc, spec, `Page ${page} of ${pages}`, 480, 36);
  y += 4;
  doc.moveTo(40, y).lineTo(555, y).lineWidth(0.7).stroke();
  return y + 10;
}

function heads(doc: Doc, spec: LayoutSpec, x0: number, w: number, y: number): number {
  doc.fontSize(spec.size);
  const hindi = ["जाँच", "परिणाम", "इकाई", "संदर्भ सीमा", "", ""];
  spec.heads.forEach((h, i) => {
    const text = spec.bilingualHeads && hindi[i] ? `${hindi[i]} / ${h}` : h;
    if (text) mixed(doc, spec, text, x0 + w * spec.at[i]!, y, true);
  });
  return y + spec.size * 2.2;
}

function watermark(doc: Doc, spec: LayoutSpec): void {
  if (!spec.watermark) return;
  const { angle, grey, size } = spec.watermarkStyle ?? { angle: -25, grey: "#d9d9d9", size: 48 };
  doc.save();
  // Across the table, as a lab's name stamped over the results.
  doc.rotate(angle, { origin: [297, 250] });
  doc.fillColor(grey).font(latin(spec, true)).fontSize(size);
  doc.text(spec.watermark, 40, 225, { lineBreak: false });
  doc.restore();
  doc.fillColor("black");
}

/**
 * The sections each page holds: one page; two, the first two sections on the first (`pages: 2`);
 * or two with the table broken after `breakAt` rows, the section it breaks continued on the next.
 */
export function pagesOf(spec: LayoutSpec): Section[][] {
  if (spec.breakAt !== undefined) {
    const first: Section[] = [];
    const second: Section[] = [];
    let left = spec.breakAt;
    for (const s of spec.sections) {
      const here = s.rows.slice(0, Math.max(0, left));
      const there = s.rows.slice(here.length);
      left -= here.length;
      if (here.length) first.push({ ...s, rows: here, notes: there.length ? undefined : s.notes });
      if (there.length) {
        const title = !here.length ? s.title : spec.contd && s.title ? `${s.title} ${spec.contd}` : "";
        second.push({ ...s, title, rows: there });
      }
    }
    return [first, second];
  }
  if ((spec.pages ?? 1) === 1) return [spec.sections];
  return [spec.sections.slice(0, 2), spec.sections.slice(2)];
}

/** The PDF of a layout, with a text layer. `style` picks how its dates are printed. */
export function specPdf(layout: LayoutSpec, style: number): Promise<Buffer> {
  const doc = newDoc();
  const chunks: Buffer[] = [];
  doc.on("data", (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((r) => doc.on("end", () => r(Buffer.concat(chunks))));
  const perPage = pagesOf(layout);
  const pages = perPage.length;
  const spec = fitColumns(doc, layout);
  perPage.forEach((sections, p) => {
    if (p > 0) doc.addPage();
    watermark(doc, spec);
    let y =
      p > 0 && spec.breakAt !== undefined && !spec.repeatLetterhead
        ? 50
        : letterhead(doc, spec, p + 1, pages, style);
    if (spec.twoColumn) {
      const w = 250;
      let yl = heads(doc, spec, 40, w, y);
      let yr = heads(doc, spec, 305, w, y);
      yl = drawSection(doc, spec, sections[0]!, 40, w, yl);
      if (sections[1]) yr = drawSection(doc, spec, sections[1], 305, w, yr);
      y = Math.max(yl, yr);
    } else {
      y = heads(doc, spec, 40, 500, y);
      for (const s of sections) y = drawSection(doc, spec, s, 40, 500, y);
    }
    // A layout placed by its content must leave the footer its place (the seeded ones break pages).
    if (!layout.at.length && y > 735)
      throw new Error(`${spec.lab}: page ${p + 1} runs to y=${Math.round(y)}`);
    if (spec.sideWords) {
      doc.fontSize(7).font(latin(spec, true)).fillColor("#444444");
      spec.sideWords.forEach((w, i) => doc.text(w, 560, 170 + i * spec.size * 4, { lineBreak: false }));
      doc.fillColor("black");
    }
    doc.fontSize(8);
    const footer =
      p + 1 < pages ? (spec.footer ?? []) : ["*** End of Report ***", "Dr. S. Iyer, MD (Pathology)"];
    footer.forEach((line, i) => mixed(doc, spec, line, 40, Math.max(y + 10, 740) + 11 * i));
  });
  doc.end();
  return done;
}
