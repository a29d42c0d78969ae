import { createWriteStream } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { run, ToolRefused } from "./lab-lines.server";

/** The highest page number a preview is asked for (the reader reads at most ten). */
export const MAX_PREVIEW_PAGE = 50;

/**
 * One page of a PDF as a JPEG (poppler's pdftoppm at 100 dpi, in a child process with a time and
 * memory limit), for the expert's "where was this value read" preview (decision 0084). Null when
 * the PDF has no such page.
 */
export async function renderPdfPage(pdf: Readable, page: number): Promise<Buffer | null> {
  const dir = await mkdtemp(join(tmpdir(), "pdfpage-"));
  try {
    const file = join(dir, "r.pdf");
    await pipeline(pdf, createWriteStream(file, { mode: 0o600 }));
    const p = String(page);
    // pdftoppm refuses a page past the end (exit 99) and a damaged file alike: nothing to show.
    const refused = await run(
      "pdftoppm",
      [
        "-q",
        "-f",
        p,
        "-l",
        p,
        "-r",
        "100",
        "-jpeg",
        "-jpegopt",
        "quality=80",
        "-singlefile",
        file,
        join(dir, "page"),
      ],
      { timeoutMs: 20_000 },
    ).then(
      () => false,
      (err: unknown) => {
        if (err instanceof ToolRefused) return true;
        throw err;
      },
    );
    if (refused) return null;
    return await readFile(join(dir, "page.jpg")).catch(() => null);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
