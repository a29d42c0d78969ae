import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runProgram, type Scratch } from "~/lib/programs.server";

/**
 * A photo or scan made ready for Tesseract (decision 0082): the pixel work (lab-pixels.ts) runs in
 * a child Node process started by path (lab-clean.child.ts; built as lab-clean.mjs) through the
 * one door (decision 0086), so it never holds the server's event loop and a hostile image can only
 * take its own child.
 */

/**
 * The child program's file: the build's bundle beside the server build (`<build>/lab-clean.mjs`,
 * whether this module runs from `<build>/server/index.js` or `<build>/main.js`), else the
 * TypeScript source (tests, the bench), which Node 24 runs as it is.
 */
let child: string | undefined;
function childProgram(): string {
  if (child) return child;
  const here = dirname(fileURLToPath(import.meta.url));
  const found = [
    join(here, "..", "lab-clean.mjs"),
    join(here, "lab-clean.mjs"),
    join(here, "lab-clean.child.ts"),
  ].find((f) => existsSync(f));
  if (!found) throw new Error("the page-cleaning program (lab-clean.mjs) is missing from the build");
  child = found;
  return found;
}

/**
 * Cleans `input` (JPEG, PNG or PGM) into a grey PGM in `scratch` in a child Node process (through the
 * one door: a data-segment limit besides the heap's, CPU and file-size limits); returns its path and the skew found.
 */
export async function preparePage(
  input: string,
  scratch: Scratch,
  timeoutMs: number,
): Promise<{ file: string; angle: number; cv: number; inkShare: number }> {
  const file = join(scratch.dir, "clean.pgm");
  const out = await runProgram("node", {
    options: ["--max-old-space-size=512", "--disable-warning=ExperimentalWarning"],
    operands: [childProgram(), input, file],
    limits: { timeoutMs },
    scratch,
  });
  return { file, ...(JSON.parse(out.toString("utf8")) as { angle: number; cv: number; inkShare: number }) };
}
