/// <reference types="vitest/config" />
import { vitePlugin as remix } from "@remix-run/dev";
import tailwindcss from "@tailwindcss/vite";
import { existsSync } from "node:fs";
import path from "node:path";
import type { Rollup } from "vite";
import { defineConfig } from "vite";
import tsconfigPaths from "vite-tsconfig-paths";
import remixConfig from "./remix.config";

declare module "@remix-run/node" {
  interface Future {
    v3_singleFetch: true;
  }
}

/**
 * How the browser's JavaScript is cut into files (decision 0094). Split by usage alone, every
 * screen fetched a dozen or two files of a few hundred bytes, each with its own headers and
 * compression frame (about 0.35 KB a file on the wire). Four groups instead:
 * - `framework`: React and Remix (the node_modules the root and the entry import), a file that
 *   changes only when they do;
 * - `shell`: the app modules the root route and the browser's entry import (header, footer, toasts,
 *   the translator, the error page), which every page loads;
 * - `offline`: the outbox a patient's or health worker's dashboard fetches after it shows, whose
 *   modules always come together (decision 0063);
 * - `commons`: app modules that at least COMMONS_MIN screens import, when all they import is app
 *   code or the framework (so no library such as zod rides along to screens that never use it).
 * Everything else — each screen, what a few share, what is fetched on demand — is split as ever.
 */
const APP = path.resolve("app") + path.sep;
const ROUTES = path.resolve("app/routes") + path.sep;
const SHELL_ROOTS = [path.resolve("app/root.tsx"), path.resolve("app/entry.client.tsx")];
const OFFLINE_ROOT = path.resolve("app/offline/dashboard-sync.client.ts");
const COMMONS_MIN = 5;
let groups: Map<string, string> | null = null;

function groupsOf({ getModuleInfo, getModuleIds }: Rollup.ManualChunkMeta): Map<string, string> {
  const found = new Map<string, string>();
  const take = (m: string, name: (m: string) => string | null) => {
    const group = name(m);
    if (found.has(m) || !group) return;
    const info = getModuleInfo(m);
    if (!info) return;
    found.set(m, group);
    for (const d of info.importedIds) take(d, name);
  };
  for (const root of SHELL_ROOTS)
    for (const d of getModuleInfo(root)?.importedIds ?? [])
      take(d, (m) => (m.startsWith(APP) ? "shell" : "framework"));
  for (const root of SHELL_ROOTS) found.delete(root);
  // The screens: route modules that draw something (resource routes have nothing in the browser).
  const screens = [...getModuleIds()].filter(
    (m) =>
      m.startsWith(ROUTES) && getModuleInfo(m)?.isEntry && getModuleInfo(m)?.exports?.includes("default"),
  );
  const usedBy = new Map<string, number>();
  for (const screen of screens) {
    const seen = new Set<string>();
    const walk = (m: string) => {
      if (seen.has(m) || !m.startsWith(APP)) return;
      seen.add(m);
      for (const d of getModuleInfo(m)?.importedIds ?? []) walk(d);
    };
    walk(screen);
    for (const m of seen) usedBy.set(m, (usedBy.get(m) ?? 0) + 1);
  }
  // The outbox's own modules: those nothing else imports, now or on demand (the sign-in fetches
  // the outbox's key code by itself, which stays a file of its own).
  const closure = (from: string, into = new Set<string>()) => {
    if (into.has(from) || !from.startsWith(APP)) return into;
    into.add(from);
    for (const d of getModuleInfo(from)?.importedIds ?? []) closure(d, into);
    return into;
  };
  const outbox = closure(OFFLINE_ROOT);
  const elsewhere = new Set<string>(usedBy.keys());
  for (const m of getModuleIds())
    if (!outbox.has(m))
      for (const d of getModuleInfo(m)?.dynamicallyImportedIds ?? [])
        if (d !== OFFLINE_ROOT) closure(d, elsewhere);
  for (const m of outbox) if (!elsewhere.has(m) && !found.has(m)) found.set(m, "offline");
  const plain = new Map<string, boolean>();
  const onlyAppAndFramework = (m: string, path: Set<string> = new Set()): boolean => {
    if (!m.startsWith(APP)) return found.get(m) === "framework";
    if (plain.has(m)) return plain.get(m)!;
    if (path.has(m)) return true;
    path.add(m);
    const result = (getModuleInfo(m)?.importedIds ?? []).every((d) => onlyAppAndFramework(d, path));
    plain.set(m, result);
    return result;
  };
  for (const [m, n] of usedBy)
    if (n >= COMMONS_MIN && !found.has(m) && !m.startsWith(ROUTES) && onlyAppAndFramework(m))
      found.set(m, "commons");
  return found;
}

function chunkOf(id: string, meta: Rollup.ManualChunkMeta): string | undefined {
  groups ??= groupsOf(meta);
  if (id.includes("vite/preload-helper")) return "shell";
  return groups.get(id);
}

/**
 * Packages bundled into the server build instead of loaded from node_modules at each start
 * (decisions 0111, 0123): Node's loader looks up the package scope of every one of their many
 * small files, which costs more than evaluating them (drizzle-orm's hundreds of modules each
 * looked up its 180 KB package.json). Only packages whose objects no external package shares: zod,
 * React and the Remix server runtime stay external, one copy of each in the process.
 */
const BUNDLED_PACKAGES = [
  "drizzle-orm",
  "libphonenumber-js",
  "rate-limiter-flexible",
  "file-type",
  "strtok3",
  "token-types",
  "uint8array-extras",
  "@tokenizer/inflate",
  "@tokenizer/token",
  "peek-readable",
  "@conform-to/react",
  "@conform-to/zod",
  "@conform-to/dom",
  // Remix's React side with React Router, which only the app imports; @remix-run/router and
  // @remix-run/server-runtime stay external, shared with @remix-run/node (one copy of each).
  "@remix-run/react",
  "react-router",
  "react-router-dom",
];

export default defineConfig(({ isSsrBuild }) => ({
  // Tests compile no style sheet: Tailwind's plugin stays out of Vitest's module pipeline.
  plugins: [!process.env.VITEST && remix(remixConfig), !process.env.VITEST && tailwindcss(), tsconfigPaths()],
  ssr: isSsrBuild ? { noExternal: BUNDLED_PACKAGES } : undefined,
  // The server build runs on Node 20 (top-level await: loading it waits for start-up); browsers get es2020.
  build: {
    target: isSsrBuild ? "node20" : "es2020",
    rollupOptions: isSsrBuild ? undefined : { output: { manualChunks: chunkOf } },
  },
  test: {
    // Settings here are shared by every project below (`extends: true`); each project names its files.
    // The pg-s3 project: one PostgreSQL and one S3 server for the run (tests/helpers/global-backends.ts).
    globalSetup: ["tests/helpers/global-backends.ts"],
    // The pinned AWS SDK works on Node 20; its notice that later releases need Node 22 is known (decision 0010).
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // drizzle-orm goes through Vitest's own pipeline (transformed once per run), as the server build
    // bundles it: loaded from node_modules, each of its hundreds of modules made Node parse the
    // package's 180 KB package.json again, a fifth of every test file's CPU (decision 0111).
    server: { deps: { inline: ["drizzle-orm"] } },
    fileParallelism: true,
    // One pool for every project of the run, so the SQLite and the PostgreSQL + S3 files share the
    // cores (decision 0026); four workers on two cores, as many files wait on clocks, calls and
    // child processes (decision 0099). VITEST_MAX_WORKERS overrides.
    maxWorkers: Number(process.env.VITEST_MAX_WORKERS) || 4,
    projects: selectedProjects(),
  },
}));

/**
 * The HTTP files that run again on PostgreSQL + S3: those whose behaviour is the database's or the
 * store's (decision 0053). Every SQL statement and store call lives in app/domain and app/db, which
 * tests/domain reaches directly on both backends; these files add what only a running server shows:
 * streaming and storage, coordination through the database between processes and requests, and
 * assertions that differ by backend. A domain function that only another HTTP file reached got a
 * domain test (the coverage evidence is in docs/decisions/0077-coverage-evidence.md).
 */
export const PG_S3_HTTP_FILES = [
  // streaming and storage
  "resumable",
  "dicom",
  "pacs",
  "voice-notes",
  "fhir-export",
  "centre-registration",
  "idempotency",
  "erasure",
  // coordination through the database
  "sms",
  "mail-outbox",
  "lab-upload-read",
  "lab-text-results",
  "fair-share",
  "ratelimit-http",
  "cursor-pagination",
  "strict-input",
  "sessions",
  // the opinion's next steps: reminders through the runner, the referral's code, the worklist
  "next-steps",
  "next-steps-referral",
  "step-reminders",
  // assertions that differ by backend
  "metrics",
  "tracing",
  "public",
  "accounts-hardening",
  "prometheus",
];

/**
 * The test projects. `sqlite` is unit, domain (tests/domain), HTTP (tests/integration), load and
 * multi-node tests on the default backend; `pg-s3` runs the domain suite and the HTTP files above
 * again on PostgreSQL + S3. TEST_BACKEND picks which: unset or `sqlite`
 * the SQLite project (`vitest run <file>` as ever), `pg-s3` the PostgreSQL + S3 project alone
 * (`npm run test:pg`), `all` both in one run (`npm test`). A new project is one more entry here.
 */
function selectedProjects() {
  const backend = process.env.TEST_BACKEND || "sqlite";
  const missing = PG_S3_HTTP_FILES.filter((f) => !existsSync(`tests/integration/${f}.test.ts`));
  if (missing.length)
    throw new Error(`PG_S3_HTTP_FILES names files that do not exist: ${missing.join(", ")}`);
  const projects = [
    {
      extends: true as const,
      test: {
        name: "sqlite",
        include: [
          "tests/unit/**/*.test.ts",
          "tests/domain/**/*.test.ts",
          "tests/integration/**/*.test.ts",
          "tests/load/**/*.test.ts",
          "tests/multinode/**/*.test.ts",
        ],
        env: { TEST_BACKEND: "sqlite" },
      },
    },
    {
      extends: true as const,
      test: {
        name: "pg-s3",
        include: [
          "tests/domain/**/*.test.ts",
          ...PG_S3_HTTP_FILES.map((f) => `tests/integration/${f}.test.ts`),
        ],
        env: { TEST_BACKEND: "pg-s3" },
      },
    },
  ];
  if (!["sqlite", "pg-s3", "all"].includes(backend))
    throw new Error(`TEST_BACKEND must be sqlite, pg-s3 or all (got "${backend}")`);
  return projects.filter((p) => backend === "all" || p.test.name === backend);
}
