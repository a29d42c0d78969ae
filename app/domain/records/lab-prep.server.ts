import { join } from "node:path";
import { besideTheBuild } from "~/lib/beside-build.server";
import { runProgram, type Scratch } from "~/lib/programs.server";

/**
 * A photo or scan made ready for Tesseract (decision 0082): the pixel work (lab-pixels.ts) runs in
 * a child Node process started by path (lab-clean.child.ts; built as lab-clean.mjs) through the
 * one door (decision 0086), so it never holds the server's event loop and a hostile image can only
 * take its own child.
 */

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
    operands: [besideTheBuild(import.meta.url, "lab-clean.mjs", "lab-clean.child.ts"), input, file],
    limits: { timeoutMs },
    scratch,
  });
  return { file, ...(JSON.parse(out.toString("utf8")) as { angle: number; cv: number; inkShare: number }) };
}
