import Database from "better-sqlite3";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { startPostgres, type Postgres } from "../helpers/backends";

/*
 * Upgrades never lose a row (decision 0070): for every earlier migration, a database built up to it
 * gets one row in every table it has (values made from each column's type; foreign keys pointing
 * at the referenced table's row), is migrated to today's schema by the release's migrations, and
 * must still hold every row with every column that still exists unchanged. Generic by design: a
 * new migration is covered without touching this file. SQLite and PostgreSQL.
 */

type Entry = { idx: number; when: number; tag: string };
const journalOf = (dir: string) =>
  (JSON.parse(readFileSync(path.join(dir, "meta/_journal.json"), "utf8")) as { entries: Entry[] }).entries;
const statements = (dir: string, tag: string) => {
  const sql = readFileSync(path.join(dir, `${tag}.sql`), "utf8");
  return { sql, parts: sql.split("--> statement-breakpoint").filter((s) => s.trim()) };
};
/** A stable 24-hex key per table, so a foreign key can name the row before it is written. */
const keyOf = (table: string) => createHash("sha256").update(table).digest("hex").slice(0, 24);
const WHEN = 1_764_000_000_000;

type Rows = Map<string, Record<string, unknown>[]>;

function compare(
  before: Rows,
  after: (table: string) => Record<string, unknown>[] | null,
  pks: Map<string, string[]>,
) {
  const problems: string[] = [];
  for (const [table, rows] of before) {
    const now = after(table);
    if (!now) {
      problems.push(`${table}: table gone`);
      continue;
    }
    for (const row of rows) {
      const pk = pks.get(table)!;
      const match = now.find((r) => pk.every((c) => String(r[c]) === String(row[c])));
      if (!match) {
        problems.push(`${table}: row ${pk.map((c) => row[c]).join("/")} lost`);
        continue;
      }
      for (const [col, value] of Object.entries(row))
        if (col in match && JSON.stringify(match[col]) !== JSON.stringify(value))
          problems.push(`${table}.${col}: ${JSON.stringify(value)} became ${JSON.stringify(match[col])}`);
    }
  }
  return problems;
}

describe("every earlier SQLite database, with a row in every table, migrated to today", () => {
  const dir = path.resolve("drizzle/sqlite");
  const entries = journalOf(dir);

  it.each(entries.slice(0, -1).map((e) => [e.tag, e.idx] as const))("from %s", (_tag, upTo) => {
    const db = new Database(":memory:");
    db.pragma("foreign_keys = OFF");
    db.exec(
      "CREATE TABLE __drizzle_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, hash text NOT NULL, created_at numeric)",
    );
    for (const e of entries.slice(0, upTo + 1)) {
      const { sql, parts } = statements(dir, e.tag);
      for (const s of parts) db.exec(s);
      db.prepare("INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)").run(
        createHash("sha256").update(sql).digest("hex"),
        e.when,
      );
    }
    // A migration that rebuilds a table turns foreign keys back on at its end (0029); the rows below
    // name their referenced rows before those are written, as the app's migrator runs with them off.
    db.pragma("foreign_keys = OFF");
    const tables = (
      db
        .prepare(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != '__drizzle_migrations'",
        )
        .all() as { name: string }[]
    ).map((t) => t.name);
    const pks = new Map<string, string[]>();
    const before: Rows = new Map();
    for (const table of tables) {
      const cols = db.prepare(`PRAGMA table_info("${table}")`).all() as {
        name: string;
        type: string;
        pk: number;
      }[];
      const fks = new Map(
        (db.prepare(`PRAGMA foreign_key_list("${table}")`).all() as { from: string; table: string }[]).map(
          (f) => [f.from, f.table],
        ),
      );
      pks.set(
        table,
        cols.some((c) => c.pk) ? cols.filter((c) => c.pk).map((c) => c.name) : cols.map((c) => c.name),
      );
      const row: Record<string, unknown> = {};
      for (const c of cols) {
        const type = c.type.toLowerCase();
        if (fks.has(c.name)) row[c.name] = keyOf(fks.get(c.name)!);
        else if (c.pk && type === "text") row[c.name] = keyOf(table);
        else if (type.includes("int")) row[c.name] = /_at$|^at$|until|expires|slot/.test(c.name) ? WHEN : 1;
        else if (type === "real") row[c.name] = 1.5;
        else if (type === "blob") row[c.name] = Buffer.from([1, 2, 3]);
        else row[c.name] = `${c.name}-${upTo}`;
      }
      const names = Object.keys(row);
      db.prepare(
        `INSERT INTO "${table}" (${names.map((n) => `"${n}"`).join(", ")}) VALUES (${names.map(() => "?").join(", ")})`,
      ).run(...names.map((n) => row[n]));
      before.set(table, db.prepare(`SELECT * FROM "${table}"`).all() as Record<string, unknown>[]);
    }
    expect(tables.length).toBeGreaterThan(0);

    // The release's migrations, as the app applies them (foreign keys off around the migrator).
    migrate(drizzle(db), { migrationsFolder: dir });
    const applied = (db.prepare("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n;
    expect(applied).toBe(entries.length);
    const exists = (t: string) =>
      !!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(t);
    const problems = compare(
      before,
      (t) => (exists(t) ? (db.prepare(`SELECT * FROM "${t}"`).all() as Record<string, unknown>[]) : null),
      pks,
    );
    db.close();
    expect(problems).toEqual([]);
  });
});

describe("every earlier PostgreSQL database, with a row in every table, migrated to today", () => {
  const dir = path.resolve("drizzle/pg");
  const entries = journalOf(dir);
  let server: Postgres | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  it("from each of them", { timeout: 240_000 }, async () => {
    server = await startPostgres();
    const problems: string[] = [];
    for (const e of entries.slice(0, -1)) {
      const client = new pg.Client({ connectionString: await server.createDatabase() });
      await client.connect();
      try {
        problems.push(...(await pgRoundTrip(client, dir, entries, e.idx)).map((p) => `from ${e.tag}: ${p}`));
      } finally {
        await client.end();
      }
    }
    expect(problems).toEqual([]);
  });
});

async function pgRoundTrip(
  client: pg.Client,
  dir: string,
  entries: Entry[],
  upTo: number,
): Promise<string[]> {
  await client.query("CREATE SCHEMA drizzle");
  await client.query(
    "CREATE TABLE drizzle.__drizzle_migrations (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint)",
  );
  for (const e of entries.slice(0, upTo + 1)) {
    const { sql, parts } = statements(dir, e.tag);
    for (const s of parts) await client.query(s);
    await client.query("INSERT INTO drizzle.__drizzle_migrations (hash, created_at) VALUES ($1, $2)", [
      createHash("sha256").update(sql).digest("hex"),
      e.when,
    ]);
  }
  const tables = (
    await client.query<{ t: string }>(
      "SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
    )
  ).rows.map((r) => r.t);
  const pks = new Map<string, string[]>();
  const before: Rows = new Map();
  // Rows first with every reference unchecked, so no order among the tables is needed.
  await client.query("SET session_replication_role = replica");
  for (const table of tables) {
    const cols = (
      await client.query<{ c: string; type: string; udt: string }>(
        "SELECT column_name AS c, data_type AS type, udt_name AS udt FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position",
        [table],
      )
    ).rows;
    const fks = new Map(
      (
        await client.query<{ c: string; ref: string }>(
          `SELECT a.attname AS c, cl.relname AS ref FROM pg_constraint k
             JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = ANY (k.conkey)
             JOIN pg_class cl ON cl.oid = k.confrelid
           WHERE k.contype = 'f' AND k.conrelid = $1::regclass`,
          [`public."${table}"`],
        )
      ).rows.map((r) => [r.c, r.ref]),
    );
    const pk = (
      await client.query<{ c: string }>(
        `SELECT a.attname AS c FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
         WHERE i.indrelid = $1::regclass AND i.indisprimary`,
        [`public."${table}"`],
      )
    ).rows.map((r) => r.c);
    pks.set(table, pk.length ? pk : cols.map((c) => c.c));
    const row: Record<string, unknown> = {};
    for (const { c, type, udt } of cols) {
      if (fks.has(c)) row[c] = keyOf(fks.get(c)!);
      else if (pk.includes(c) && /char|text/.test(type)) row[c] = keyOf(table);
      else if (/int|numeric/.test(type)) row[c] = 1;
      else if (/double|real/.test(type)) row[c] = 1.5;
      else if (type === "boolean") row[c] = true;
      else if (/timestamp/.test(type)) row[c] = new Date(WHEN);
      else if (/json/.test(type)) row[c] = JSON.stringify({ v: upTo });
      else if (type === "bytea") row[c] = Buffer.from([1, 2, 3]);
      else if (type === "ARRAY") row[c] = [];
      else if (type === "USER-DEFINED")
        row[c] = (
          await client.query<{ l: string }>(
            "SELECT enumlabel AS l FROM pg_enum e JOIN pg_type t ON t.oid = e.enumtypid WHERE t.typname = $1 ORDER BY enumsortorder LIMIT 1",
            [udt],
          )
        ).rows[0]?.l;
      else row[c] = `${c}-${upTo}`;
    }
    const names = Object.keys(row);
    await client.query(
      `INSERT INTO "${table}" (${names.map((n) => `"${n}"`).join(", ")}) VALUES (${names.map((_, i) => `$${i + 1}`).join(", ")})`,
      names.map((n) => row[n]),
    );
    before.set(table, (await client.query(`SELECT * FROM "${table}"`)).rows);
  }
  await client.query("SET session_replication_role = DEFAULT");

  await migratePg(drizzlePg(client), { migrationsFolder: dir });
  const applied = Number(
    (await client.query<{ n: string }>("SELECT count(*) AS n FROM drizzle.__drizzle_migrations")).rows[0].n,
  );
  if (applied !== entries.length) return [`${applied} migrations applied, ${entries.length} expected`];
  const after = new Map<string, Record<string, unknown>[] | null>();
  for (const table of before.keys()) {
    const exists =
      (await client.query("SELECT to_regclass($1) AS t", [`public."${table}"`])).rows[0].t !== null;
    after.set(table, exists ? (await client.query(`SELECT * FROM "${table}"`)).rows : null);
  }
  return compare(before, (t) => after.get(t) ?? null, pks);
}
