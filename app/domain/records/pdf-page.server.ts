import { createWriteStream } from "node:fs";
import { readFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { config } from "~/config.server";
import { log } from "~/lib/log.server";
import { ProgramFailed, ProgramStopped, runProgram, withScratch } from "~/lib/programs.server";
import { DomainError } from "../platform/errors";
import { openDecrypted, pagePreviewKey, storeUpload } from "./files.server";

/**
 * One page of a PDF as a JPEG, for the expert's "where was this value read" preview (decisions
 * 0084, 0086). Rendered once (poppler's pdftoppm through the one door, scaled so its long side is
 * PREVIEW_SIDE pixels whatever size the page claims) and cached in the store, encrypted like the
 * file; renders are few at once per process and one per account, and one over the limit is
 * refused at once (429 with Retry-After) rather than queued.
 */

/** The long side of a preview, pixels (an A4 page at about 130 dpi). */
export const PREVIEW_SIDE = 1500;
/** A render that takes longer is stopped. */
const RENDER_TIMEOUT_MS = 20_000;
/** What one render may write (the PDF and one JPEG). */
const RENDER_SCRATCH_BYTES = 128 * 1024 * 1024;
const RETRY_AFTER_SECONDS = 3;
/** Renders one account may have running in a process. */
const PER_ACCOUNT = 1;

/** Renders at once in this process: half the cores shared among the node's serving processes, one at least. */
function processSlots(): number {
  return Math.max(1, Math.floor(availableParallelism() / (2 * Math.max(1, config().webConcurrency))));
}

let running = 0;
const byAccount = new Map<string, number>();

/** A render slot for `account`, or a refusal (429) when the process or the account has its renders running. */
function takeSlot(account: string): () => void {
  const mine = byAccount.get(account) ?? 0;
  if (running >= processSlots() || mine >= PER_ACCOUNT) {
    log("warn", "page preview refused: renders busy", { running, accountRunning: mine });
    throw new DomainError("rate_limited", "labs.previewBusy", { retryAfterSeconds: RETRY_AFTER_SECONDS });
  }
  running++;
  byAccount.set(account, mine + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    running--;
    const left = (byAccount.get(account) ?? 1) - 1;
    if (left > 0) byAccount.set(account, left);
    else byAccount.delete(account);
  };
}

async function cached(key: string): Promise<Buffer | null> {
  try {
    const chunks: Buffer[] = [];
    for await (const c of (await openDecrypted(key)) as AsyncIterable<Buffer>) chunks.push(c);
    return Buffer.concat(chunks);
  } catch {
    return null;
  }
}

/**
 * Page `page` of the PDF stored under `fileKey` (whose access the caller checked; `open` gives its
 * plaintext) for `account`: from the cache, else rendered and cached. Null when the PDF has no such
 * page or cannot be rendered.
 */
export async function pdfPagePreview(
  fileKey: string,
  page: number,
  account: string,
  open: () => Promise<Readable>,
): Promise<Buffer | null> {
  const key = pagePreviewKey(fileKey, page);
  const hit = await cached(key);
  if (hit) return hit;
  const release = takeSlot(account);
  try {
    const jpeg = await renderPdfPage(await open(), page);
    if (jpeg)
      await storeUpload(
        (async function* () {
          yield jpeg;
        })(),
        { maxBytes: 32 * 1024 * 1024, allowed: "image", fileName: "page.jpg", key },
      ).catch((err) => log("warn", "page preview not cached", { error: String(err?.message ?? err) }));
    return jpeg;
  } finally {
    release();
  }
}

/** Renders one page (no cache): null when the PDF has no such page or pdftoppm refuses it. */
async function renderPdfPage(pdf: Readable, page: number): Promise<Buffer | null> {
  return withScratch("pdfpage", RENDER_SCRATCH_BYTES, async (scratch) => {
    const file = join(scratch.dir, "r.pdf");
    await pipeline(pdf, createWriteStream(file, { mode: 0o600 }));
    const p = String(page);
    try {
      await runProgram("pdftoppm", {
        // -scale-to: the long side in pixels, so a page that claims 100 inches is no larger.
        options: [
          "-q",
          "-f",
          p,
          "-l",
          p,
          "-scale-to",
          String(PREVIEW_SIDE),
          "-jpeg",
          "-jpegopt",
          "quality=80",
          "-singlefile",
        ],
        operands: [file, join(scratch.dir, "page")],
        limits: { timeoutMs: RENDER_TIMEOUT_MS, memoryBytes: 512 * 1024 * 1024 },
        scratch,
      }).then(() => undefined);
    } catch (err) {
      // pdftoppm refuses a page past the end (exit 99) and a damaged file alike: nothing to show.
      if (err instanceof ProgramFailed) return null;
      // Over its time or memory limit (a page built to take the machine): not shown, and said once in the log.
      if (err instanceof ProgramStopped && err.reason !== "not installed") return null;
      throw err;
    }
    return readFile(join(scratch.dir, "page.jpg")).catch(() => null);
  });
}
