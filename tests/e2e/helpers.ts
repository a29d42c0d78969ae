import type { Locator, Page, TestInfo } from "@playwright/test";
import { mkdirSync } from "node:fs";
import path from "node:path";

/**
 * Screenshots for people to look at check nothing, so they are taken only when asked for:
 * `SHOTS=1 npx playwright test …`. They go under test-results/screens/<project>/.
 */
export const SHOTS_ON = process.env.SHOTS === "1";

/** Saves a full-page screenshot under test-results/screens/<project>/ for people to look at (SHOTS=1). */
export async function shot(page: Page, info: TestInfo, name: string) {
  if (!SHOTS_ON) return;
  const dir = path.join("test-results", "screens", info.project.name);
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });
}

/** Saves a screenshot of one element (or a whole page) at `file` for people to look at (SHOTS=1). */
export async function shotTo(target: Page | Locator, file: string) {
  if (!SHOTS_ON) return;
  mkdirSync(path.dirname(file), { recursive: true });
  await target.screenshot({ path: file, ...("goto" in target ? { fullPage: true } : {}) });
}
