import type { VitePluginConfig } from "@remix-run/dev";

/** Remix plugin options, used by vite.config.ts. */
const remixConfig: VitePluginConfig = {
  // BUILD_DIR lets parallel work trees/test runs keep separate builds (default: build/).
  buildDirectory: process.env.BUILD_DIR || "build",
  ignoredRouteFiles: ["**/.*", "**/*.test.*"],
  future: {
    v3_fetcherPersist: true,
    v3_relativeSplatPath: true,
    v3_throwAbortReason: true,
    v3_singleFetch: true,
    v3_lazyRouteDiscovery: true,
  },
};

export default remixConfig;
