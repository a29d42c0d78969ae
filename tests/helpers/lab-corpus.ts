import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import jpeg from "jpeg-js";
import { PNG } from "pngjs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import PDFDocument from "pdfkit";
import { PHOTO_MAX_SIDE } from "~/components/reports/photo";
import { fontName, fonts } from "~/domain/consultation/letter-fonts.server";
import { SPECS } from "./lab-layouts";
import { specPdf } from "./lab-render";

/**
 * The lab-report corpus, made in code (decisions 0082, 0089): the first four layouts (one table,
 * two columns, a flag column, a Hindi-English header) and 31 more modelled on how Indian lab
 * software and lab chains print (lab-layouts.ts), each as a PDF with a text layer, a scanned PDF
 * (the page rendered, degraded, embedded as an image only), a phone photo (grey, uneven light,
 * JPEG) and that photo as the upload screen sends it. The truth of every value is known. These
 * 36 are the fixed floor set; layouts drawn from a seed (lab-seeded.ts, decision 0107) are made,
 * scanned and photographed with the same functions (`scanOf`, `photoOf`, `sentOf`).
 */
export type Judgement = "below" | "within" | "above" | "unknown";
export type Truth = {
  analyte: string;
  printed: string;
  value: string;
  unit: string;
  /** The range as printed, whole (a range over several lines joined with spaces). */
  range: string;
  /** The unit, where it is printed inside the range (no unit column; decision 0107). */
  rangeUnit?: string;
  flag?: "H" | "L";
  /** What the part of the printed range that applies to the patient says of the value. */
  judgement: Judgement;
  /** A word result ("Non Reactive"), kept as printed. */
  word?: true;
};
const CLASSIC = ["table", "two-column", "flag-column", "bilingual"] as const;
export type Layout = (typeof CLASSIC)[number] | keyof typeof SPECS;
export const LAYOUTS: Layout[] = [...CLASSIC, ...(Object.keys(SPECS) as (keyof typeof SPECS)[])];
/** The four layouts the reader was first built on. */
export const FIRST_FOUR: Layout[] = [...CLASSIC];
const isClassic = (l: Layout): l is (typeof CLASSIC)[number] => (CLASSIC as readonly string[]).includes(l);
/** A text-layer PDF, a scanned PDF, a phone photo (JPEG, 220 dpi), or that photo as the upload screen sends it. */
export type Kind = "text" | "scan" | "photo" | "sent";

const PANELS: Omit<Truth, "judgement">[][] = [
  [
    {
      analyte: "Haemoglobin",
      printed: "Haemoglobin",
      value: "9.8",
      unit: "g/dL",
      range: "12.0 - 15.5",
      flag: "L",
    },
    { analyte: "Haematocrit", printed: "PCV", value: "31.2", unit: "%", range: "36 - 46", flag: "L" },
    {
      analyte: "Red blood cell count",
      printed: "RBC Count",
      value: "3.90",
      unit: "mill/cumm",
      range: "3.8 - 4.8",
    },
    {
      analyte: "White blood cell count",
      printed: "Total WBC Count",
      value: "7800",
      unit: "cells/cumm",
      range: "4000 - 11000",
    },
    {
      analyte: "Platelet count",
      printed: "Platelet Count",
      value: "2.45",
      unit: "lakhs/cumm",
      range: "1.5 - 4.1",
    },
    { analyte: "MCV", printed: "MCV", value: "80.0", unit: "fL", range: "83 - 101", flag: "L" },
    { analyte: "MCH", printed: "MCH", value: "25.1", unit: "pg", range: "27 - 32", flag: "L" },
    { analyte: "ESR", printed: "ESR", value: "28", unit: "mm/hr", range: "0 - 20", flag: "H" },
  ],
  [
    {
      analyte: "Glucose fasting",
      printed: "Glucose Fasting",
      value: "126",
      unit: "mg/dL",
      range: "70 - 100",
      flag: "H",
    },
    { analyte: "HbA1c", printed: "HbA1c", value: "7.2", unit: "%", range: "4.0 - 5.6", flag: "H" },
    {
      analyte: "Total cholesterol",
      printed: "Total Cholesterol",
      value: "212",
      unit: "mg/dL",
      range: "< 200",
      flag: "H",
    },
    {
      analyte: "Triglycerides",
      printed: "Triglycerides",
      value: "168",
      unit: "mg/dL",
      range: "< 150",
      flag: "H",
    },
    { analyte: "HDL cholesterol", printed: "HDL Cholesterol", value: "42", unit: "mg/dL", range: "40 - 60" },
    { analyte: "Creatinine", printed: "S. Creatinine", value: "0.9", unit: "mg/dL", range: "0.6 - 1.1" },
    { analyte: "Urea", printed: "Blood Urea", value: "24", unit: "mg/dL", range: "15 - 40" },
    { analyte: "Uric acid", printed: "Uric Acid", value: "5.1", unit: "mg/dL", range: "2.6 - 6.0" },
  ],
  [
    { analyte: "TSH", printed: "TSH", value: "5.82", unit: "uIU/mL", range: "0.35 - 4.94", flag: "H" },
    { analyte: "Free T4", printed: "Free T4", value: "1.02", unit: "ng/dL", range: "0.70 - 1.48" },
    {
      analyte: "Vitamin D (25-OH)",
      printed: "Vitamin D",
      value: "14.6",
      unit: "ng/mL",
      range: "30 - 100",
      flag: "L",
    },
    { analyte: "Vitamin B12", printed: "Vitamin B12", value: "310", unit: "pg/mL", range: "211 - 911" },
    { analyte: "Sodium", printed: "Sodium", value: "138", unit: "mmol/L", range: "136 - 145" },
    { analyte: "Potassium", printed: "Potassium", value: "4.2", unit: "mmol/L", range: "3.5 - 5.1" },
    { analyte: "ALT (SGPT)", printed: "SGPT", value: "34", unit: "U/L", range: "0 - 35" },
    { analyte: "AST (SGOT)", printed: "SGOT", value: "29", unit: "U/L", range: "0 - 35" },
  ],
];

/** A number as printed ("7,800", "07", "1,50,000"). */
const num = (t: string) => Number(t.replace(/,/g, ""));

/**
 * What a range says of a value, read independently of the reader: a plain "a - b", "< b",
 * "> a", "Up to b", "Upto b", "Less than b", "More than a", "Desirable: < b".
 */
export function judge(
  value: string,
  range: string,
  applies?: [number | null, number | null] | null,
): Judgement {
  if (applies === null) return "unknown";
  let lo: number | null = null;
  let hi: number | null = null;
  if (applies) [lo, hi] = applies;
  else {
    const t = range.replace(/^[A-Za-z ]+:\s*/, "").trim();
    const m = /^([\d.,]+)\s*-\s*([\d.,]+)$/.exec(t);
    const below = /^(?:<=?|up ?to|less than)\s*([\d.,]+)$/i.exec(t);
    const above = /^(?:>=?|more than)\s*([\d.,]+)$/i.exec(t);
    if (m) [lo, hi] = [num(m[1]!), num(m[2]!)];
    else if (below) hi = num(below[1]!);
    else if (above) lo = num(above[1]!);
    else return "unknown";
  }
  const v = num(value);
  return hi !== null && v > hi ? "above" : lo !== null && v < lo ? "below" : "within";
}

const withJudgement = (t: Omit<Truth, "judgement">): Truth => ({ ...t, judgement: judge(t.value, t.range) });

const sameWords = (a: string, b: string) =>
  a
    .toLowerCase()
    .replace(/[\s-]+/g, " ")
    .trim() ===
  b
    .toLowerCase()
    .replace(/[\s-]+/g, " ")
    .trim();

/** The values printed on a layout (`firstPage`: on its first page only, what a photo shows). */
export function truthOf(layout: Layout, opts: { firstPage?: boolean } = {}): Truth[] {
  if (isClassic(layout)) return PANELS[LAYOUTS.indexOf(layout) % PANELS.length]!.map(withJudgement);
  const spec = SPECS[layout]!;
  const sections = opts.firstPage && spec.pages === 2 ? spec.sections.slice(0, 2) : spec.sections;
  return sections.flatMap((s) =>
    s.rows.map((r) => ({
      analyte: r.a,
      printed: r.name,
      value: r.value,
      unit: r.unit,
      range: Array.isArray(r.range) ? r.range.join(" ") : r.range,
      ...(r.flag ? { flag: r.flag } : {}),
      ...(r.word ? { word: true as const } : {}),
      // A word result printed as its own reference ("Nil" beside "Nil") is within it (decision 0098).
      judgement: r.word
        ? sameWords(r.value, Array.isArray(r.range) ? r.range.join(" ") : r.range)
          ? "within"
          : "unknown"
        : judge(r.value, Array.isArray(r.range) ? r.range[0]! : r.range, r.applies),
    })),
  );
}

/** What the platform has recorded of the layout's patient (the reader chooses a range's part by it). */
export function patientOf(layout: Layout): { sex: "female" | "male" | null; age: number | null } {
  if (isClassic(layout)) return { sex: "female", age: 54 };
  const p = SPECS[layout]!.patient;
  return { sex: p.sex, age: p.age };
}

/** The sample's date the layout's header prints (ISO), or null when it prints none. */
export function sampleDateOf(layout: Layout): string | null {
  return isClassic(layout) ? null : SPECS[layout]!.sampleDate;
}

/** A PDF with a text layer in one of the layouts. */
export function labPdf(layout: Layout): Promise<Buffer> {
  if (!isClassic(layout)) return specPdf(SPECS[layout]!, LAYOUTS.indexOf(layout));
  return classicPdf(layout);
}

function classicPdf(layout: (typeof CLASSIC)[number]): Promise<Buffer> {
  const f = fonts();
  const doc = new PDFDocument({
    size: "A4",
    margin: 50,
    font: f.get(fontName("latin", 400)) as unknown as string,
  });
  for (const [name, font] of f) doc.registerFont(name, font as unknown as Buffer);
  const chunks: Buffer[] = [];
  doc.on("data", (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((r) => doc.on("end", () => r(Buffer.concat(chunks))));
  doc.font(fontName("latin", 700)).fontSize(16).text("City Diagnostics Laboratory", 50, 50);
  if (layout === "bilingual")
    doc
      .font(fontName("deva", 400))
      .fontSize(12)
      .text("सिटी डायग्नोस्टिक्स प्रयोगशाला / जाँच रिपोर्ट", 50, 72);
  doc
    .font(fontName("latin", 400))
    .fontSize(10)
    .text("Patient: Asha Devi   Age/Sex: 54 / F   Sample: Blood", 50, 95);
  const rows = truthOf(layout);
  const head =
    layout === "flag-column"
      ? ["Test", "Result", "Flag", "Unit", "Reference Range"]
      : ["Test", "Result", "Unit", "Reference Range"];
  const colsFor = (x0: number, w: number) =>
    layout === "flag-column"
      ? [x0, x0 + w * 0.36, x0 + w * 0.5, x0 + w * 0.6, x0 + w * 0.78]
      : [x0, x0 + w * 0.4, x0 + w * 0.58, x0 + w * 0.78];
  const draw = (list: Omit<Truth, "judgement">[], x0: number, w: number, y0: number) => {
    const cols = colsFor(x0, w);
    doc.font(fontName("latin", 700)).fontSize(layout === "two-column" ? 8 : 10);
    head.forEach((h, i) => doc.text(h, cols[i], y0, { lineBreak: false }));
    doc.font(fontName("latin", 400));
    list.forEach((t, j) => {
      const y = y0 + 22 * (j + 1);
      const cells =
        layout === "flag-column"
          ? [t.printed, t.value, t.flag ?? "", t.unit, t.range]
          : [t.printed, t.flag ? `${t.value} ${t.flag}` : t.value, t.unit, t.range];
      cells.forEach((c, i) => doc.text(c, cols[i], y, { lineBreak: false }));
    });
  };
  if (layout === "two-column") {
    draw(rows.slice(0, 4), 50, 240, 130);
    draw(rows.slice(4), 305, 240, 130);
  } else draw(rows, 50, 495, 130);
  doc.fontSize(9).text("Interpretation: values to be correlated clinically. End of report.", 50, 400);
  doc.end();
  return done;
}

function tool(cmd: string, args: string[], input?: Buffer): Buffer {
  return execFileSync(cmd, args, { input, maxBuffer: 64 * 1024 * 1024 });
}

/** The pages as images, as a scanner or a phone would give them: grey (ImageMagick-free: pdftoppm). */
function pageImages(pdf: Buffer, dpi: number): Buffer[] {
  const dir = mkdtempSync(join(tmpdir(), "labcorpus-"));
  try {
    const p = join(dir, "in.pdf");
    writeFileSync(p, pdf);
    tool("pdftoppm", ["-r", String(dpi), "-gray", "-png", p, join(dir, "page")]);
    return readdirSync(dir)
      .filter((f) => f.endsWith(".png"))
      .sort()
      .map((f) => readFileSync(join(dir, f)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The first page as an image (what a phone photo shows). */
const pageImage = (pdf: Buffer, dpi: number): Buffer => pageImages(pdf, dpi)[0]!;

type Grey = { w: number; h: number; px: Float32Array };

function seeded(seed: number) {
  let s = seed >>> 0 || 1;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

function decode(png: Buffer): Grey {
  const img = PNG.sync.read(png);
  const px = new Float32Array(img.width * img.height);
  for (let i = 0; i < px.length; i++) px[i] = img.data[i * 4];
  return { w: img.width, h: img.height, px };
}

/** Rotation by `deg` about the centre (bilinear, white outside), a 3×3 blur, uneven light, noise. */
function degrade(g: Grey, deg: number, light: number, noise: number, blur: boolean, seed: number): Grey {
  const { w, h } = g;
  const out = new Float32Array(w * h);
  const a = (deg * Math.PI) / 180;
  const cos = Math.cos(a);
  const sin = Math.sin(a);
  const at = (x: number, y: number) => (x < 0 || y < 0 || x >= w || y >= h ? 255 : g.px[y * w + x]);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const dx = x - w / 2;
      const dy = y - h / 2;
      const sx = cos * dx + sin * dy + w / 2;
      const sy = -sin * dx + cos * dy + h / 2;
      const x0 = Math.floor(sx);
      const y0 = Math.floor(sy);
      const fx = sx - x0;
      const fy = sy - y0;
      out[y * w + x] =
        at(x0, y0) * (1 - fx) * (1 - fy) +
        at(x0 + 1, y0) * fx * (1 - fy) +
        at(x0, y0 + 1) * (1 - fx) * fy +
        at(x0 + 1, y0 + 1) * fx * fy;
    }
  let px = out;
  if (blur) {
    px = new Float32Array(w * h);
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++) {
        let s = 0;
        for (let j = -1; j <= 1; j++)
          for (let i = -1; i <= 1; i++)
            s += out[Math.min(h - 1, Math.max(0, y + j)) * w + Math.min(w - 1, Math.max(0, x + i))];
        px[y * w + x] = s / 9;
      }
  }
  const rnd = seeded(seed);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const shade = 1 - light * (0.5 * (x / w) + 0.5 * (y / h));
      px[y * w + x] = Math.max(0, Math.min(255, px[y * w + x] * shade + (rnd() - 0.5) * noise));
    }
  return { w, h, px };
}

function toPng(g: Grey): Buffer {
  const png = new PNG({ width: g.w, height: g.h });
  for (let i = 0; i < g.px.length; i++) {
    png.data[i * 4] = png.data[i * 4 + 1] = png.data[i * 4 + 2] = g.px[i];
    png.data[i * 4 + 3] = 255;
  }
  return PNG.sync.write(png);
}

function toJpeg(g: Grey, quality: number): Buffer {
  const data = Buffer.alloc(g.w * g.h * 4);
  for (let i = 0; i < g.px.length; i++) {
    data[i * 4] = data[i * 4 + 1] = data[i * 4 + 2] = g.px[i];
    data[i * 4 + 3] = 255;
  }
  return Buffer.from(jpeg.encode({ data, width: g.w, height: g.h }, quality).data);
}

/** How a page is degraded: resolution, angle, uneven light, noise, blur (a photo: its JPEG quality). */
export type Degrade = { dpi: number; angle: number; light: number; noise: number; blur: boolean };

/** A scanned PDF of `pdf`: each page degraded, embedded as an image only (no text layer). */
export async function scanOf(pdf: Buffer, d: Degrade, seed: number): Promise<Buffer> {
  const pages = pageImages(pdf, d.dpi).map((png, i) =>
    degrade(decode(png), d.angle, d.light, d.noise, d.blur, seed + i),
  );
  const doc = new PDFDocument({ size: "A4", margin: 0, autoFirstPage: false });
  const chunks: Buffer[] = [];
  doc.on("data", (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((r) => doc.on("end", () => r(Buffer.concat(chunks))));
  for (const g of pages) {
    doc.addPage({ size: "A4", margin: 0 });
    doc.image(toPng(g), 0, 0, { width: doc.page.width, height: doc.page.height });
  }
  doc.end();
  return done;
}

/** A phone photo of `pdf`'s first page: degraded, then a JPEG. */
export const photoOf = (pdf: Buffer, d: Degrade & { quality: number }, seed: number): Buffer =>
  toJpeg(degrade(decode(pageImage(pdf, d.dpi)), d.angle, d.light, d.noise, d.blur, seed), d.quality);

/** A phone photo of each page of `pdf` (a patient photographs a report page by page). */
export const photosOf = (pdf: Buffer, d: Degrade & { quality: number }, seed: number): Buffer[] =>
  pageImages(pdf, d.dpi).map((png, i) =>
    toJpeg(degrade(decode(png), i % 2 ? -d.angle : d.angle, d.light, d.noise, d.blur, seed + i), d.quality),
  );

/**
 * The photo as the upload screen sends it (app/components/reports/photo.ts): at most
 * `maxSide` (PHOTO_MAX_SIDE unless given) px on its long side, never enlarged, WebP at quality 80.
 * Made by ffmpeg, as Chromium's canvas would.
 */
export function sentOf(photo: Buffer, maxSide: number = PHOTO_MAX_SIDE): Buffer {
  const fit = `scale=w='if(gte(iw,ih),min(iw,${maxSide}),-2)':h='if(gte(iw,ih),-2,min(ih,${maxSide}))'`;
  const args = ["-v", "error", "-f", "image2pipe", "-i", "-", "-vf", fit, "-quality", "80"];
  return execFileSync("ffmpeg", [...args, "-f", "webp", "-"], { input: photo });
}

/** A scanned PDF: each page at 200 dpi, a little skew and noise, embedded as an image only (no text layer). */
export async function labScan(layout: Layout): Promise<Buffer> {
  const scan = { dpi: 200, angle: 0.6, light: 0.1, noise: 30, blur: false };
  return scanOf(await labPdf(layout), scan, LAYOUTS.indexOf(layout) + 1);
}

/** A phone photo: rotated 2–4°, blurred, uneven light, JPEG quality 70. */
export async function labPhoto(layout: Layout): Promise<Buffer> {
  const i = LAYOUTS.indexOf(layout);
  const deg = [2, -3, 4, -2.5][i % 4]!;
  return photoOf(
    await labPdf(layout),
    { dpi: 220, angle: deg, light: 0.35, noise: 24, blur: true, quality: 70 },
    i + 11,
  );
}

/** The photo of a layout as the upload screen sends it (WebP, PHOTO_MAX_SIDE px). */
export async function labPhotoAsSent(layout: Layout): Promise<Buffer> {
  return sentOf(await labPhoto(layout));
}
