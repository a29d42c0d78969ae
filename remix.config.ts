import type { VitePluginConfig } from "@remix-run/dev";
import { routeManifest } from "./routes.areas";

/** Remix plugin options, used by vite.config.ts. */
const remixConfig: VitePluginConfig = {
  // BUILD_DIR lets parallel work trees/test runs keep separate builds (default: build/).
  buildDirectory: process.env.BUILD_DIR || "build",
  // Routes by area (decision 0116): the convention's own reading of app/routes is off, and
  // routes.areas.ts gives Remix the same manifest from the flat names in area folders.
  ignoredRouteFiles: ["**/*"],
  routes: async () => routeManifest(),
  future: {
    v3_fetcherPersist: true,
    v3_relativeSplatPath: true,
    v3_throwAbortReason: true,
    v3_singleFetch: true,
    v3_lazyRouteDiscovery: true,
  },
};

export default remixConfig;
