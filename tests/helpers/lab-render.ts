import PDFDocument from "pdfkit";
import { fontName, fonts } from "~/domain/consultation/letter-fonts.server";
import type { Row } from "./lab-panels";
import type { LayoutSpec, Section } from "./lab-layouts";

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
  if (r.word || !r.flag || spec.columns.includes("flag")) return r.value;
  switch (spec.flags ?? "after") {
    case "before":
      return `${r.flag} ${r.value}`;
    case "arrow":
      return `${r.value} ${r.flag === "H" ? "↑" : "↓"}`;
    case "star":
      return `${r.value} *`;
    case "paren":
      return `${r.value} (${r.flag})`;
    default:
      return `${r.value} ${r.flag}`;
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

/** Draws one section's rows in a column block; returns the y below it. */
function drawSection(doc: Doc, spec: LayoutSpec, s: Section, x0: number, w: number, y0: number): number {
  const lh = spec.size * 2;
  const cols = spec.at.map((f) => x0 + w * f);
  let y = y0;
  const title = spec.upper ? s.title.toUpperCase() : s.title;
  doc.fontSize(spec.size + 0.5);
  mixed(doc, spec, spec.bilingualHeads && s.hindi ? `${s.hindi} / ${title}` : title, x0, y, true);
  y += lh;
  doc.fontSize(spec.size);
  for (const r of s.rows) {
    const cells: Record<string, string> = {
      name: nameOf(spec, r),
      method: r.method ?? "",
      value: flagged(spec, r),
      flag: r.word ? "" : (r.flag ?? ""),
      status: spec.flags === "arrow" && r.flag && !r.status ? "" : (r.status ?? ""),
      unit: r.unit,
      range: rangeOf(spec, Array.isArray(r.range) ? r.range[0]! : r.range),
    };
    spec.columns.forEach((c, i) => {
      const cy = r.below && c !== "name" ? y + lh : y;
      if (cells[c]) mixed(doc, spec, cells[c], cols[i]!, cy);
    });
    if (r.below) y += lh;
    const more = Array.isArray(r.range) ? r.range.slice(1) : [];
    const ri = spec.columns.indexOf("range");
    for (const part of more) {
      y += lh * 0.75;
      mixed(doc, spec, part, cols[ri]!, y);
    }
    y += lh;
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
  doc.fontSize(15);
  mixed(doc, spec, spec.lab, 40, 36, true);
  doc.fontSize(8);
  spec.sub.forEach((line, i) => mixed(doc, spec, line, 40, 56 + 10 * i));
  let y = 62 + 10 * spec.sub.length;
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
  doc.save();
  // Across the table, as a lab's name stamped over the results.
  doc.rotate(-25, { origin: [297, 250] });
  doc.fillColor("#d9d9d9").font(latin(spec, true)).fontSize(48);
  doc.text(spec.watermark, 40, 225, { lineBreak: false });
  doc.restore();
  doc.fillColor("black");
}

/** The PDF of a layout, with a text layer. `style` picks how its dates are printed. */
export function specPdf(spec: LayoutSpec, style: number): Promise<Buffer> {
  const f = fonts();
  const doc = new PDFDocument({ size: "A4", margin: 40 });
  for (const [name, font] of f) doc.registerFont(name, font as unknown as Buffer);
  const chunks: Buffer[] = [];
  doc.on("data", (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((r) => doc.on("end", () => r(Buffer.concat(chunks))));
  const pages = spec.pages ?? 1;
  const perPage = pages === 1 ? [spec.sections] : [spec.sections.slice(0, 2), spec.sections.slice(2)];
  perPage.forEach((sections, p) => {
    if (p > 0) doc.addPage();
    watermark(doc, spec);
    let y = letterhead(doc, spec, p + 1, pages, style);
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
