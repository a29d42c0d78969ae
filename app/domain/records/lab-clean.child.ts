/**
 * The page-cleaning child (decision 0082), a program of its own: `node lab-clean.child.ts -- <input>
 * <output>` (Node 24 runs the TypeScript source as it is; the build bundles it as
 * `<build>/lab-clean.mjs`). It decodes a picture (JPEG by jpeg-js, PNG by pngjs, the grey PGM
 * pdftoppm writes), turns it as its EXIF orientation says, enlarges a small one, cleans it
 * (lab-pixels.ts) and writes a grey PGM for Tesseract; it prints the skew and the page measures as
 * JSON. Started only through the one door (lab-prep.server.ts, decision 0086). Sizes are checked
 * from the header before anything is inflated: the parent checked them already; this is the
 * second look, for a file that lies to the first.
 */
import { readFileSync, writeFileSync } from "node:fs";
import jpeg from "jpeg-js";
import pngjs from "pngjs";
import { cleanPage, enlarge, exifOrientation, orient } from "./lab-pixels.ts";

/** Pixels a picture may have (the reader's cap, MAX_IMAGE_PIXELS in lab-ocr.server.ts). */
const MAX_PIXELS = 50e6;

function tooLarge(w: number, h: number): Error {
  return new Error(`picture too large: ${w} x ${h} px`);
}

/** The picture as grey pixels, and whether it came with an orientation to apply (JPEG). */
function decodeGrey(buf: Buffer): { grey: Uint8Array; width: number; height: number; turn: number } {
  const pgm = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(buf.subarray(0, 64).toString("latin1"));
  if (pgm) {
    const width = Number(pgm[1]);
    const height = Number(pgm[2]);
    if (width * height > MAX_PIXELS) throw tooLarge(width, height);
    const grey = new Uint8Array(buf.subarray(pgm[0].length, pgm[0].length + width * height));
    if (grey.length !== width * height) throw new Error("truncated image");
    return { grey, width, height, turn: 1 };
  }
  const isPng = buf.length >= 24 && buf.readUInt32BE(0) === 0x89504e47;
  if (isPng && buf.readUInt32BE(16) * buf.readUInt32BE(20) > MAX_PIXELS)
    throw tooLarge(buf.readUInt32BE(16), buf.readUInt32BE(20));
  const isJpeg = buf[0] === 0xff && buf[1] === 0xd8;
  const img = isJpeg
    ? jpeg.decode(buf, {
        useTArray: true,
        formatAsRGBA: true,
        maxResolutionInMP: 50,
        maxMemoryUsageInMB: 400,
      })
    : pngjs.PNG.sync.read(buf);
  const grey = new Uint8Array(img.width * img.height);
  for (let i = 0; i < grey.length; i++)
    grey[i] = (img.data[i * 4] * 299 + img.data[i * 4 + 1] * 587 + img.data[i * 4 + 2] * 114) / 1000;
  return { grey, width: img.width, height: img.height, turn: isJpeg ? exifOrientation(buf) : 1 };
}

function main(input: string, output: string): void {
  const buf = readFileSync(input);
  const { grey, width, height, turn } = decodeGrey(buf);
  const turned = orient(grey, width, height, turn);
  const big = enlarge(turned.px, turned.w, turned.h);
  const out = cleanPage(big.px, big.w, big.h);
  writeFileSync(output, Buffer.concat([Buffer.from(`P5\n${out.w} ${out.h}\n255\n`), out.px]));
  process.stdout.write(JSON.stringify({ angle: out.angle, cv: out.cv, inkShare: out.inkShare }));
}

const [input, output] = process.argv.slice(2);
if (input && output) {
  try {
    main(input, output);
  } catch (e) {
    // One line the reader can store: why the picture could not be read.
    process.stderr.write(`unreadable image: ${String((e as Error)?.message ?? e).split("\n")[0]}\n`);
    process.exit(1);
  }
}
