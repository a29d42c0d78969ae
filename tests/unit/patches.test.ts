import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/*
 * A package patch must change the file that runs. Packages ship the same code twice, as CommonJS
 * and as ES modules; Node loads one, while the server build, which bundles some packages
 * (BUNDLED_PACKAGES in vite.config.ts, decision 0123), takes the other. A patch of a bundled
 * package that changes only one of the twins is lost in the build: the route-tree cache of
 * decision 0007 was, until both twins were patched.
 */

const PATCHES = path.resolve("patches");

/** The packages the server build bundles, as vite.config.ts lists them. */
function bundledPackages(): string[] {
  const config = readFileSync("vite.config.ts", "utf8");
  const list = /const BUNDLED_PACKAGES = \[([\s\S]*?)\];/.exec(config)?.[1];
  if (!list) throw new Error("vite.config.ts: BUNDLED_PACKAGES not found");
  return [...list.replace(/\/\/.*$/gm, "").matchAll(/"([^"]+)"/g)].map((m) => m[1]);
}

/** A patch file's package ("@remix-run+react+2.17.5.patch" → "@remix-run/react") and the files it changes. */
function patchOf(file: string): { pkg: string; files: string[] } {
  const parts = file.replace(/\.patch$/, "").split("+");
  const pkg = (parts[0].startsWith("@") ? parts.slice(0, 2) : parts.slice(0, 1)).join("/");
  const prefix = `a/node_modules/${pkg}/`;
  const files = [...readFileSync(path.join(PATCHES, file), "utf8").matchAll(/^diff --git (\S+) /gm)]
    .map((m) => m[1])
    .filter((f) => f.startsWith(prefix))
    .map((f) => f.slice(prefix.length));
  return { pkg, files };
}

/** The other form of a module file: dist/x.js ↔ dist/esm/x.js, x.js ↔ x.mjs. */
function twinsOf(file: string): string[] {
  if (!/\.m?js$/.test(file)) return [];
  if (file.endsWith(".mjs")) return [file.replace(/\.mjs$/, ".js")];
  const twins = [file.replace(/\.js$/, ".mjs")];
  const esm = /^(.*\/)?dist\/esm\/(.+)$/.exec(file);
  if (esm) twins.push(`${esm[1] ?? ""}dist/${esm[2]}`);
  else {
    const cjs = /^(.*\/)?dist\/(.+)$/.exec(file);
    if (cjs) twins.push(`${cjs[1] ?? ""}dist/esm/${cjs[2]}`);
  }
  return twins;
}

describe("package patches", () => {
  it("names each file's twins", () => {
    expect(twinsOf("dist/server.js")).toEqual(["dist/server.mjs", "dist/esm/server.js"]);
    expect(twinsOf("dist/esm/server.js")).toEqual(["dist/esm/server.mjs", "dist/server.js"]);
    expect(twinsOf("server.js")).toEqual(["server.mjs"]);
    expect(twinsOf("server.mjs")).toEqual(["server.js"]);
    expect(twinsOf("dist/components.d.ts")).toEqual([]);
  });

  it("change both forms of a module in the packages the server build bundles", () => {
    const bundled = new Set(bundledPackages());
    expect(bundled.has("@remix-run/react")).toBe(true);
    const missed: string[] = [];
    for (const file of readdirSync(PATCHES).filter((f) => f.endsWith(".patch"))) {
      const { pkg, files } = patchOf(file);
      if (!bundled.has(pkg)) continue;
      for (const changed of files)
        for (const twin of twinsOf(changed))
          if (existsSync(path.join("node_modules", pkg, twin)) && !files.includes(twin))
            missed.push(`${file}: changes ${changed} but not ${twin}`);
    }
    expect(missed).toEqual([]);
  });
});
