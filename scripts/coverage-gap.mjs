// Which functions of app/domain/** and app/db/** a set of test runs reached (decision 0077).
//
//   node scripts/coverage-gap.mjs map <out.json> <input>...
//   node scripts/coverage-gap.mjs gap <a.json> <b.json>      (reached by a, never by b)
//
// An <input> is either a NODE_V8_COVERAGE folder (raw V8 coverage of the spawned servers, built
// with source maps: `remix vite:build --sourcemapServer`; scripts run by tsx map through Node's
// source-map cache) or a coverage-final.json of @vitest/coverage-v8 with
// experimentalAstAwareRemapping (the in-process domain tests). Each function is named by the
// TypeScript parser (name, file, line; anonymous ones by the function they are in) and counted as
// reached when V8 saw it called. Uses typescript and @jridgewell/trace-mapping (Vite's) from
// node_modules. See docs/decisions/0077-coverage-evidence.md for the commands of a full run.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

function gap(fileA, fileB) {
  const [a, b] = [fileA, fileB].map((f) => JSON.parse(fs.readFileSync(f, "utf8")));
  const ra = new Set(Object.keys(a.reached));
  const rb = new Set(Object.keys(b.reached));
  const missing = [...ra].filter((k) => !rb.has(k)).sort();
  const both = [...ra].filter((k) => rb.has(k)).length;
  console.log(
    `reached by a: ${ra.size}; by b: ${rb.size}; by both: ${both}; by a only (the gap): ${missing.length}`,
  );
  const meta = new Map(a.all.map((f) => [`${f.file}|${f.line}|${f.name}`, f]));
  for (const k of missing) console.log(k + (meta.get(k)?.outer ? `  (in ${meta.get(k).outer})` : ""));
}
const [command, outFile, ...dirs] = process.argv.slice(2);
const repo = process.cwd();
if (command === "gap") {
  gap(outFile, dirs[0]);
  process.exit(0);
}
if (command !== "map" || !outFile || !dirs.length) {
  console.error("usage: coverage-gap.mjs map <out.json> <input>... | gap <a.json> <b.json>");
  process.exit(2);
}
const require = createRequire(path.join(repo, "package.json"));
const ts = require("typescript");
const { TraceMap, originalPositionFor } = require("@jridgewell/trace-mapping");

// ---- source functions
const srcFns = new Map(); // abs file -> [{name,line,start,end,pos}]
function walkDir(d) {
  for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    const p = path.join(d, e.name);
    if (e.isDirectory()) walkDir(p);
    else if (/\.tsx?$/.test(e.name)) enumerate(p);
  }
}
function fnName(n) {
  if (n.name && ts.isIdentifier(n.name)) return n.name.text;
  if (n.name) return n.name.getText();
  const p = n.parent;
  if (p && ts.isVariableDeclaration(p)) return p.name.getText();
  if (p && ts.isPropertyAssignment(p)) return p.name.getText();
  if (p && ts.isPropertyDeclaration(p)) return p.name.getText();
  if (ts.isConstructorDeclaration(n)) return "constructor";
  return null;
}
function enumerate(file) {
  const sf = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const list = [];
  const stack = [];
  function visit(n) {
    const isFn =
      ts.isFunctionDeclaration(n) ||
      ts.isMethodDeclaration(n) ||
      ts.isArrowFunction(n) ||
      ts.isFunctionExpression(n) ||
      ts.isConstructorDeclaration(n) ||
      ts.isGetAccessor(n) ||
      ts.isSetAccessor(n);
    if (isFn && n.body) {
      let name = fnName(n);
      const outer = stack.length ? stack[stack.length - 1] : null;
      const start = n.getStart(sf);
      const { line } = sf.getLineAndCharacterOfPosition(start);
      const named = name !== null;
      if (!named) name = `(anonymous in ${outer ? outer.name : "module"})`;
      const rec = {
        name,
        named,
        line: line + 1,
        start,
        end: n.end,
        outer: outer?.name ?? null,
        depth: stack.length,
      };
      list.push(rec);
      stack.push(rec);
      ts.forEachChild(n, visit);
      stack.pop();
      return;
    }
    ts.forEachChild(n, visit);
  }
  visit(sf);
  srcFns.set(file, { list, sf });
}
walkDir(path.join(repo, "app/domain"));
walkDir(path.join(repo, "app/db"));

function innermost(file, line0, col) {
  const e = srcFns.get(file);
  if (!e) return null;
  let pos;
  try {
    pos = e.sf.getPositionOfLineAndCharacter(line0, col);
  } catch {
    return null;
  }
  let best = null;
  for (const f of e.list) if (f.start <= pos && pos < f.end && (!best || f.depth > best.depth)) best = f;
  return best;
}

// ---- coverage
const reached = new Map(); // key file|line|name -> count
const seenScripts = new Map();
function lineStarts(src) {
  const a = [0];
  for (let i = 0; i < src.length; i++) if (src.charCodeAt(i) === 10) a.push(i + 1);
  return a;
}
function offToLC(starts, off) {
  let lo = 0,
    hi = starts.length - 1;
  while (lo < hi) {
    const m = (lo + hi + 1) >> 1;
    if (starts[m] <= off) lo = m;
    else hi = m - 1;
  }
  return { line: lo, col: off - starts[lo] };
}
const bundleCache = new Map();
function bundleFor(url) {
  if (bundleCache.has(url)) return bundleCache.get(url);
  let r = null;
  try {
    const file = fileURLToPath(url);
    if (fs.existsSync(file + ".map") && !/node_modules/.test(file)) {
      const src = fs.readFileSync(file, "utf8");
      r = {
        starts: lineStarts(src),
        map: new TraceMap(fs.readFileSync(file + ".map", "utf8")),
        dir: path.dirname(file),
      };
    }
  } catch {
    // not a file we can read: left unmapped
  }
  bundleCache.set(url, r);
  return r;
}
function record(absSrc, line0, col, count) {
  if (
    !absSrc.startsWith(path.join(repo, "app/domain") + "/") &&
    !absSrc.startsWith(path.join(repo, "app/db") + "/")
  )
    return;
  const f = innermost(absSrc, line0, col);
  if (!f) return;
  const key = `${path.relative(repo, absSrc)}|${f.line}|${f.name}`;
  if (!reached.has(key)) reached.set(key, 0);
  if (count > 0) reached.set(key, reached.get(key) + count);
  return f;
}
const nameCheck = { same: 0, differ: [] };
for (const dir of dirs) {
  if (dir.endsWith(".json")) {
    // istanbul coverage-final.json (from @vitest/coverage-v8)
    const cov = JSON.parse(fs.readFileSync(dir, "utf8"));
    for (const [file, fc] of Object.entries(cov))
      for (const [i, fn] of Object.entries(fc.fnMap)) {
        const st = fn.loc.start;
        record(file, st.line - 1, st.column, fc.f[i]);
      }
    continue;
  }
  for (const name of fs.readdirSync(dir)) {
    if (!name.endsWith(".json")) continue;
    const data = JSON.parse(fs.readFileSync(path.join(dir, name), "utf8"));
    const smc = data["source-map-cache"] || {};
    for (const script of data.result) {
      const url = script.url;
      if (!url.startsWith("file://")) continue;
      const b = bundleFor(url);
      const cached = smc[url];
      if (b) {
        for (const fn of script.functions) {
          const r0 = fn.ranges[0];
          if (r0.startOffset === 0 && fn.functionName === "") continue;
          const { line, col } = offToLC(b.starts, r0.startOffset);
          // search forward a little: the function's start may sit on "async"/"function" tokens without mapping
          let o = originalPositionFor(b.map, { line: line + 1, column: col, bias: 1 });
          if (!o.source) o = originalPositionFor(b.map, { line: line + 1, column: col, bias: -1 });
          if (!o.source) continue;
          const abs = path.resolve(b.dir, o.source);
          const f = record(abs, o.line - 1, o.column, r0.count);
          if (f && fn.functionName && f.named) {
            if (fn.functionName.replace(/\$\d+$/, "") === f.name) nameCheck.same++;
            else
              nameCheck.differ.push(`${fn.functionName} -> ${f.name}@${path.relative(repo, abs)}:${f.line}`);
          }
        }
      } else if (cached && cached.data) {
        const file = fileURLToPath(url);
        if (!file.startsWith(path.join(repo, "app") + "/")) continue;
        const lens = cached.lineLengths;
        const starts = [0];
        for (const l of lens) starts.push(starts[starts.length - 1] + l + 1);
        const map = new TraceMap(cached.data);
        for (const fn of script.functions) {
          const r0 = fn.ranges[0];
          if (r0.startOffset === 0) continue;
          const { line, col } = offToLC(starts, r0.startOffset);
          let o = originalPositionFor(map, { line: line + 1, column: col, bias: 1 });
          if (!o.source) o = originalPositionFor(map, { line: line + 1, column: col, bias: -1 });
          if (!o.source) continue;
          let abs = o.source.startsWith("file://")
            ? fileURLToPath(o.source)
            : path.isAbsolute(o.source)
              ? o.source
              : path.resolve(path.dirname(file), o.source);
          record(abs, o.line - 1, o.column, r0.count);
        }
      } else {
        const file = url.startsWith("file://") ? fileURLToPath(url) : url;
        if (file.startsWith(path.join(repo, "app") + "/"))
          seenScripts.set(url, (seenScripts.get(url) || 0) + 1);
      }
    }
  }
}
const all = [];
for (const [file, { list }] of srcFns)
  for (const f of list)
    all.push({ file: path.relative(repo, file), line: f.line, name: f.name, named: f.named, outer: f.outer });
const out = {
  nameCheck,
  all,
  reached: Object.fromEntries([...reached].filter(([, c]) => c > 0)),
  unmappedAppScripts: [...seenScripts.keys()],
};
fs.writeFileSync(outFile, JSON.stringify(out, null, 1));
console.log(
  `bundle name check: same ${nameCheck.same}, differ ${nameCheck.differ.length}`,
  nameCheck.differ.slice(0, 15),
);
console.log(
  `source functions: ${all.length}; reached: ${Object.keys(out.reached).length}; app scripts without maps: ${out.unmappedAppScripts.length}`,
);
