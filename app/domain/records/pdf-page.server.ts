import { createWriteStream } from "node:fs";
import { readFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { config } from "~/config.server";
import { log } from "~/lib/log.server";
import { ProgramFailed, ProgramStopped, runProgram, withScratch } from "~/lib/programs.server";
import { desc, eq, inArray } from "drizzle-orm";
import { db } from "~/db/client.server";
import { previewCache } from "~/db/schema";
import { DomainError } from "../platform/errors";
import { rememberedFailure, rememberFailure, takeTurn, type TurnRule } from "../platform/index.server";
import { deleteStored, openDecrypted, pagePreviewKey, storeUpload } from "./files.server";

/**
 * One page of a PDF as a JPEG, for the expert's "where was this value read" preview (decisions
 * 0084, 0086, 0100). Rendered once (poppler's pdftoppm through the one door, scaled so its long side
 * is PREVIEW_SIDE pixels whatever size the page claims) and cached in the store, encrypted like the
 * file. A render waits for the asking account's turn (platform/turns: a few per node, one per
 * account across the cluster, 429 with Retry-After when it does not come soon); a page that ran out
 * of time is remembered and refused at once from then on; the cache holds at most PREVIEW_CACHE_FILE_MB
 * of one file and PREVIEW_CACHE_PROFILE_MB of one profile's files, the oldest going first, counted
 * before the render starts.
 */

/** The long side of a preview, pixels (an A4 page at about 130 dpi). */
export const PREVIEW_SIDE = 1500;
/** What one render may write (the PDF and one JPEG). */
const RENDER_SCRATCH_BYTES = 128 * 1024 * 1024;
/** The largest preview kept (a larger one is shown but not cached): a 1500 px JPEG of noise is about 1.3 MB. */
export const PREVIEW_MAX_BYTES = 2 * 1024 * 1024;

/** Turns at the renderer: half the node's cores (two at least), one per account (decision 0100). */
const RENDER_TURNS: TurnRule = {
  perNode: Math.max(2, Math.floor(availableParallelism() / 2)),
  leaseMs: 60_000,
  waitMs: 8_000,
  retryAfterSeconds: 3,
  busyMessage: "labs.previewBusy",
};

async function cached(key: string): Promise<Buffer | null> {
  try {
    const chunks: Buffer[] = [];
    for await (const c of (await openDecrypted(key)) as AsyncIterable<Buffer>) chunks.push(c);
    return Buffer.concat(chunks);
  } catch {
    return null;
  }
}

/** What a remembered failure is named by: the file's key and the page. */
const subjectOf = (fileKey: string, page: number) => `${fileKey}#${page}`;

/**
 * Page `page` of the PDF stored under `fileKey` (whose access the caller checked; `open` gives its
 * plaintext), asked for by `account`, of the profile `owner`: from the cache, else rendered in the
 * account's turn and cached within the owner's quota. Null when the PDF has no such page or cannot
 * be rendered; a DomainError when the page ran out of time (now or before) or the turn did not come.
 */
export async function pdfPagePreview(
  fileKey: string,
  page: number,
  who: { account: string; owner: string },
  open: () => Promise<Readable>,
): Promise<Buffer | null> {
  const key = pagePreviewKey(fileKey, page);
  const hit = await cached(key);
  if (hit) return hit;
  const subject = subjectOf(fileKey, page);
  if (await rememberedFailure("render", subject)) throw tooSlow();
  await makeRoom(who.owner, fileKey);
  const turn = await takeTurn("render", who.account, RENDER_TURNS);
  try {
    const rendered = await renderPdfPage(await open(), page);
    if (rendered === "too slow") {
      await rememberFailure("render", subject, "time limit");
      throw tooSlow();
    }
    const jpeg = rendered;
    if (jpeg && jpeg.length <= PREVIEW_MAX_BYTES) await keep(key, fileKey, who.owner, jpeg);
    return jpeg;
  } finally {
    await turn.release();
  }
}

const tooSlow = () => new DomainError("not_found", "labs.pageTooSlow");

/**
 * Room in the cache for one more preview of `fileKey` (of `owner`): the oldest previews of the file,
 * then of the owner, go until one of the largest size fits under each quota.
 */
async function makeRoom(owner: string, fileKey: string): Promise<void> {
  for (const [where, quota] of [
    [eq(previewCache.fileKey, fileKey), config().previewFileBytes],
    [eq(previewCache.owner, owner), config().previewProfileBytes],
  ] as const) {
    const entries = await db()
      .select({ key: previewCache.key, bytes: previewCache.bytes })
      .from(previewCache)
      .where(where)
      .orderBy(desc(previewCache.createdAt), desc(previewCache.key));
    let used = 0;
    const drop: string[] = [];
    for (const e of entries) {
      if (used + e.bytes + PREVIEW_MAX_BYTES > quota) drop.push(e.key);
      else used += e.bytes;
    }
    if (drop.length) {
      await Promise.all(drop.map((k) => deleteStored(k).catch(() => {})));
      await db().delete(previewCache).where(inArray(previewCache.key, drop));
      log("info", "page previews let go for room", { dropped: drop.length });
    }
  }
}

async function keep(key: string, fileKey: string, owner: string, jpeg: Buffer): Promise<void> {
  try {
    await db()
      .insert(previewCache)
      .values({ key, fileKey, owner, bytes: jpeg.length, createdAt: new Date() })
      .onConflictDoNothing();
    await storeUpload(
      (async function* () {
        yield jpeg;
      })(),
      { maxBytes: PREVIEW_MAX_BYTES, allowed: "image", fileName: "page.jpg", key },
    );
  } catch (err) {
    await db()
      .delete(previewCache)
      .where(eq(previewCache.key, key))
      .catch(() => {});
    log("warn", "page preview not cached", { error: String((err as Error)?.message ?? err) });
  }
}

/**
 * Renders one page (no cache): null when the PDF has no such page or pdftoppm refuses it, "too slow"
 * when it ran into its time, memory or CPU limit (a page built to take the machine).
 */
async function renderPdfPage(pdf: Readable, page: number): Promise<Buffer | null | "too slow"> {
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
        limits: { timeoutMs: config().previewRenderMs, memoryBytes: 512 * 1024 * 1024 },
        scratch,
      }).then(() => undefined);
    } catch (err) {
      // pdftoppm refuses a page past the end (exit 99) and a damaged file alike: nothing to show.
      if (err instanceof ProgramFailed) return null;
      // Over its time or memory limit (a page built to take the machine): not shown, and remembered.
      if (err instanceof ProgramStopped && err.reason !== "not installed" && err.reason !== "interrupted")
        return "too slow";
      throw err;
    }
    return readFile(join(scratch.dir, "page.jpg")).catch(() => null);
  });
}
