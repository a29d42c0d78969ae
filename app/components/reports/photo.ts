/**
 * Smaller photos before they travel: a photo of a report taken with a phone is often
 * 3–5 MB at 4000 px, minutes on a 2G link. Downscaled to at most 1800 px on its longest side and
 * re-encoded (WebP, or JPEG where the browser cannot write WebP) it stays readable and is usually
 * a tenth of that. PDFs, GIFs, photos the browser cannot decode and photos that are already small
 * are sent as they are, and so is any photo the re-encoding would not make clearly smaller.
 * The server still decides the type from the bytes (file-types.server.ts), whatever this sends.
 *
 * Browser-only and self-contained (no imports): the upload page loads it with the upload code,
 * and scripts/bench-photo.ts runs this same file in Chromium.
 */

/**
 * The long side a photo is sent at, chosen from a measurement of the reader's accuracy against
 * bytes on a slow link (decision 0109, `npm run bench:photo-size`).
 */
export const PHOTO_MAX_SIDE = 1800;
/** Photos up to this size are sent as they are (a few seconds even on a slow link). */
export const PHOTO_SMALL_BYTES = 400 * 1024;
/** A re-encoded photo must save at least this share of the bytes, or the original goes. */
export const PHOTO_MIN_SAVING = 0.1;
const WEBP_QUALITY = 0.8;
const JPEG_QUALITY = 0.85;
const DECODABLE = new Set(["image/jpeg", "image/png", "image/webp"]);

export type PhotoResult = {
  /** What to send: the smaller photo, or the chosen file itself. */
  file: File;
  before: number;
  after: number;
  changed: boolean;
  /** Pixel size of what is sent, when it was made here. */
  width?: number;
  height?: number;
};

type Canvas2D = HTMLCanvasElement | OffscreenCanvas;

function canvasOf(width: number, height: number): Canvas2D {
  if (typeof OffscreenCanvas !== "undefined") return new OffscreenCanvas(width, height);
  const c = document.createElement("canvas");
  c.width = width;
  c.height = height;
  return c;
}

async function encode(canvas: Canvas2D, type: string, quality: number): Promise<Blob | null> {
  try {
    if ("convertToBlob" in canvas) return await canvas.convertToBlob({ type, quality });
    return await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, type, quality));
  } catch {
    return null;
  }
}

async function decode(file: File): Promise<ImageBitmap | null> {
  try {
    // Phones store the camera's orientation in EXIF; the bitmap is drawn upright.
    return await createImageBitmap(file, { imageOrientation: "from-image" });
  } catch {
    return null;
  }
}

/** The chosen file, or a smaller re-encoded copy of it when that is worth it (see above). */
export async function shrinkPhoto(
  file: File,
  opts: { maxSide?: number; smallBytes?: number } = {},
): Promise<PhotoResult> {
  const maxSide = opts.maxSide ?? PHOTO_MAX_SIDE;
  const same: PhotoResult = { file, before: file.size, after: file.size, changed: false };
  if (!DECODABLE.has(file.type) || file.size <= (opts.smallBytes ?? PHOTO_SMALL_BYTES)) return same;
  const bitmap = await decode(file);
  if (!bitmap) return same;
  const scale = Math.min(1, maxSide / Math.max(bitmap.width, bitmap.height));
  const width = Math.max(1, Math.round(bitmap.width * scale));
  const height = Math.max(1, Math.round(bitmap.height * scale));
  const canvas = canvasOf(width, height);
  const ctx = canvas.getContext("2d") as CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D | null;
  if (!ctx) {
    bitmap.close();
    return same;
  }
  // A transparent PNG becomes white paper rather than black.
  ctx.fillStyle = "#ffffff";
  ctx.fillRect(0, 0, width, height);
  ctx.imageSmoothingEnabled = true;
  ctx.imageSmoothingQuality = "high";
  ctx.drawImage(bitmap, 0, 0, width, height);
  bitmap.close();
  let blob = await encode(canvas, "image/webp", WEBP_QUALITY);
  // Browsers that cannot write WebP hand back a PNG instead.
  if (!blob || blob.type !== "image/webp") blob = await encode(canvas, "image/jpeg", JPEG_QUALITY);
  if (!blob || (blob.type !== "image/jpeg" && blob.type !== "image/webp")) return same;
  if (blob.size > file.size * (1 - PHOTO_MIN_SAVING)) return same;
  const stem = file.name.replace(/\.[^./\\]*$/, "") || "photo";
  const name = `${stem}.${blob.type === "image/webp" ? "webp" : "jpg"}`;
  return {
    file: new File([blob], name, { type: blob.type, lastModified: file.lastModified }),
    before: file.size,
    after: blob.size,
    changed: true,
    width,
    height,
  };
}
