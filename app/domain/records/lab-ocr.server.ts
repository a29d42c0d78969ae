import { mkdtemp, open, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { linesFromTsv, onPath, run, type PageLine } from "./lab-lines.server";
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

/** The text layer of a PDF, as lines with boxes; empty when the PDF has none (a scan). */
export async function pdfTextLines(file: string, timeoutMs: number): Promise<PageLine[]> {
  const tsv = await run("pdftotext", ["-q", "-tsv", file, "-"], { timeoutMs });
  return linesFromTsv(tsv);
}

/**
 * Tesseract on one image file (PNG, JPEG), after the page is cleaned (lab-prep.server.ts: light
 * evened, straightened, contrast). Throws OcrUnavailable when the binary is missing.
 */
export async function ocrImage(file: string, timeoutMs: number, page = 1): Promise<PageLine[]> {
  if (!onPath("tesseract")) throw new OcrUnavailable();
  // Too small to hold a readable page (a thumbnail, an icon): not worth a child process.
  const size = await imageSize(file);
  if (size && Math.max(size.w, size.h) < MIN_PAGE_SIDE) return [];
  const deadline = Date.now() + timeoutMs;
  const dir = await mkdtemp(join(tmpdir(), "labocr-"));
  try {
    const clean = await preparePage(
      size?.webp ? await webpToPgm(file, dir, timeoutMs) : file,
      dir,
      Math.max(1, deadline - Date.now()),
    );
    // Not a page of text (a photo of skin, an X-ray, noise): nothing to read, and Tesseract on
    // such a picture is slow. Text pages measure 1.7–2.3, such pictures under 0.5 (decision 0082).
    if (!textLike(clean)) return [];
    // One block of text (psm 6); Sauvola's local threshold for what light the cleaning left.
    const args = [clean.file, "-", "-l", "eng", "--psm", "6", "-c", "thresholding_method=2", "tsv"];
    const tsv = await run("tesseract", args, {
      timeoutMs: Math.max(1, deadline - Date.now()),
    });
    return linesFromTsv(tsv, page - 1, true);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A PDF without a text layer: each page rendered at 300 dpi (pdftoppm) and read by Tesseract. */
export async function ocrPdf(file: string, timeoutMs: number, maxPages = 10): Promise<PageLine[]> {
  const dir = await mkdtemp(join(tmpdir(), "labread-"));
  try {
    const deadline = Date.now() + timeoutMs;
    await run("pdftoppm", ["-r", "300", "-gray", "-l", String(maxPages), file, join(dir, "p")], {
      timeoutMs,
    });
    const pages = (await readdir(dir)).filter((f) => f.endsWith(".pgm")).sort();
    const lines: PageLine[] = [];
    for (const [i, f] of pages.entries()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error("time limit reached");
      lines.push(...(await ocrImage(join(dir, f), left, i + 1)));
    }
    return lines;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * A WebP picture as the grey PGM the cleaning reads: ffmpeg decodes it (one thread, the same
 * limits as the other tools). Without ffmpeg a WebP cannot be read, as without Tesseract.
 */
async function webpToPgm(file: string, dir: string, timeoutMs: number): Promise<string> {
  if (!onPath("ffmpeg")) throw new OcrUnavailable();
  const out = join(dir, "webp.pgm");
  const args = ["-v", "error", "-nostdin", "-threads", "1", "-i", file, "-frames:v", "1"];
  await run("ffmpeg", [...args, "-pix_fmt", "gray", "-c:v", "pgm", "-f", "image2", "-y", out], { timeoutMs });
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
