import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import path from "node:path";
import { BUILD_DIR } from "../helpers/server";

/**
 * A second release of the app for an update test: the same build with a service worker of other
 * bytes (a new precache revision, scripts/build-sw.mjs with SW_BUILD_TAG). It lives inside the
 * repository, so its server finds node_modules as the build's does; the caller removes it.
 */
export function secondRelease(tag: string): string {
  mkdirSync("test-results", { recursive: true });
  const dir = mkdtempSync(path.resolve("test-results", "offline-second-build-"));
  cpSync(BUILD_DIR, dir, { recursive: true, filter: (src) => !src.includes(".compressed") });
  execFileSync(process.execPath, ["scripts/build-sw.mjs"], {
    env: { ...process.env, BUILD_DIR: dir, SW_BUILD_TAG: tag },
    stdio: "pipe",
  });
  return dir;
}

/** The precache revision of the offline screen in a build's service worker. */
export function offlineRevision(dir: string): string {
  return /\/offline\?lng=en",revision:"([0-9a-f]+)"/.exec(
    readFileSync(path.join(dir, "client/sw.js"), "utf8"),
  )![1];
}
