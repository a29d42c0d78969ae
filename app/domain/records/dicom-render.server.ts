import dcmjsImaging from "dcmjs-imaging";
import { and, eq } from "drizzle-orm";
import { PNG } from "pngjs";
import { db } from "~/db/client.server";
import { imagingPreviews } from "~/db/schema";
import { log } from "~/utils/log.server";
import { DomainError } from "../platform/errors";
import { deleteStored, openDecrypted, storeUpload } from "./files.server";
import { once, readInstanceBytes } from "./dicom-instance.server";
import { findInstance } from "./dicom.server";

/**
 * Previews of medical images (decision 0039): one frame of one instance rendered on the server by
 * dcmjs-imaging (uncompressed, RLE, JPEG baseline/lossless, JPEG-LS, JPEG 2000 through its bundled
 * WebAssembly codecs) with a window preset, as PNG, cached encrypted in the blob store (a row in
 * `imaging_previews` per instance, frame and preset). CPU is bounded: one render at a time per
 * process (the others wait in line, a few at most), and frames over a size cap are not rendered.
 */

type DicomImageLib = {
  DicomImage: new (buf: ArrayBuffer) => {
    getNumberOfFrames(): number;
    getWidth(): number;
    getHeight(): number;
    render(opts: { frame?: number; windowLevel?: unknown }): {
      width: number;
      height: number;
      pixels: ArrayBuffer;
    };
  };
  WindowLevel: new (window: number, level: number) => unknown;
  NativePixelDecoder: { initializeAsync(): Promise<void>; isInitialized(): boolean };
};
const lib = ((dcmjsImaging as unknown as { default?: DicomImageLib }).default ??
  dcmjsImaging) as unknown as DicomImageLib;

/** Window presets in Hounsfield units (width, level); `default` is the file's own window. */
export const PRESETS = {
  default: null,
  lung: { width: 1500, level: -600 },
  bone: { width: 2000, level: 300 },
  soft: { width: 400, level: 40 },
  brain: { width: 80, level: 40 },
} as const;
export type Preset = keyof typeof PRESETS;
export const PRESET_NAMES = Object.keys(PRESETS) as Preset[];
export function isPreset(v: unknown): v is Preset {
  return typeof v === "string" && Object.hasOwn(PRESETS, v);
}

/** Frames larger than this many pixels are not rendered (a 4096 × 4096 mammogram is the largest common). */
export const MAX_RENDER_PIXELS = 4096 * 4096;
const MAX_WAITING = 8;

let decoder: Promise<void> | null = null;
function ready(): Promise<void> {
  decoder ??= lib.NativePixelDecoder.initializeAsync().catch((err) => {
    decoder = null;
    throw err;
  });
  return decoder;
}

let busy = false;
const waiting: (() => void)[] = [];
async function oneAtATime<T>(work: () => Promise<T>): Promise<T> {
  if (busy) {
    if (waiting.length >= MAX_WAITING) throw new DomainError("rate_limited", "imaging.busy");
    await new Promise<void>((resolve) => waiting.push(resolve));
  }
  busy = true;
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else busy = false;
  }
}

/** Renders one frame to PNG (no cache). */
export async function renderPng(bytes: Buffer, frame: number, preset: Preset): Promise<Buffer> {
  await ready();
  return oneAtATime(async () => {
    let image;
    try {
      image = new lib.DicomImage(
        bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer,
      );
    } catch {
      throw new DomainError("invalid", "imaging.unreadable");
    }
    if (image.getWidth() * image.getHeight() > MAX_RENDER_PIXELS)
      throw new DomainError("too_large", "imaging.frameTooLarge");
    if (frame >= image.getNumberOfFrames()) throw new DomainError("not_found", "imaging.notFound");
    const p = PRESETS[preset];
    let out;
    try {
      out = image.render({ frame, ...(p ? { windowLevel: new lib.WindowLevel(p.width, p.level) } : {}) });
    } catch (err) {
      log("info", "frame could not be rendered", { error: String((err as Error)?.message ?? err) });
      throw new DomainError("unsupported_type", "imaging.cannotRender");
    }
    const png = new PNG({ width: out.width, height: out.height });
    png.data = Buffer.from(out.pixels);
    return PNG.sync.write(png);
  });
}

/**
 * The PNG of one frame of one instance of the report's study with a preset: from the cache, or
 * rendered and cached. The caller has checked access to the report.
 */
export async function framePng(
  reportId: string,
  instanceId: string,
  frame: number,
  preset: Preset,
): Promise<Buffer> {
  const inst = await findInstance(reportId, instanceId);
  if (!Number.isInteger(frame) || frame < 0 || frame >= inst.frames)
    throw new DomainError("not_found", "imaging.notFound");
  const [cached] = await db()
    .select({ key: imagingPreviews.key })
    .from(imagingPreviews)
    .where(
      and(
        eq(imagingPreviews.instanceId, inst.id),
        eq(imagingPreviews.frame, frame),
        eq(imagingPreviews.preset, preset),
      ),
    );
  if (cached) {
    try {
      const chunks: Buffer[] = [];
      for await (const c of (await openDecrypted(cached.key)) as AsyncIterable<Buffer>) chunks.push(c);
      return Buffer.concat(chunks);
    } catch (err) {
      log("error", "cached preview unreadable; rendering again", { error: String(err) });
      await db().delete(imagingPreviews).where(eq(imagingPreviews.key, cached.key));
    }
  }
  const png = await renderPng(await readInstanceBytes(inst.fileKey), frame, preset);
  const stored = await storeUpload(once(png), {
    maxBytes: 64 * 1024 * 1024,
    allowed: "image",
    fileName: "frame.png",
  });
  const inserted = await db()
    .insert(imagingPreviews)
    .values({ key: stored.key, instanceId: inst.id, frame, preset, createdAt: new Date() })
    .onConflictDoNothing()
    .returning({ key: imagingPreviews.key });
  // Another request rendered the same frame at the same time: its copy is the cached one.
  if (!inserted.length) await deleteStored(stored.key).catch(() => {});
  return png;
}
