// Bundles our production server (server/index.ts) into <BUILD_DIR>/main.js next to the Remix build.
// Packages stay external (node_modules); the app's own modules it needs (config, log) are bundled.
import { build } from "esbuild";
import path from "node:path";

const outDir = path.resolve(process.env.BUILD_DIR || "build");
await build({
  entryPoints: ["server/index.ts"],
  outfile: path.join(outDir, "main.js"),
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  tsconfig: "tsconfig.json",
  plugins: [
    {
      // `~/x` is the app folder (tsconfig paths), not a package.
      name: "app-alias",
      setup(b) {
        b.onResolve({ filter: /^~\// }, (args) =>
          b.resolve("./" + args.path.slice(2), { resolveDir: path.resolve("app"), kind: args.kind }),
        );
      },
    },
  ],
  sourcemap: false,
  logLevel: "warning",
});
console.log(`server bundled into ${path.relative(process.cwd(), path.join(outDir, "main.js"))}`);

// The lab reader's page-cleaning child, a program run by path through the one door (decisions 0082,
// 0086): <BUILD_DIR>/lab-clean.mjs, found by lab-prep.server.ts beside the server build.
await build({
  entryPoints: ["app/domain/records/lab-clean.child.ts"],
  outfile: path.join(outDir, "lab-clean.mjs"),
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  sourcemap: false,
  logLevel: "warning",
});

// The service worker, with the precache list of this build's client files (decision 0066).
await import("./build-sw.mjs");
