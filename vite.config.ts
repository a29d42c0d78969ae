/// <reference types="vitest/config" />
import { vitePlugin as remix } from "@remix-run/dev";
import tailwindcss from "@tailwindcss/vite";
import { existsSync } from "node:fs";
import { defineConfig } from "vite";
import tsconfigPaths from "vite-tsconfig-paths";
import remixConfig from "./remix.config";

declare module "@remix-run/node" {
  interface Future {
    v3_singleFetch: true;
  }
}

export default defineConfig(({ isSsrBuild }) => ({
  plugins: [!process.env.VITEST && remix(remixConfig), tailwindcss(), tsconfigPaths()],
  // The server build runs on Node 20 (top-level await: loading it waits for start-up); browsers get es2020.
  build: { target: isSsrBuild ? "node20" : "es2020" },
  test: {
    // Settings here are shared by every project below (`extends: true`); each project names its files.
    // The pg-s3 project: one PostgreSQL and one S3 server for the run (tests/helpers/global-backends.ts).
    globalSetup: ["tests/helpers/global-backends.ts"],
    // The pinned AWS SDK works on Node 20; its notice that later releases need Node 22 is known (decision 0010).
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    fileParallelism: true,
    // One pool for every project of the run, so the SQLite and the PostgreSQL + S3 files share the
    // cores (decision 0026). VITEST_MAX_WORKERS overrides.
    maxWorkers: Number(process.env.VITEST_MAX_WORKERS) || 2,
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
  "ratelimit-http",
  "cursor-pagination",
  "strict-input",
  "sessions",
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
