/**
 * The experiment behind decision 0042: the pending page's statement, as a bench run recorded it
 * (its `--plans`), prepared twice on a fresh PostgreSQL with 100,000 reports — with LIMIT/OFFSET as
 * parameters and with them written in — and executed 300 times each; prints the time per
 * execution, pg_prepared_statements' generic/custom plan counts and the plan.
 *
 *   npx tsx scripts/plan-cache-experiment.ts bench/results/bench-<time>.json
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import pg from "pg";
import { startPostgres } from "../tests/helpers/backends";

const bench = JSON.parse(readFileSync(process.argv[2], "utf8"));
const q = bench.postgres.datasets[0].plans.queries.find((x: any) => x.name === "pending reports (Expert)");
const st = q.statements[1];
const root = mkdtempSync(path.join(os.tmpdir(), "exp-"));
const pgs = await startPostgres();
const url = await pgs.createDatabase("exp");
const env = {
  ...process.env,
  DATA_DIR: path.join(root, "data"),
  UPLOADS_DIR: path.join(root, "up"),
  LOG_LEVEL: "silent",
  DATABASE_URL: url,
  STORAGE_URL: "",
  SESSION_SECRET: randomBytes(32).toString("hex"),
  ENCRYPTION_KEY: randomBytes(32).toString("hex"),
};
const r = spawnSync(
  process.execPath,
  [path.resolve("node_modules/tsx/dist/cli.mjs"), "scripts/seed-bench.ts", "--reports", "100000"],
  { env, encoding: "utf8" },
);
if (r.status !== 0) throw new Error(r.stderr);
const c = new pg.Client({ connectionString: url });
await c.connect();
await c.query("VACUUM (ANALYZE)");
console.log("params", JSON.stringify(st.params));
async function time(name: string, text: string, params: unknown[]) {
  for (let i = 0; i < 20; i++) await c.query({ name, text, values: params });
  const t0 = performance.now();
  for (let i = 0; i < 300; i++) await c.query({ name, text, values: params });
  const ms = (performance.now() - t0) / 300;
  const pc = await c.query("select generic_plans, custom_plans from pg_prepared_statements where name = $1", [
    name,
  ]);
  const ex = await c.query(
    `explain (analyze, buffers) execute ${name}(${params.map((p) => (typeof p === "number" ? p : `'${p}'`)).join(",")})`,
  );
  console.log(
    name,
    ms.toFixed(3),
    "ms/exec",
    JSON.stringify(pc.rows[0]),
    ex.rows
      .map((x: any) => x["QUERY PLAN"])
      .filter((l: string) => /Planning|Execution|Limit|Sort|Scan/.test(l))
      .slice(0, 8)
      .join(" | "),
  );
}
await time("a_param", st.sql, st.params);
// limit & offset as constants
const lim = st.params[st.params.length - 2],
  off = st.params[st.params.length - 1];
const n = st.params.length;
const text2 = st.sql.replace(`limit $${n - 1} offset $${n}`, `limit ${lim} offset ${off}`);
await time("b_const", text2, st.params.slice(0, n - 2));
await c.end();
await pgs.stop();
