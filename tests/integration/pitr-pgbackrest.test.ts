import { execFileSync } from "node:child_process";
import { chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import * as vitest from "vitest";
import { expect } from "vitest";
import { onlyWith, requireTool } from "../helpers/requires";
import { freePort } from "../helpers/server";

const { afterAll, describe, it } = onlyWith(requireTool("pgbackrest", "pgbackrest"), vitest);

/*
 * PostgreSQL to the minute (decision 0070): a throwaway PostgreSQL archiving its WAL with
 * pgBackRest, configured from ops/pgbackrest/ (paths and port rewritten), a full backup, one
 * upload's row, the time T, a second upload's row; restored to T into an empty data directory, the
 * first row is there and the second is not. pgBackRest and PostgreSQL run as the postgres user.
 */

const bin = (() => {
  const base = "/usr/lib/postgresql";
  const v = execFileSync("ls", [base]).toString().trim().split("\n").sort().reverse()[0];
  return path.join(base, v, "bin");
})();
const dir = mkdtempSync(path.join(os.tmpdir(), "cb-pitr-"));
const ids = ["-u", "-g"].map((f) => Number(execFileSync("id", [f, "postgres"]).toString().trim())) as [
  number,
  number,
];
chownSync(dir, ...ids);
const asPostgres = (exe: string, args: string[]) =>
  execFileSync("runuser", ["-u", "postgres", "--", exe, ...args], { stdio: "pipe" }).toString();
const running: string[] = [];
afterAll(() => {
  for (const data of running) {
    try {
      asPostgres(path.join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "-w", "stop"]);
    } catch {
      /* already stopped */
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

describe("pgBackRest point-in-time recovery", () => {
  it("restores to a moment between two uploads: the first is there, the second is not", async () => {
    const conf = path.join(dir, "pgbackrest.conf");
    const data = path.join(dir, "data");
    const port = await freePort();
    for (const d of ["repo", "log", "lock", "spool"]) {
      mkdirSync(path.join(dir, d));
      chownSync(path.join(dir, d), ...ids);
    }
    // The example configuration, with this test's folders and port.
    const example = readFileSync("ops/pgbackrest/pgbackrest.conf", "utf8")
      .replace(
        /^repo1-path=.*$/m,
        `repo1-path=${dir}/repo\nlog-path=${dir}/log\nlock-path=${dir}/lock\nspool-path=${dir}/spool`,
      )
      .replace(/^log-level-file=.*$/m, "log-level-file=off")
      .replace(/^log-level-console=.*$/m, "log-level-console=warn")
      .replace(/^pg1-path=.*$/m, `pg1-path=${data}\npg1-socket-path=${dir}`)
      .replace(/^pg1-port=.*$/m, `pg1-port=${port}`);
    writeFileSync(conf, example);
    chownSync(conf, ...ids);
    const archive = readFileSync("ops/pgbackrest/postgresql.conf.append", "utf8").replace(
      "pgbackrest --stanza",
      `pgbackrest --config=${conf} --stanza`,
    );
    const pgbackrest = (...args: string[]) =>
      asPostgres("/usr/bin/pgbackrest", [`--config=${conf}`, "--stanza=carebridge", ...args]);
    const start = (d: string, p: number) => {
      running.push(d);
      asPostgres(path.join(bin, "pg_ctl"), [
        "-D",
        d,
        "-l",
        `${d}.log`,
        "-w",
        "start",
        "-o",
        `-p ${p} -k ${dir} -c listen_addresses=127.0.0.1`,
      ]);
    };

    asPostgres(path.join(bin, "initdb"), ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync"]);
    writeFileSync(path.join(data, "postgresql.conf"), `\n${archive}`, { flag: "a" });
    start(data, port);
    const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
    await client.connect();
    await client.query("CREATE TABLE uploads (id serial PRIMARY KEY, file_key text NOT NULL)");
    pgbackrest("stanza-create");
    pgbackrest("check");
    pgbackrest("--type=full", "backup");
    // pgBackRest keeps a backup's stop time in whole seconds: the target must come after it.
    await new Promise((r) => setTimeout(r, 1100));

    await client.query("INSERT INTO uploads (file_key) VALUES ('first')");
    const t = (await client.query("SELECT now()::text AS t")).rows[0].t as string;
    await new Promise((r) => setTimeout(r, 1100)); // commit times are compared to the target
    await client.query("INSERT INTO uploads (file_key) VALUES ('second')");
    await client.query("SELECT pg_switch_wal()");
    pgbackrest("check"); // waits until the switched segment is archived
    await client.end();

    const data2 = path.join(dir, "data2");
    mkdirSync(data2, { mode: 0o700 });
    chownSync(data2, ...ids);
    pgbackrest(
      `--pg1-path=${data2}`,
      "--type=time",
      `--target=${t}`,
      "--target-action=promote",
      "--archive-mode=off",
      "restore",
    );
    const port2 = await freePort();
    start(data2, port2);
    const restored = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port2}/postgres` });
    await restored.connect();
    try {
      for (let i = 0; i < 100 && (await restored.query("SELECT pg_is_in_recovery() AS r")).rows[0].r; i++)
        await new Promise((r) => setTimeout(r, 100));
      const rows = (await restored.query("SELECT file_key FROM uploads ORDER BY id")).rows.map(
        (r) => r.file_key,
      );
      expect(rows).toEqual(["first"]);
    } finally {
      await restored.end();
    }
  }, 90_000);
});
