import { existsSync } from "node:fs";
import path from "node:path";

/*
 * Tests that need a real component (Kannel, Orthanc, Prometheus, restic, caddy, pgbackrest,
 * systemd-analyze…) say so with one call. Where the component is installed the tests run. Where it
 * is not, they are skipped on a developer's machine with one line naming the Debian package to
 * install — and under CI=true (what CI services set) a missing component fails the run instead,
 * so CI never passes by skipping. No test framework is imported here: the answer is a boolean, for
 * Vitest and Playwright alike.
 *
 *   // Vitest, a whole file (its top-level hooks included): shadow the suite functions.
 *   import * as vitest from "vitest";
 *   import { expect } from "vitest";
 *   import { onlyWith, requireTool } from "../helpers/requires";
 *   const { describe, it, beforeAll, afterAll } = onlyWith(requireTool("restic", "restic"), vitest);
 *
 *   // Vitest, one block or test:  describe.skipIf(!requireTool("caddy", "caddy"))("…", () => …)
 *   // Playwright, a whole file:   test.skip(!requireKannel(), "needs Kannel");
 */

const told = new Set<string>();

/**
 * Whether `command` is installed: each of `files` exists when given, else `command` is found on
 * PATH (or in /usr/sbin, /sbin, where Debian puts daemons). When it is missing: under CI=true this
 * throws (the file fails); elsewhere it prints, once per component, which package to install and
 * returns false.
 */
export function requireTool(command: string, debianPackage: string, files?: readonly string[]): boolean {
  const missing = files ? files.filter((f) => !existsSync(f)) : onPath(command) ? [] : [command];
  if (missing.length === 0) return true;
  const install = `apt-get install -y ${debianPackage}`;
  if (process.env.CI === "true" || process.env.CI === "1")
    throw new Error(
      `${missing.join(", ")} not found (CI=true: a missing component fails the run): ${install}`,
    );
  if (!told.has(command)) {
    told.add(command);
    console.warn(`skipping the tests that need ${command} (${missing.join(", ")} not found): ${install}`);
  }
  return false;
}

function onPath(command: string): boolean {
  const dirs = [...(process.env.PATH ?? "").split(path.delimiter), "/usr/sbin", "/sbin"];
  return dirs.some((d) => d && existsSync(path.join(d, command)));
}

/** Kannel's bearerbox, smsbox and the fake SMS centre (tests/helpers/kannel.ts). */
export const requireKannel = () =>
  requireTool("kannel", "kannel kannel-extras", [
    "/usr/sbin/bearerbox",
    "/usr/sbin/smsbox",
    "/usr/lib/kannel/test/fakesmsc",
  ]);

/** Orthanc with its DICOMweb plugin (tests/helpers/orthanc.ts). */
export const requireOrthanc = () =>
  requireTool("orthanc", "orthanc orthanc-dicomweb", [
    "/usr/sbin/Orthanc",
    "/usr/share/orthanc/plugins/libOrthancDicomWeb.so",
  ]);

/** promtool, from the prometheus package. */
export const requirePromtool = () => requireTool("promtool", "prometheus", ["/usr/bin/promtool"]);

/** A throwaway prometheus server (and promtool). */
export const requirePrometheus = () =>
  requireTool("prometheus", "prometheus", ["/usr/bin/prometheus", "/usr/bin/promtool"]);

type SuiteApi = {
  describe: any;
  it: any;
  test: any;
  beforeAll: any;
  afterAll: any;
  beforeEach: any;
  afterEach: any;
};

/**
 * Vitest's suite functions when `ok`, else ones that skip: every `describe`/`it`/`test` is reported
 * as skipped and the hooks (which would start the missing component) never run. Pass the vitest
 * module itself (`import * as vitest from "vitest"`), so this file stays free of any test framework.
 */
export function onlyWith<T extends SuiteApi>(ok: boolean, api: T): T {
  if (ok) return api;
  const never = () => {};
  return {
    ...api,
    describe: api.describe.skip,
    it: api.it.skip,
    test: api.test.skip,
    beforeAll: never,
    afterAll: never,
    beforeEach: never,
    afterEach: never,
  } as T;
}
