import type { Page, TestInfo } from "@playwright/test";
import { mkdirSync } from "node:fs";
import path from "node:path";

/** Saves a full-page screenshot under test-results/screens/<project>/ for people to look at. */
export async function shot(page: Page, info: TestInfo, name: string) {
  const dir = path.join("test-results", "screens", info.project.name);
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });
}
