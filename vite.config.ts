/// <reference types="vitest/config" />
import { vitePlugin as remix } from "@remix-run/dev";
import tailwindcss from "@tailwindcss/vite";
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
    include: [
      "tests/unit/**/*.test.ts",
      "tests/domain/**/*.test.ts",
      "tests/integration/**/*.test.ts",
      "tests/load/**/*.test.ts",
      "tests/multinode/**/*.test.ts",
    ],
    // TEST_BACKEND=pg-s3: one PostgreSQL and one S3 server for the run (tests/helpers/global-backends.ts).
    globalSetup: ["tests/helpers/global-backends.ts"],
    // The pinned AWS SDK works on Node 20; its notice that later releases need Node 22 is known (decision 0010).
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    fileParallelism: true,
    maxWorkers: 2,
  },
}));
