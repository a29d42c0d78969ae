import { and, eq } from "drizzle-orm";
import { db } from "~/db/client.server";
import { imagingPreviews } from "~/db/schema";
import { log } from "~/lib/log.server";
import { DomainError } from "../platform/errors";
import { deleteStored, openDecrypted, storeUpload } from "./files.server";
import { once, readInstanceBytes } from "./dicom-instance.server";
import { findInstance } from "./dicom.server";
import { renderInWorker } from "./render-pool.server";

/**
 * Previews of medical images (decision 0039): one frame of one instance rendered on the server by
 * dcmjs-imaging (uncompressed, RLE, JPEG baseline/lossless, JPEG-LS, JPEG 2000 through its bundled
 * WebAssembly codecs) with a window preset, as PNG, cached encrypted in the blob store (a row in
 * `imaging_previews` per instance, frame and preset). Decoding runs off the event loop in render
 * threads, budgeted per account (render-pool.server.ts, decision 0056), and frames over a size
 * cap are not rendered.
 */

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

/** Who asks for a render (its budget) and the request's signal (a render still waiting when the client left is dropped). */
export type Asker = { account: string; signal?: AbortSignal };

/**
 * Renders one frame to PNG (no cache) in a render thread (render-pool.server.ts), in `account`'s
 * turn: 429 when the account has too many renders in hand, 4xx when the frame cannot be shown.
 */
export function renderPng(
  asker: Asker,
  bytes: Buffer | (() => Promise<Buffer>),
  frame: number,
  preset: Preset,
): Promise<Buffer> {
  const p = PRESETS[preset];
  return renderInWorker(
    asker.account,
    {
      bytes,
      frame,
      window: p ? { width: p.width, level: p.level } : null,
      maxPixels: MAX_RENDER_PIXELS,
    },
    asker.signal,
  );
}

/**
 * The PNG of one frame of one instance of the report's study with a preset: from the cache, or
 * rendered and cached (the render counted against the asker's account). The caller has checked
 * access to the report.
 */
export async function framePng(
  asker: Asker,
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
  const png = await renderPng(asker, () => readInstanceBytes(inst.fileKey), frame, preset);
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
