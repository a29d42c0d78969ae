// Bundles our production server (server/index.ts) into <BUILD_DIR>/main.js next to the Remix build.
// Packages stay external (node_modules); the app's own modules it needs (config, log) are bundled.
import { build } from "esbuild";
import path from "node:path";

const outDir = path.resolve(process.env.BUILD_DIR || "build");
// Bundled rather than loaded from node_modules at each start (decision 0123): the phone metadata
// the config checks a country against; the server build bundles its own copy (vite.config.ts).
const BUNDLED = new Set(["libphonenumber-js"]);
const packageOf = (spec) =>
  spec
    .split("/")
    .slice(0, spec.startsWith("@") ? 2 : 1)
    .join("/");
await build({
  entryPoints: ["server/index.ts"],
  outfile: path.join(outDir, "main.js"),
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  tsconfig: "tsconfig.json",
  plugins: [
    {
      // Every other package stays external, as `packages: "external"` would leave it.
      name: "external-packages",
      setup(b) {
        b.onResolve({ filter: /^[^./~]/ }, (args) =>
          BUNDLED.has(packageOf(args.path)) ? undefined : { path: args.path, external: true },
        );
      },
    },
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

// Programs and worker threads that run from a file of their own beside the server build, each found
// there by besideTheBuild (decision 0117): the lab reader's page-cleaning child, run by path through
// the one door (decisions 0082, 0086), the DICOM render threads (0056) and the password hasher (0009).
const besideTheBuild = {
  "lab-clean.mjs": "app/domain/records/lab-clean.child.ts",
  "render-worker.mjs": "app/domain/records/render.worker.ts",
  "hasher-worker.mjs": "app/domain/accounts/hasher.worker.ts",
};
for (const [file, entry] of Object.entries(besideTheBuild))
  await build({
    entryPoints: [entry],
    outfile: path.join(outDir, file),
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
