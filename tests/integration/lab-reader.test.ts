import { writeFileSync } from "node:fs";
import { join } from "node:path";
import jpeg from "jpeg-js";
import { PNG } from "pngjs";
import { describe, expect, it } from "vitest";
import { PHOTO_MAX_SIDE } from "~/components/reports/photo";
import { readLocal } from "~/domain/records/index.server";
import { imageSize, ocrImage } from "~/domain/records/lab-ocr.server";
import { orient } from "~/domain/records/lab-pixels";
import { exifHead } from "../helpers/exif";
import { inTempDir } from "../helpers/files";
import { LAYOUTS, labPhoto, labPhotoAsSent, truthOf, type Kind, type Layout } from "../helpers/lab-corpus";
import { scoreOne, type Score } from "../helpers/lab-score";

/**
 * The lab-report reader on the corpus made in code (decisions 0082, 0089): every layout's text PDF,
 * and a sample of layouts scanned and photographed (OCR is slow on a small machine; `npm run
 * bench:labs` reads every layout in every kind). The floors sit a little under what the bench
 * measured, and none gives a wrong value confidence or a judgement the printed range does not make.
 */
async function score(kind: Kind, layouts: Layout[]) {
  const all: Score[] = [];
  const perLayout = new Map<Layout, number>();
  const dates: string[] = [];
  for (const l of layouts) {
    const { scores, date } = await scoreOne(l, kind);
    all.push(...scores);
    perLayout.set(l, scores.filter((s) => s.exact).length / scores.length);
    if (date.got !== date.want) dates.push(`${l}: ${date.got}, not ${date.want}`);
  }
  return {
    exact: all.filter((s) => s.exact).length / all.length,
    perLayout,
    confidentWrong: all.filter((s) => s.confidentWrong),
    judgementWrong: all.filter((s) => s.judgementWrong),
    dates,
  };
}

describe("lab reader on the corpus", () => {
  it("reads every layout's text-layer PDF: ≥ 98 % exact, no layout under 90 %, its sample date", async () => {
    const r = await score("text", LAYOUTS);
    expect(LAYOUTS.length).toBeGreaterThanOrEqual(30);
    expect(r.exact).toBeGreaterThanOrEqual(0.98);
    expect([...r.perLayout].filter(([, x]) => x < 0.9)).toEqual([]);
    expect(r.confidentWrong).toEqual([]);
    expect(r.judgementWrong).toEqual([]);
    expect(r.dates).toEqual([]);
  }, 60_000);

  it("reads scanned PDFs by OCR, with no confident wrong value and no wrong judgement", async () => {
    // Three layouts here (the bench reads all): a range over two lines, word results, two columns.
    // Measured 25 of 25 (decision 0089).
    const r = await score("scan", ["sex-lines", "serology", "two-column-chem"]);
    expect(r.exact).toBeGreaterThanOrEqual(0.92);
    expect(r.confidentWrong).toEqual([]);
    expect(r.judgementWrong).toEqual([]);
  }, 120_000);

  // Rotated, blurred, unevenly lit JPEGs at 220 dpi: straightened, evened and enlarged to about
  // 330 dpi before OCR (lab-clean.child.ts, decision 0089).
  it("reads phone photos, with no confident wrong value and no wrong judgement", async () => {
    // Two layouts whose small print lost decimal points and flags before the enlarging: 19 of 19
    // read (16 of 19 at 220 dpi, which this floor fails). Two photos, not four: each is read at
    // 2.25 times the pixels, and these two are the ones the enlarging decides.
    const r = await score("photo", ["urine-routine", "paren-flags"]);
    expect(r.exact).toBeGreaterThanOrEqual(18 / 19);
    expect(r.confidentWrong).toEqual([]);
    expect(r.judgementWrong).toEqual([]);
  }, 120_000);

  // Phones store the sensor's picture and an EXIF orientation; the page must be read as shown.
  it("reads a photo stored sideways with its EXIF orientation as the page it shows", async () => {
    const shown = jpeg.decode(await labPhoto("table"), { useTArray: true });
    const grey = new Uint8Array(shown.width * shown.height).map((_, i) => shown.data[i * 4]);
    // Stored turned a quarter anticlockwise; orientation 6 turns it back clockwise.
    const stored = orient(grey, shown.width, shown.height, 8);
    const rgba = Buffer.alloc(stored.w * stored.h * 4);
    stored.px.forEach((v, i) => rgba.fill(v, i * 4, i * 4 + 3).writeUInt8(255, i * 4 + 3));
    const body = Buffer.from(jpeg.encode({ data: rgba, width: stored.w, height: stored.h }, 80).data);
    const head = exifHead(6);
    const file = Buffer.concat([head.subarray(0, head.length - 4), body.subarray(2)]);
    await inTempDir("labexif-", async (dir) => {
      writeFileSync(join(dir, "p.jpg"), file);
      const reading = await readLocal(join(dir, "p.jpg"), "image/jpeg");
      const exact = truthOf("table").filter((t) =>
        reading.rows.some((r) => r.analyte === t.analyte && r.printedValue === t.value),
      );
      expect(exact.length).toBeGreaterThanOrEqual(7);
    });
  }, 60_000);

  // The upload screen sends a photo as WebP (JPEG where the browser cannot), at most PHOTO_MAX_SIDE
  // (1,800 px, decision 0109) on its long side: ffmpeg decodes it, and the page is enlarged before
  // Tesseract reads it.
  it("reads photos as the upload screen sends them (WebP, PHOTO_MAX_SIDE); a cut-off WebP is refused with a reason", async () => {
    // A dot-matrix layout whose range "4,000 - 11,000" OCR once read "4,900" at word confidence 70
    // (a rival digit now doubts it), and ranges in brackets after a colon. Measured: 16 of 17 at
    // 1,800 px (decision 0109); 15 of 17 at 2,000 px (12 of 17 and one confident-and-wrong at
    // 3,300 px, before decision 0089's enlarging to 3,860 px and the rival digits' doubt).
    const r = await score("sent", ["dot-matrix", "colon-brackets"]);
    expect(r.exact).toBeGreaterThanOrEqual(14 / 17);
    expect(r.confidentWrong).toEqual([]);
    expect(r.judgementWrong).toEqual([]);
    await inTempDir("labwebp-", async (dir) => {
      const bytes = await labPhotoAsSent("dot-matrix");
      writeFileSync(join(dir, "p.webp"), bytes);
      expect(await imageSize(join(dir, "p.webp"))).toMatchObject({ h: PHOTO_MAX_SIDE, webp: true });
      writeFileSync(join(dir, "cut.webp"), bytes.subarray(0, Math.floor(bytes.length / 3)));
      await expect(readLocal(join(dir, "cut.webp"), "image/webp")).rejects.toThrow(/exited with|unreadable/);
    });
  }, 90_000);

  it("does not OCR a picture that is not a page of text (noise, a photo of skin or an X-ray)", async () => {
    await inTempDir("labnoise-", async (dir) => {
      let x = 7;
      const noise = new PNG({ width: 900, height: 700 });
      for (let i = 0; i < noise.data.length; i += 4) {
        x = (Math.imul(x, 1103515245) + 12345) >>> 0;
        noise.data.fill(x >>> 24, i, i + 3);
        noise.data[i + 3] = 255;
      }
      writeFileSync(join(dir, "n.png"), PNG.sync.write(noise));
      expect(await imageSize(join(dir, "n.png"))).toEqual({ w: 900, h: 700 });
      writeFileSync(join(dir, "p.jpg"), await labPhoto("table"));
      const photo = jpeg.decode(await labPhoto("table"));
      expect(await imageSize(join(dir, "p.jpg"))).toEqual({ w: photo.width, h: photo.height });
      // A thumbnail is too small to hold a page: no child process at all.
      writeFileSync(join(dir, "t.png"), PNG.sync.write(new PNG({ width: 48, height: 48 })));
      expect(await imageSize(join(dir, "t.png"))).toEqual({ w: 48, h: 48 });
      expect(await ocrImage(join(dir, "t.png"), 30_000)).toEqual([]);
      expect(await ocrImage(join(dir, "n.png"), 30_000)).toEqual([]);
      expect(await readLocal(join(dir, "n.png"), "image/png")).toEqual({
        lab: false,
        source: "ocr",
        rows: [],
        sampleDate: null,
      });
    });
  }, 60_000);
});
