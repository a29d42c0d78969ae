import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// Decision 0054: the app, the tests and .ci/run run on Node 24 LTS, brought by `npm install` as the
// package `node`, whatever Node runs npm itself.
const root = path.resolve(__dirname, "../..");
const major = (v: string) => Number(/^v?(\d+)/.exec(v)?.[1]);

describe("the runtime (decision 0054)", () => {
  it("the tests run on Node 24 or later, the one in node_modules/.bin, as the pinned package says", () => {
    expect(major(process.version)).toBeGreaterThanOrEqual(24);
    const pinned = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).dependencies.node;
    expect(process.version).toBe(`v${pinned}`);
  });

  it("what npm start runs is that Node, and it opens a SQLite database and writes through it", () => {
    // `npm start` is `node ./build/main.js` with node_modules/.bin first on the PATH: ask npm's PATH
    // which node that is, and let it use the driver the app uses.
    const r = spawnSync(
      "npm",
      [
        "exec",
        "--",
        "node",
        "-e",
        "const D = require('better-sqlite3'); const db = new D(':memory:'); db.exec('create table t (x)');" +
          "db.prepare('insert into t values (?)').run(1); for (let i = 0; i < 2000; i++) db.prepare('select x from t').get();" +
          "globalThis.gc?.(); process.stdout.write(process.version + ' ' + db.prepare('select sqlite_version() v').get().v)",
      ],
      { cwd: root, encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "--expose-gc" } },
    );
    expect(r.stderr).not.toMatch(/Assertion failed/);
    expect(r.status).toBe(0);
    const [version] = r.stdout.trim().split(" ");
    expect(version).toBe(process.version);
  });
});
