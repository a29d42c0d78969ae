// Run after every install (postinstall, decision 0120): rewrites drizzle-orm's package.json
// `exports` map — 447 entries, 130 KB of its 180 KB — into the same map written with one subpath
// pattern. Node 24 parses a package's `exports` again each time its ESM resolver reads the package's
// scope, which it does for every module of the package: importing drizzle-orm's two drivers and two
// dialect cores from node_modules (the operator scripts, the tests' second processes) took 3.1–3.5 s
// of CPU in a fresh Node 24 process, and 0.7–0.9 s with the compact map.
//
// Only entries that are exactly what the pattern gives are folded into it; every other entry
// (the package's root and the folders with an index) stays as written. A child process then
// resolves every subpath the original map named, under `import` and `require`; if any target
// differs, or the check cannot run, the original map is put back with a warning. A speed-up never
// fails an install. Running it again on a compact map changes nothing.
import { spawnSync } from "node:child_process";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const PACKAGES = ["drizzle-orm"];

/** What the pattern "./*" gives for subpath `b`: the conditions in the package's own order. */
function byPattern(b) {
  return {
    import: { types: `./${b}.d.ts`, default: `./${b}.js` },
    require: { types: `./${b}.d.cts`, default: `./${b}.cjs` },
    types: `./${b}.d.ts`,
    default: `./${b}.js`,
  };
}

/** The same map, with every entry the pattern gives folded into "./*"; null when nothing folds. */
function compactExports(exportsMap) {
  if (!exportsMap || typeof exportsMap !== "object" || "./*" in exportsMap) return null;
  const kept = {};
  let folded = 0;
  for (const [key, target] of Object.entries(exportsMap)) {
    const sub = key.startsWith("./") ? key.slice(2) : null;
    if (sub && !sub.includes("*") && JSON.stringify(target) === JSON.stringify(byPattern(sub))) folded++;
    else kept[key] = target;
  }
  if (folded < 2) return null;
  return { ...kept, "./*": byPattern("*") };
}

/** Every subpath of the original map, resolved in a fresh process under `import` and `require`. */
function resolveAll(name, subpaths) {
  const probe = [
    'import { createRequire } from "node:module";',
    `const req = createRequire(${JSON.stringify(path.join(root, "package.json"))});`,
    "const out = {};",
    `for (const s of ${JSON.stringify(subpaths)}) {`,
    `  const spec = s === "." ? ${JSON.stringify(name)} : ${JSON.stringify(name)} + s.slice(1);`,
    "  const one = (f) => { try { return f(spec); } catch (e) { return `error ${e.code}`; } };",
    "  out[s] = [one((x) => import.meta.resolve(x)), one((x) => req.resolve(x))];",
    "}",
    "process.stdout.write(JSON.stringify(out));",
  ].join("\n");
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", probe], {
    cwd: root,
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`resolving it failed:\n${r.stderr}`);
  return JSON.parse(r.stdout);
}

/**
 * Writes `text` as the package's package.json: a new file put in its place, never a write into it,
 * as an install may share the file with other folders by hard links.
 */
function put(file, text) {
  writeFileSync(`${file}.compact`, text);
  renameSync(`${file}.compact`, file);
}

for (const name of PACKAGES) {
  const file = path.join(root, "node_modules", name, "package.json");
  let text;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    continue; // not installed (a partial install): nothing to do
  }
  const pkg = JSON.parse(text);
  const compact = compactExports(pkg.exports);
  if (!compact) continue;
  const subpaths = Object.keys(pkg.exports);
  try {
    const before = resolveAll(name, subpaths);
    put(file, JSON.stringify({ ...pkg, exports: compact }, null, 2) + "\n");
    const after = resolveAll(name, subpaths);
    const differ = subpaths.filter((s) => JSON.stringify(before[s]) !== JSON.stringify(after[s]));
    if (differ.length)
      throw new Error(`the compact map resolves differently (${differ.slice(0, 5).join(", ")})`);
    console.log(
      `compact-exports: ${name}: ${subpaths.length} exports in ${Object.keys(compact).length} entries, every subpath resolving as before`,
    );
  } catch (err) {
    put(file, text);
    console.warn(`compact-exports: ${name}: left as it was: ${err.message}`);
  }
}
