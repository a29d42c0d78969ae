import Database from "better-sqlite3";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api";
import { startServer } from "../helpers/server";

/*
 * Starting a new version on an existing database (decision 0070), through the built server: a
 * database another version migrated further is refused with what to do; a database with data and
 * migrations to apply is copied first (DATA_DIR/backups/pre-upgrade-…, restorable), and when that
 * copy cannot be made nothing is migrated and the start says why.
 */

const tmp = mkdtempSync(path.join(os.tmpdir(), "cb-upgrade-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const admin = { ADMIN_EMAIL: "admin@u.test", ADMIN_PASSWORD: "Admin-pass-123", RATE_LIMIT_DISABLED: "1" };
const journal = JSON.parse(readFileSync("drizzle/sqlite/meta/_journal.json", "utf8")) as {
  entries: { tag: string; when: number }[];
};
const last = journal.entries.at(-1)!;

/** A clinic on SQLite with an admin in it, stopped; returns its root and database file. */
async function clinic(name: string) {
  const root = mkdtempSync(path.join(tmp, `${name}-`));
  const env = { ...admin, DATABASE_URL: path.join(root, "data", "app.db"), STORAGE_URL: "" };
  const s = await startServer(env, { root, keep: true });
  await s.stop();
  return { root, env, file: env.DATABASE_URL, dataDir: s.dataDir };
}

/** The database as the version before the newest migration left it: that migration undone. */
function undoLastMigration(file: string) {
  const db = new Database(file);
  const sql = readFileSync(`drizzle/sqlite/${last.tag}.sql`, "utf8");
  for (const [, table] of sql.matchAll(/CREATE TABLE `([^`]+)`/g)) db.exec(`DROP TABLE IF EXISTS "${table}"`);
  for (const [, table, column] of sql.matchAll(/ALTER TABLE `([^`]+)` ADD `([^`]+)`/g))
    db.exec(`ALTER TABLE "${table}" DROP COLUMN "${column}"`);
  db.prepare("DELETE FROM __drizzle_migrations WHERE created_at = ?").run(last.when);
  const n = (db.prepare("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n;
  db.close();
  return n;
}

const migrations = (file: string) => {
  const db = new Database(file, { readonly: true });
  const n = (db.prepare("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n;
  db.close();
  return n;
};

describe("a new version on an existing database", () => {
  it("a database a newer version migrated is refused at start, unchanged", { timeout: 90_000 }, async () => {
    const c = await clinic("newer");
    const db = new Database(c.file);
    db.prepare("INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('from-the-future', ?)").run(
      last.when + 86_400_000,
    );
    db.close();
    const before = migrations(c.file);
    await expect(startServer(c.env, { root: c.root, keep: true })).rejects.toThrow(
      /migrated by a newer version of CareBridge than this one \(1 migration\(s\) this version does not know/,
    );
    expect(migrations(c.file)).toBe(before);
    expect(existsSync(path.join(c.dataDir, "backups"))).toBe(false);
  });

  it(
    "migrations to apply: the database is copied first, then migrated; the data is there",
    { timeout: 90_000 },
    async () => {
      const c = await clinic("upgrade");
      const applied = undoLastMigration(c.file);
      const s = await startServer(c.env, { root: c.root, keep: true });
      try {
        const login = await apiClient(s.url).post("/auth/login", {
          email: admin.ADMIN_EMAIL,
          password: admin.ADMIN_PASSWORD,
        });
        expect(login.status).toBe(200);
      } finally {
        await s.stop();
      }
      expect(migrations(c.file)).toBe(applied + 1);
      const copies = readdirSync(path.join(c.dataDir, "backups")).filter((n) => n.startsWith("pre-upgrade-"));
      expect(copies).toHaveLength(1);
      const copy = path.join(c.dataDir, "backups", copies[0]);
      expect(JSON.parse(readFileSync(path.join(copy, "manifest.json"), "utf8"))).toMatchObject({
        database: "sqlite",
        preUpgrade: true,
        pendingMigrations: 1,
      });
      // The copy is the database as it was: the older version's migrations, the same accounts.
      const old = new Database(path.join(copy, "app.db"), { readonly: true });
      expect((old.prepare("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n).toBe(
        applied,
      );
      expect(old.prepare("SELECT email FROM users WHERE email = ?").get(admin.ADMIN_EMAIL)).toBeTruthy();
      old.close();
    },
  );

  it(
    "when the copy cannot be made nothing is migrated and the start says why",
    { timeout: 90_000 },
    async () => {
      const c = await clinic("no-copy");
      const applied = undoLastMigration(c.file);
      rmSync(path.join(c.dataDir, "backups"), { recursive: true, force: true });
      writeFileSync(path.join(c.dataDir, "backups"), "not a folder"); // the copy's folder cannot be made
      await expect(startServer(c.env, { root: c.root, keep: true })).rejects.toThrow(
        /Refusing to apply 1 database migration\(s\): the backup taken first failed/,
      );
      expect(migrations(c.file)).toBe(applied);
    },
  );
});
