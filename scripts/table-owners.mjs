// Every table has one owner (decision 0096): the context that alone inserts, updates and deletes
// its rows, named on the context's "**Owns**:" line in docs/architecture.md. This check reads those
// lines, maps the schema's names (app/db/schema.sqlite.ts: `export const labValues =
// sqliteTable("lab_values", …)`) and, reading each module's TypeScript syntax tree, fails on any
// `.insert(T)`, `.update(T)` or `.delete(T)` call (over as many lines as it takes) or raw SQL write
// (`INSERT INTO t`, `UPDATE t`, `DELETE FROM t` in any string or template) of a
// table in a context that does not own it — in app/domain, or anywhere else in app/, server/ and
// scripts/ — except the writes listed in EXCEPTIONS, each with the decision that records why. It
// also fails on a table no context owns, or two claim. Run by `npm run lint`. With --count it
// prints, per table, the contexts that write it (the figure the decision quotes) and exits 0.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const countOnly = process.argv.includes("--count");

/** Writes outside a table's owner that a decision records: "table context" → the decision. */
export const EXCEPTIONS = new Map([
  [
    "patients accounts",
    "decision 0096: a signup creates her own profile; deletion removes the ones only she held",
  ],
  ["health_workers accounts", "decision 0096: a health worker's signup creates their pending row"],
  ["patient_consents accounts", "decision 0096: deletion blanks the recorder's name"],
  [
    "reports accounts",
    "decision 0096: deletion blanks an erased signer; an expert back in review loses claims",
  ],
  ["reports rights", "decision 0096: withdrawing review consent takes the waiting reports out"],
  ["upload_sessions rights", "decision 0096: withdrawing review consent ends the uploads under way"],
  ["share_links care", "decision 0096: ending a family member's access ends the links they made"],
  [
    "list_counts app/db",
    "decision 0096: a bulk load recounts the lists' counters for the rows it wrote past the app, one statement per dialect",
  ],
  // The benchmark's data set and its admin's session, made in bulk from outside the app.
  ["sessions scripts", "the benchmark signs its admin in by writing a session row (scripts/bench.ts)"],
  ["expert_profiles scripts", "the benchmark's data set (scripts/seed-bench.ts)"],
  ["expert_specialties scripts", "the benchmark's data set (scripts/seed-bench.ts)"],
  ["centres scripts", "the benchmark's data set (scripts/seed-bench.ts)"],
]);

// The schema's tables: identifier → SQL name.
const schema = readFileSync(path.join(root, "app/db/schema.sqlite.ts"), "utf8");
const tables = new Map(
  [...schema.matchAll(/export const (\w+) = sqliteTable\(\s*"(\w+)"/g)].map((m) => [m[1], m[2]]),
);

// The owners: each "### <context> — …" section's "**Owns**:" text names its tables.
const doc = readFileSync(path.join(root, "docs/architecture.md"), "utf8");
const owner = new Map();
const twice = [];
for (const section of doc.split(/\n(?=#{2,3} )/)) {
  const context = /^### (\w+) — /.exec(section)?.[1];
  if (!context) continue;
  for (const owns of section.matchAll(/^- \*\*Owns\*\*[^:\n]*:([\s\S]*?)(?=\n- \*\*|\n\n|(?![\s\S]))/gm))
    for (const m of owns[1].matchAll(/`([a-z_]+)`/g)) {
      if (![...tables.values()].includes(m[1])) continue;
      if (owner.has(m[1]) && owner.get(m[1]) !== context)
        twice.push(`${m[1]}: ${owner.get(m[1])} and ${context}`);
      owner.set(m[1], context);
    }
}

/** The context of a module: app/domain/<context>/…, else the top folder (app/web, scripts, server…). */
function contextOf(rel) {
  const parts = rel.split("/");
  if (parts[0] === "app" && parts[1] === "domain") return parts[2];
  if (parts[0] === "app") return `app/${parts[1].replace(/\..*$/, "")}`;
  return parts[0];
}

const files = [];
const walk = (dir) => {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    if (name === "node_modules") continue;
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (/\.(tsx?|mjs)$/.test(name)) files.push(p);
  }
};
for (const d of ["app", "server", "scripts"]) walk(path.join(root, d));

const sqlNames = new Set(tables.values());
/** A write in SQL text: `INSERT INTO t`, `UPDATE t`, `DELETE FROM t` (quoted or not). */
const RAW_WRITE = /\b(insert\s+into|update|delete\s+from)\s+"?([a-z_]+)"?/gi;

/**
 * Every write of a table in a module, read from its syntax tree (so a call over several lines is
 * one call): `.insert(T)`, `.update(T)`, `.delete(T)` of a schema table (`T` or `schema.T`), and
 * raw SQL in any string or template (`sql\`UPDATE t …\``, `client.query("DELETE FROM t")`).
 */
export function writesIn(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out = [];
  const at = (node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const visit = (node) => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      ["insert", "update", "delete"].includes(node.expression.name.text) &&
      node.arguments.length === 1
    ) {
      const arg = node.arguments[0];
      const id = ts.isIdentifier(arg) ? arg.text : ts.isPropertyAccessExpression(arg) ? arg.name.text : null;
      const table = id && tables.get(id);
      if (table) out.push({ verb: node.expression.name.text, table, line: at(node) });
    }
    const raw =
      ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)
        ? node.text
        : ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)
          ? node.text
          : null;
    if (raw)
      for (const m of raw.matchAll(RAW_WRITE))
        if (sqlNames.has(m[2]))
          out.push({ verb: m[1].split(/\s+/)[0].toLowerCase(), table: m[2], line: at(node), raw: true });
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** The check itself, when run as a program (the tests import `writesIn`). */
function main() {
  const writers = new Map(); // SQL name → Map(context → [places])
  const bad = [];
  for (const f of files) {
    const rel = path.relative(root, f);
    if (rel.startsWith("app/db/schema")) continue;
    for (const w of writesIn(f, readFileSync(f, "utf8"))) {
      const context = contextOf(rel);
      if (!writers.has(w.table)) writers.set(w.table, new Map());
      const byContext = writers.get(w.table);
      byContext.set(context, [...(byContext.get(context) ?? []), `${rel}:${w.line}`]);
      if (owner.get(w.table) !== context && !EXCEPTIONS.has(`${w.table} ${context}`))
        bad.push(
          `${rel}:${w.line}: ${w.verb}s ${w.table}${w.raw ? " (raw SQL)" : ""}, owned by ${owner.get(w.table) ?? "no context"}`,
        );
    }
  }

  if (countOnly) {
    const multi = [...writers].filter(([, c]) => c.size > 1);
    for (const [t, c] of multi.sort()) console.log(`${t}: ${[...c.keys()].join(", ")}`);
    console.log(`${writers.size} tables written; ${multi.length} from more than one context`);
    process.exit(0);
  }
  const unowned = [...tables.values()].filter((t) => !owner.has(t));
  const problems = [
    ...twice.map((t) => `claimed by two contexts: ${t}`),
    ...unowned.map((t) => `no context owns ${t} (name it on an "**Owns**:" line of docs/architecture.md)`),
    ...bad,
  ];
  if (problems.length) {
    console.error(
      "Each table is written by its owner only (decision 0096); call the owner's function instead:\n" +
        problems.map((p) => `  ${p}`).join("\n"),
    );
    process.exit(1);
  }
  console.log(`table owners: ${tables.size} tables, each written by its owner only`);
}
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
