import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";

/** Every WCAG 2.x A/AA tag (2.0, 2.1, 2.2). */
export const WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"];

/**
 * axe's WCAG rules still marked experimental: a tag filter alone leaves them out, so they are
 * switched on by name. label-content-name-mismatch is WCAG 2.5.3 (label in name): a control's
 * accessible name must contain its visible text (such as the account menu's initials).
 */
export const EXPERIMENTAL_WCAG_RULES = [
  "label-content-name-mismatch",
  "css-orientation-lock",
  "p-as-heading",
  "table-fake-caption",
  "td-has-header",
];

/**
 * The project's one axe configuration: every e2e spec that runs axe builds it here. `experimental`
 * names the experimental rules to switch on (all of them unless a spec asks for fewer); label in
 * name is always among them.
 *
 * Legacy mode runs `axe.run` in the page itself (frames included, as axe does it); the default
 * mode runs each frame apart and then opens a blank page per analysis to join the results, which
 * took half of each analysis (0.9–1.3 s against 0.4–0.6 s per screen) for the same rules and the
 * same results: our screens have one same-origin frame at most (the report viewer).
 */
export function wcagAxe(page: Page, experimental: readonly string[] = EXPERIMENTAL_WCAG_RULES) {
  const rules = new Set(["label-content-name-mismatch", ...experimental]);
  return new AxeBuilder({ page })
    .options({ rules: Object.fromEntries([...rules].map((id) => [id, { enabled: true }])) })
    .withTags(WCAG_TAGS)
    .setLegacyMode(true);
}

/** The two widths every screen is checked at: the desktop project's and the phone project's. */
export const WIDTHS = [
  { width: 1280, height: 800 },
  { width: 360, height: 740 },
] as const;

/**
 * Runs `check` with the page at desktop width, then at phone width, and gives the page its size
 * back. A flow runs once, at the width its people use (decision 0053); the accessibility and
 * width checks inside it still see both widths.
 */
export function atBothWidths(page: Page, check: (width: number) => Promise<void>) {
  return atWidths(page, WIDTHS, check);
}

/** Runs `check` with the page at each of `sizes` in turn, and gives the page its size back. */
async function atWidths(
  page: Page,
  sizes: readonly (typeof WIDTHS)[number][],
  check: (width: number) => Promise<void>,
) {
  const original = page.viewportSize();
  try {
    for (const size of sizes) {
      await page.setViewportSize(size);
      await check(size.width);
    }
  } finally {
    if (original) await page.setViewportSize(original);
  }
}

/**
 * axe (as `wcagAxe` builds it) at both widths: the violations of each, the width named in the
 * rule id ("target-size @ 360 px"), so a spec reports them as it reported one width's.
 */
export function axeAtBothWidths(page: Page, experimental?: readonly string[]) {
  return axeAtWidths(page, WIDTHS, experimental);
}

/** axe at each of `sizes`, each violation's rule id naming its width. */
async function axeAtWidths(
  page: Page,
  sizes: readonly (typeof WIDTHS)[number][],
  experimental?: readonly string[],
) {
  const violations: Awaited<ReturnType<AxeBuilder["analyze"]>>["violations"] = [];
  await atWidths(page, sizes, async (width) => {
    const result = await wcagAxe(page, experimental).analyze();
    for (const v of result.violations) violations.push({ ...v, id: `${v.id} @ ${width} px` });
  });
  return { violations };
}

/**
 * The width each language's axe check runs at when a screen is checked in all four languages:
 * English and Tamil (the longest words) at the desktop's, Hindi and Bengali at the phone's
 * (languages.spec.ts measures every screen's width at the phone's in Hindi, Bengali and Tamil). What axe
 * finds that depends on the language (the page's lang; names and labels made of translated words)
 * does not depend on the width, and what depends on the width (target sizes, what the phone layout
 * hides) does not depend on the language: each language is seen once and each width twice, where
 * every language at both widths found nothing more (decision 0099).
 */
export const LANGUAGE_WIDTH: Record<string, (typeof WIDTHS)[number]> = {
  en: WIDTHS[0],
  ta: WIDTHS[0],
  hi: WIDTHS[1],
  bn: WIDTHS[1],
};

/**
 * axe (as `wcagAxe` builds it) on a page shown in `lng`, at that language's width (LANGUAGE_WIDTH);
 * the page gets its size back. Violations name the width in the rule id, as `axeAtBothWidths`'s do.
 */
export function axeAtItsWidth(page: Page, lng: string, experimental?: readonly string[]) {
  const size = LANGUAGE_WIDTH[lng];
  if (!size) throw new Error(`axeAtItsWidth: no width for the language ${lng}`);
  return axeAtWidths(page, [size], experimental);
}
