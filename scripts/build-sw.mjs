// Bundles the service worker (app/sw/sw.ts, decision 0066) into <BUILD_DIR>/client/sw.js, after the
// Remix client build: its precache list is every built /assets/* file (revision: a hash of its
// bytes) and the offline screen in each language (revision: a hash of the whole build, so a
// release re-fetches it). Workbox's own modules are bundled in; workbox-build is not used (it
// brings rollup and babel for what is a directory walk and a hash).
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const LOCALES = ["en", "hi", "bn", "ta"];
/** What the app shell needs offline: code, styles, fonts, and the little pictures the shell draws. */
const PRECACHED = new Set([".js", ".css", ".woff2", ".svg", ".png"]);

const outDir = path.resolve(process.env.BUILD_DIR || "build");
const clientDir = path.join(outDir, "client");
const assetsDir = path.join(clientDir, "assets");

const hash = (bytes) => createHash("sha256").update(bytes).digest("hex").slice(0, 16);

const assets = readdirSync(assetsDir, { withFileTypes: true })
  .filter((e) => e.isFile() && PRECACHED.has(path.extname(e.name).toLowerCase()))
  .map((e) => e.name)
  .sort();
const entries = assets.map((name) => ({
  url: `/assets/${name}`,
  revision: hash(readFileSync(path.join(assetsDir, name))),
}));
// The offline screen's HTML is drawn by the server build and names the assets: both go into its revision.
const release = createHash("sha256");
release.update(readFileSync(path.join(outDir, "server", "index.js")));
for (const e of entries) release.update(`${e.url} ${e.revision}\n`);
// SW_BUILD_TAG: a deployment's own mark, making a byte-different sw.js from the same sources.
if (process.env.SW_BUILD_TAG) release.update(process.env.SW_BUILD_TAG);
const releaseId = release.digest("hex").slice(0, 16);
for (const lng of LOCALES) entries.push({ url: `/offline?lng=${lng}`, revision: releaseId });
entries.push({ url: "/favicon.svg", revision: hash(readFileSync(path.join(clientDir, "favicon.svg"))) });

await build({
  entryPoints: ["app/sw/sw.ts"],
  outfile: path.join(clientDir, "sw.js"),
  bundle: true,
  platform: "browser",
  format: "iife",
  target: "es2020",
  minify: true,
  tsconfig: "tsconfig.json",
  define: {
    __PRECACHE_MANIFEST__: JSON.stringify(entries),
    // SW_DEBUG=1: Workbox's development build, which logs each routing decision in the worker's console.
    "process.env.NODE_ENV": process.env.SW_DEBUG ? '"development"' : '"production"',
  },
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
console.log(
  `service worker bundled into ${path.relative(process.cwd(), path.join(clientDir, "sw.js"))} (${entries.length} precached, release ${releaseId})`,
);
