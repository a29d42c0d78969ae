import { existsSync } from "node:fs";

/**
 * The browser the tests drive (decision 0119): Debian's Chromium headless shell when it is
 * installed — the same Blink and V8 without the full browser's own windows and WebUI pages, as
 * Playwright itself prefers for headless runs — else Debian's Chromium. CHROMIUM_PATH overrides.
 */
export const CHROMIUM_PATH =
  process.env.CHROMIUM_PATH ??
  (existsSync("/usr/bin/chromium-headless-shell") ? "/usr/bin/chromium-headless-shell" : "/usr/bin/chromium");
