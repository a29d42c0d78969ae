/**
 * A render thread's program (decision 0056): decodes one DICOM frame at a time with
 * dcmjs-imaging's WebAssembly codecs and answers a PNG. Started by render-pool.server.ts as a
 * worker thread from this file (Node 24 runs the TypeScript as it is) or from its bundle beside
 * the server build (`<build>/render-worker.mjs`, decision 0117). Only erasable TypeScript here.
 */
import { createRequire } from "node:module";
import { parentPort } from "node:worker_threads";
import type { PNG as PngType } from "pngjs";

export type RenderRequest = {
  id: number;
  bytes: ArrayBuffer;
  frame: number;
  window: { width: number; level: number } | null;
  maxPixels: number;
};
export type RenderFailure = "unreadable" | "tooLarge" | "notFound" | "cannotRender";
export type RenderReply =
  | { id: number; ok: true; png: Uint8Array }
  | { id: number; ok: false; reason: RenderFailure; message?: string };

// The packages as CommonJS (dcmjs-imaging ships a UMD bundle).
const require = createRequire(import.meta.url);
type Imaging = typeof import("dcmjs-imaging");
const imaging = require("dcmjs-imaging") as Imaging & { default?: Imaging };
const lib: Imaging = imaging.default ?? imaging;
const { PNG } = require("pngjs") as { PNG: typeof PngType };

const port = parentPort!;
let ready: Promise<void>;
/**
 * A fresh decoder: a new WebAssembly instance with a new memory (the old one, and whatever a trap
 * left allocated in it, goes with its last reference).
 */
function freshDecoder(): void {
  ready = lib.NativePixelDecoder.initializeAsync();
  ready.catch(() => {});
}
freshDecoder();

function reply(message: RenderReply, transfer: ArrayBuffer[] = []): void {
  port.postMessage(message, transfer);
}

port.on("message", async (job: RenderRequest) => {
  const fail = (reason: RenderFailure, err?: unknown) =>
    reply({
      id: job.id,
      ok: false,
      reason,
      message: err ? String((err as Error)?.message ?? err) : undefined,
    });
  try {
    await ready;
  } catch (err) {
    return fail("cannotRender", err);
  }
  let image: InstanceType<Imaging["DicomImage"]>;
  try {
    image = new lib.DicomImage(job.bytes);
  } catch (err) {
    return fail("unreadable", err);
  }
  let out: { width: number; height: number; pixels: ArrayBuffer };
  try {
    if (image.getWidth() * image.getHeight() > job.maxPixels) return fail("tooLarge");
    if (job.frame >= image.getNumberOfFrames()) return fail("notFound");
    const opts: { frame: number; windowLevel?: InstanceType<Imaging["WindowLevel"]> } = { frame: job.frame };
    if (job.window) opts.windowLevel = new lib.WindowLevel(job.window.width, job.window.level);
    out = image.render(opts);
  } catch (err) {
    fail("cannotRender", err);
    return freshDecoder();
  }
  try {
    const png = new PNG({ width: out.width, height: out.height });
    png.data = Buffer.from(out.pixels);
    // A grey image (every pixel R = G = B) is written as a grey PNG: a quarter of the pixels to deflate.
    let grey = true;
    for (let i = 0; i < png.data.length && grey; i += 4)
      grey = png.data[i] === png.data[i + 1] && png.data[i] === png.data[i + 2];
    const bytes = new Uint8Array(PNG.sync.write(png, grey ? { colorType: 0 } : {}));
    reply({ id: job.id, ok: true, png: bytes }, [bytes.buffer]);
  } catch (err) {
    fail("cannotRender", err);
  }
});
