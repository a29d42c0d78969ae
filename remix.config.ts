import type { VitePluginConfig } from "@remix-run/dev";

/** Remix plugin options, used by vite.config.ts. */
const remixConfig: VitePluginConfig = {
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
