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

/**
 * The innermost elements that run past the layout viewport's right edge (not inside a box that
 * scrolls or clips them), named by tag, classes and text: what a too-wide screen's failure shows.
 */
export function pastTheEdge(page: Page) {
  return page.evaluate(() => {
    const edge = document.documentElement.clientWidth;
    const clipped = (el: Element) => {
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
        const o = getComputedStyle(p).overflowX;
        if (o !== "visible") return true;
      }
      return false;
    };
    const over = [...document.body.querySelectorAll("*")].filter(
      (el) =>
        el.getBoundingClientRect().right > edge + 0.5 &&
        !clipped(el) &&
        getComputedStyle(el).position !== "fixed",
    );
    return over
      .filter((el) => !over.some((o) => o !== el && el.contains(o)))
      .slice(0, 4)
      .map((el) => {
        const r = Math.round(el.getBoundingClientRect().right - edge);
        const cls = typeof el.className === "string" ? `.${el.className.trim().split(/\s+/).join(".")}` : "";
        return `<${el.tagName.toLowerCase()}${cls}> "${(el.textContent ?? "").trim().slice(0, 40)}" +${r} px`;
      })
      .join("; ");
  });
}

/**
 * How a page scrolls sideways, measured against the layout viewport (clientWidth; on a phone,
 * window.innerWidth grows with a page that is too wide, so it can never tell): "N px wider than the
 * screen" with what runs past the edge, or null when it fits.
 */
export async function sideways(page: Page): Promise<string | null> {
  const over = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  return over > 0 ? `${over} px wider than the screen: ${await pastTheEdge(page)}` : null;
}
