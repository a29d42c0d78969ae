// Lists import circles among app/ and server/ modules (relative and ~/ imports, type imports
// included — except a folder route's sections reading their own route.tsx's types; --values
// ignores every `import type`), and every import that runs back up a floor (FLOORS below,
// decision 0078). Exits 1 when there is one. Usage:
//   node scripts/import-cycles.mjs [--values]
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { FLOORS } from "./floors.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const valuesOnly = process.argv.includes("--values");

const files = [];
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (/\.tsx?$/.test(name)) files.push(p);
  }
};
walk(path.join(root, "app"));
walk(path.join(root, "server"));

function resolve(from, spec) {
  let base;
  if (spec.startsWith("~/")) base = path.join(root, "app", spec.slice(2));
  else if (spec.startsWith(".")) base = path.resolve(path.dirname(from), spec);
  else return null;
  for (const c of [
    base,
    `${base}.ts`,
    `${base}.tsx`,
    path.join(base, "index.ts"),
    path.join(base, "index.tsx"),
  ])
    if (existsSync(c) && statSync(c).isFile()) return c;
  return null;
}

const graph = new Map();
for (const f of files) {
  const deps = new Set();
  for (const m of readFileSync(f, "utf8").matchAll(
    /^\s*(import|export)\s+(type\s+)?[^;]*?from\s+"([^"]+)"/gms,
  )) {
    if (valuesOnly && m[2]) continue;
    const r = resolve(f, m[3]);
    // A folder route's sections read their route's types (`typeof loader`) while the route renders
    // the sections: a type-only import, erased when compiled, and the convention of decision 0028.
    if (r && m[2] && path.basename(r) === "route.tsx" && path.dirname(r) === path.dirname(f)) continue;
    if (r) deps.add(r);
  }
  graph.set(f, deps);
}

// Tarjan's strongly connected components: every component of more than one node is a circle.
function circlesOf(graph) {
  let next = 0;
  const stack = [];
  const onStack = new Set();
  const index = new Map();
  const low = new Map();
  const circles = [];
  function visit(v) {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const group = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) circles.push(group);
    }
  }
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return circles;
}

const circles = circlesOf(graph);
for (const c of circles) console.log(`circle: ${c.map((f) => path.relative(root, f)).join(" ↔ ")}`);
console.log(circles.length ? `${circles.length} import circle(s)` : "no import circles");

// The domain's contexts (app/domain/<context>/) as modules: a context depends on another when any
// of its files imports one of the other's (types included: a type names what it depends on). No
// circles between contexts, and platform, which every context uses, depends on none (decision 0053).
const domain = path.join(root, "app", "domain");
const contextOf = (f) =>
  f.startsWith(domain + path.sep) ? path.relative(domain, f).split(path.sep)[0] : null;
const contexts = new Map();
const why = new Map();
for (const [f, deps] of graph) {
  const from = contextOf(f);
  if (!from || from.includes(".")) continue;
  if (!contexts.has(from)) contexts.set(from, new Set());
  for (const d of deps) {
    const to = contextOf(d);
    if (!to || to === from || to.includes(".")) continue;
    contexts.get(from).add(to);
    if (!why.has(`${from}→${to}`))
      why.set(`${from}→${to}`, `${path.relative(root, f)} → ${path.relative(root, d)}`);
  }
}
const contextCircles = circlesOf(contexts);
for (const c of contextCircles) {
  const inside = new Set(c);
  console.log(`circle between contexts: ${c.join(" ↔ ")}`);
  for (const [from, tos] of contexts)
    for (const to of tos)
      if (inside.has(from) && inside.has(to))
        console.log(`  ${from}→${to}: e.g. ${why.get(`${from}→${to}`)}`);
}
const platformDeps = [...(contexts.get("platform") ?? [])];
for (const to of platformDeps) console.log(`platform depends on ${to}: e.g. ${why.get(`platform→${to}`)}`);
console.log(
  contextCircles.length
    ? `${contextCircles.length} circle(s) between domain contexts`
    : "no circles between domain contexts",
);

// Every helper on its floor (decision 0078): a module imports only from its own room or a room on
// a lower floor. A room is a folder of app/ (app/lib, app/web…) or a file at its top (config,
// budgets…); server/ is one room. A new folder must be given its floor here.

const floorOf = new Map(FLOORS.flatMap((rooms, i) => rooms.map((r) => [r, i])));
const roomOf = (f) => {
  const parts = path.relative(root, f).split(path.sep);
  if (parts[0] === "server") return "server";
  return parts.length > 2 ? parts[1] : parts[1].split(".")[0];
};
let upArrows = 0;
const unplaced = new Set();
for (const [f, deps] of graph) {
  const from = roomOf(f);
  if (!floorOf.has(from)) unplaced.add(from);
  for (const d of deps) {
    const to = roomOf(d);
    if (to === from || !floorOf.has(from) || !floorOf.has(to)) continue;
    if (floorOf.get(to) > floorOf.get(from)) {
      upArrows++;
      console.log(`up a floor: ${path.relative(root, f)} (${from}) → ${path.relative(root, d)} (${to})`);
    }
  }
}
for (const r of unplaced)
  console.log(`room without a floor: app/${r} — add it to FLOORS in scripts/import-cycles.mjs`);
console.log(upArrows ? `${upArrows} import(s) up a floor` : "no import runs up a floor");
process.exitCode =
  circles.length || contextCircles.length || platformDeps.length || upArrows || unplaced.size ? 1 : 0;
