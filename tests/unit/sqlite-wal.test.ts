import Database from "better-sqlite3";
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { closeDatabase, db } from "~/db/client.server";

// Decision 0060: the database file alone holds every committed row once the app has started
// and once it has stopped, so a copy of it taken then (by hand, the app stopped) loses nothing.
const rowsInFileAlone = (file: string) => {
  const copy = path.join(mkdtempSync(path.join(os.tmpdir(), "cb-wal-copy-")), "copy.db");
  copyFileSync(file, copy); // the database file only, not its -wal
  const c = new Database(copy, { readonly: true });
  try {
    return (c.prepare("select count(*) n from wal_probe").get() as { n: number }).n;
  } finally {
    c.close();
  }
};

describe("the write-ahead log (decision 0060)", () => {
  it("a process killed with rows only in its log: the next start moves them into the database file", async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), "cb-wal-")), "app.db");
    // Another process writes 200 rows with automatic checkpoints off and dies without closing.
    const child = spawnSync(
      process.execPath,
      [
        "-e",
        `const D = require('better-sqlite3'); const db = new D(${JSON.stringify(file)});
         db.pragma('journal_mode = WAL'); db.pragma('wal_autocheckpoint = 0');
         db.exec('create table wal_probe (x)');
         const ins = db.prepare('insert into wal_probe values (?)');
         for (let i = 0; i < 200; i++) ins.run(i);
         process.kill(process.pid, 'SIGKILL');`,
      ],
      { cwd: process.cwd() },
    );
    expect(child.signal).toBe("SIGKILL");
    expect(statSync(file + "-wal").size).toBeGreaterThan(0);
    expect(() => rowsInFileAlone(file)).toThrow(/no such table/);

    Object.assign(process.env, {
      DATABASE_URL: file,
      DATA_DIR: path.join(path.dirname(file), "data"),
      UPLOADS_DIR: path.join(path.dirname(file), "uploads"),
      LOG_LEVEL: "silent",
    });
    try {
      db(); // opens and migrates, as a start does
      expect(rowsInFileAlone(file)).toBe(200);
      expect(statSync(file + "-wal").size).toBe(0);
      await closeDatabase(); // as a shutdown does
      expect(!existsSync(file + "-wal") || statSync(file + "-wal").size === 0).toBe(true);
      expect(rowsInFileAlone(file)).toBe(200);
    } finally {
      await closeDatabase();
      delete process.env.DATABASE_URL;
    }
  });
});
