import { mkdtemp, open, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { installed, runProgram, withScratch, type Scratch } from "~/lib/programs.server";
import { doubtsDigits, linesFromTsv, surerLines, unsureWords, type PageLine } from "./lab-lines.server";
import { preparePage } from "./lab-prep.server";

/**
 * The two ways a report's lines are read (decision 0082): a PDF's text layer (poppler's
 * `pdftotext -tsv`, word boxes included) and Tesseract's CLI on an image or a rendered page
 * (`-l eng`: numbers are read in an English-only pass; eng+hin drops decimal points). Both run as
 * child processes with OMP_THREAD_LIMIT=1 and a time limit, so the event loop stays free.
 */
export class OcrUnavailable extends Error {
  /** `turnedOff`: the operator chose it (LAB_OCR=0), not a missing tool. */
  constructor(readonly turnedOff = false) {
    super("OCR not available");
  }
}

/** A file the reader will not open: over a size cap, read from its header before any decoding. */
export class Unreadable extends Error {}

/** Pixels a picture may have (its header says): a 50-MP phone photo reads, a decompression bomb does not. */
export const MAX_IMAGE_PIXELS = 50_000_000;
/** The longest side of a PDF page the reader renders, in points (50 in: a scan placed at 72 dpi fits). */
export const MAX_PAGE_POINTS = 3600;
/** Pixels one page is rendered to for OCR: 300 dpi up to A4/Letter/Legal, fewer dpi for larger pages. */
export const MAX_RENDER_PIXELS = 12_000_000;
/** Pages of a scanned PDF that are read (their sizes checked first). */
export const MAX_OCR_PAGES = 10;
/** Pages of a PDF's text layer that are read. */
export const MAX_TEXT_PAGES = 30;
/** The scratch a whole read may use (the decrypted file, one page rendered, its cleaned copy). */
export const READ_SCRATCH_BYTES = 256 * 1024 * 1024;

/** The text layer of a PDF, as lines with boxes; empty when the PDF has none (a scan). */
export async function pdfTextLines(file: string, timeoutMs: number): Promise<PageLine[]> {
  const tsv = await runProgram("pdftotext", {
    options: ["-q", "-tsv", "-l", String(MAX_TEXT_PAGES)],
    operands: [file, "-"],
    limits: { timeoutMs },
  });
  return linesFromTsv(tsv.toString("utf8"));
}

/**
 * Tesseract on one image file (PNG, JPEG, WebP, PGM), after the page is cleaned (lab-prep.server.ts:
 * light evened, straightened, contrast), in `scratch` (a folder of its own when none is given).
 * Throws OcrUnavailable when the binary is missing, Unreadable when the picture is over the cap.
 */
export async function ocrImage(
  file: string,
  timeoutMs: number,
  page = 1,
  scratch?: Scratch,
): Promise<PageLine[]> {
  if (!scratch) return withScratch("labocr", READ_SCRATCH_BYTES, (s) => ocrImage(file, timeoutMs, page, s));
  if (!installed("tesseract")) throw new OcrUnavailable();
  const size = await imageSize(file);
  // Too small to hold a readable page (a thumbnail, an icon): not worth a child process.
  if (size && Math.max(size.w, size.h) < MIN_PAGE_SIDE) return [];
  // Too large to decode safely (a decompression bomb declares 20,000 × 20,000 px in 400 KB).
  if (size && size.w * size.h > MAX_IMAGE_PIXELS)
    throw new Unreadable(
      `picture too large to read: ${size.w} × ${size.h} px (at most ${MAX_IMAGE_PIXELS / 1e6} MP)`,
    );
  const deadline = Date.now() + timeoutMs;
  const left = () => Math.max(1, deadline - Date.now());
  const clean = await preparePage(
    size?.webp ? await webpToPgm(file, scratch, timeoutMs) : file,
    scratch,
    left(),
  );
  // Not a page of text (a photo of skin, an X-ray, noise): nothing to read, and Tesseract on
  // such a picture is slow. Text pages measure 1.7–2.3, such pictures under 0.5 (decision 0082).
  if (!textLike(clean)) return [];
  // One block of text (psm 6); Sauvola's local threshold for what light the cleaning left. The
  // words (tsv) and, per character, the LSTM's rival readings (hocr): a digit with a rival makes
  // its word doubted (decision 0089).
  const out = join(scratch.dir, "ocr");
  await runProgram("tesseract", {
    operands: [clean.file, out],
    trailing: [
      ...["-l", "eng", "--psm", "6", "-c", "thresholding_method=2"],
      ...["-c", "hocr_char_boxes=1", "-c", "lstm_choice_mode=2", "tsv", "hocr"],
    ],
    limits: { timeoutMs: left() },
    scratch,
  });
  const [tsv, hocr] = await Promise.all([readFile(`${out}.tsv`, "utf8"), readFile(`${out}.hocr`, "utf8")]);
  return linesFromTsv(tsv, page - 1, true, unsureWords(hocr));
}

/** A page's size in points, from pdfinfo. */
type PageSize = { page: number; w: number; h: number };

/** The number of pages and the sizes of the first `upTo`, read by pdfinfo without rendering anything. */
export async function pdfPages(
  file: string,
  upTo: number,
  timeoutMs: number,
): Promise<{ pages: number; sizes: PageSize[] }> {
  const info = (
    await runProgram("pdfinfo", {
      options: ["-f", "1", "-l", String(upTo)],
      operands: [file],
      limits: { timeoutMs: Math.min(timeoutMs, 10_000) },
    })
  ).toString("latin1");
  const pages = Number(/^Pages:\s+(\d+)/m.exec(info)?.[1] ?? 0);
  const sizes = [...info.matchAll(/^Page\s+(\d+) size:\s+([\d.]+) x ([\d.]+) pts/gm)].map((m) => ({
    page: Number(m[1]),
    w: Number(m[2]),
    h: Number(m[3]),
  }));
  // One size line for all pages when they are the same ("Page size:").
  const one = /^Page size:\s+([\d.]+) x ([\d.]+) pts/m.exec(info);
  if (!sizes.length && one)
    for (let p = 1; p <= Math.min(pages, upTo); p++)
      sizes.push({ page: p, w: Number(one[1]), h: Number(one[2]) });
  return { pages, sizes };
}

/**
 * The resolution a page is rendered at for OCR: 300 dpi (times `scale` for a second reading), less
 * when that would pass MAX_RENDER_PIXELS.
 */
export function ocrDpi(size: { w: number; h: number }, scale = 1): number {
  const squareInches = (size.w / 72) * (size.h / 72);
  return Math.max(
    1,
    Math.min(
      Math.floor(300 * scale),
      Math.floor(Math.sqrt(MAX_RENDER_PIXELS / Math.max(squareInches, 1e-6))),
    ),
  );
}

/**
 * A PDF without a text layer: its page sizes read first (a page over MAX_PAGE_POINTS makes the file
 * Unreadable), then each of the first MAX_OCR_PAGES rendered alone (pdftoppm, at most
 * MAX_RENDER_PIXELS), read by Tesseract and removed before the next, all within `scratch`.
 */
export async function ocrPdf(file: string, timeoutMs: number, scratch?: Scratch): Promise<PageLine[]> {
  if (!scratch) return withScratch("labpdf", READ_SCRATCH_BYTES, (s) => ocrPdf(file, timeoutMs, s));
  const deadline = Date.now() + timeoutMs;
  const left = () => {
    const ms = deadline - Date.now();
    if (ms <= 0) throw new Error("time limit reached");
    return ms;
  };
  const { sizes } = await pdfPages(file, MAX_OCR_PAGES, left());
  const huge = sizes.find((s) => Math.max(s.w, s.h) > MAX_PAGE_POINTS);
  if (huge)
    throw new Unreadable(
      `page ${huge.page} too large to read: ${Math.round(huge.w / 72)} × ${Math.round(huge.h / 72)} in (at most ${MAX_PAGE_POINTS / 72} in a side)`,
    );
  const lines: PageLine[] = [];
  for (const [index, size] of sizes.entries()) {
    const dpi = ocrDpi(size);
    const started = Date.now();
    const first = await readPage(file, size.page, dpi, scratch, left());
    // A doubted digit: the page once more, 10 % larger, and each line from the surer reading
    // (decision 0089) — when the time left also holds a first reading of every page still to come
    // (each taken to cost what this one did). Otherwise the first reading stands.
    const larger = ocrDpi(size, 1.1);
    const took = Date.now() - started;
    const remaining = deadline - Date.now();
    const pagesLeft = sizes.length - index - 1;
    if (!doubtsDigits(first) || larger <= dpi || remaining < took * (1.5 + pagesLeft)) {
      lines.push(...first);
      continue;
    }
    const second = await readPage(file, size.page, larger, scratch, remaining).catch((e: unknown) => {
      if (e instanceof OcrUnavailable || e instanceof Unreadable) throw e;
      return null;
    });
    lines.push(...(second ? surerLines(first, second, SECOND_READING_MARGIN) : first));
  }
  return lines;
}

/**
 * How much surer (mean digit confidence, 0–100) a line of the second reading of a page must be to
 * replace the first's (surerLines); measured on the scanned corpus (npm run bench:labs).
 */
export const SECOND_READING_MARGIN = 0;

/** One page of a PDF rendered at `dpi` (pdftoppm, grey) and read by ocrImage, in a folder of its own. */
async function readPage(
  file: string,
  page: number,
  dpi: number,
  scratch: Scratch,
  timeoutMs: number,
): Promise<PageLine[]> {
  const deadline = Date.now() + timeoutMs;
  const dir = await mkdtemp(join(scratch.dir, "page-"));
  try {
    const p = String(page);
    await runProgram("pdftoppm", {
      options: ["-r", String(dpi), "-gray", "-f", p, "-l", p, "-singlefile"],
      operands: [file, join(dir, "p")],
      limits: { timeoutMs },
      scratch,
    });
    return await ocrImage(join(dir, "p.pgm"), Math.max(1, deadline - Date.now()), page, scratch);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * A WebP picture as the grey PGM the cleaning reads: ffmpeg decodes it (one thread, the same
 * limits as the other tools). Without ffmpeg a WebP cannot be read, as without Tesseract.
 */
async function webpToPgm(file: string, scratch: Scratch, timeoutMs: number): Promise<string> {
  if (!installed("ffmpeg")) throw new OcrUnavailable();
  const out = join(scratch.dir, "webp.pgm");
  await runProgram("ffmpeg", {
    options: ["-v", "error", "-nostdin", "-threads", "1", "-i", file, "-frames:v", "1"],
    trailing: ["-pix_fmt", "gray", "-c:v", "pgm", "-f", "image2", "-y", out],
    limits: { timeoutMs },
    scratch,
  });
  return out;
}

/** Whether a cleaned picture looks like a page of text: a peaked row profile, some ink but not much. */
export function textLike(p: { cv: number; inkShare: number }): boolean {
  return p.cv >= 0.8 && p.inkShare >= 0.001 && p.inkShare <= 0.35;
}

/** The long side under which a picture cannot hold a lab table Tesseract can read (10-pt text). */
export const MIN_PAGE_SIDE = 600;

/**
 * Width and height from a PNG's IHDR, a WebP's first chunk or a JPEG's frame header (the first
 * 64 KB); null if none.
 */
export async function imageSize(file: string): Promise<{ w: number; h: number; webp?: true } | null> {
  const fh = await open(file, "r");
  try {
    const b = Buffer.alloc(65_536);
    const { bytesRead } = await fh.read(b, 0, b.length, 0);
    if (bytesRead >= 24 && b.readUInt32BE(0) === 0x89504e47)
      return { w: b.readUInt32BE(16), h: b.readUInt32BE(20) };
    if (bytesRead >= 30 && b.toString("latin1", 0, 4) === "RIFF" && b.toString("latin1", 8, 12) === "WEBP")
      return webpSize(b);
    if (b[0] !== 0xff || b[1] !== 0xd8) return null;
    let i = 2;
    while (i + 9 < bytesRead && b[i] === 0xff) {
      const m = b[i + 1];
      // SOF0–SOF15 but DHT (c4), JPG (c8) and DAC (cc): the frame's height and width.
      if (m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc)
        return { h: b.readUInt16BE(i + 5), w: b.readUInt16BE(i + 7) };
      i += 2 + b.readUInt16BE(i + 2);
    }
    return null;
  } finally {
    await fh.close();
  }
}

/** A WebP's canvas from its first chunk: VP8X (extended), VP8L (lossless) or VP8 (lossy). */
function webpSize(b: Buffer): { w: number; h: number; webp: true } | null {
  const chunk = b.toString("latin1", 12, 16);
  if (chunk === "VP8X") return { w: b.readUIntLE(24, 3) + 1, h: b.readUIntLE(27, 3) + 1, webp: true };
  if (chunk === "VP8L" && b[20] === 0x2f) {
    const bits = b.readUInt32LE(21);
    return { w: (bits & 0x3fff) + 1, h: ((bits >>> 14) & 0x3fff) + 1, webp: true };
  }
  if (chunk === "VP8 " && b[23] === 0x9d && b[24] === 0x01 && b[25] === 0x2a)
    return { w: b.readUInt16LE(26) & 0x3fff, h: b.readUInt16LE(28) & 0x3fff, webp: true };
  return null;
}
