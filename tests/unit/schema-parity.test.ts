import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { getTableConfig as pgConfig, PgTable } from "drizzle-orm/pg-core";
import { getTableConfig as liteConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import * as pg from "~/db/schema.pg";
import * as lite from "~/db/schema.sqlite";

/*
 * The SQLite and PostgreSQL schemas are written once each (app/db/schema.sqlite.ts and
 * schema.pg.ts). This test fails when they drift apart — a table, column, type, default,
 * null-ability, key, index or foreign key present or shaped differently in one of them — and when
 * either dialect's committed migrations (drizzle/sqlite, drizzle/pg) no longer match its schema.
 */

type Shape = {
  columns: string[];
  keys: string[];
  indexes: string[];
  foreignKeys: string[];
};

/** One column type in words both dialects share. */
function liteType(c: any): string {
  const t = c.columnType as string;
  if (t === "SQLiteTimestamp") return "timestamp";
  if (t === "SQLiteBoolean") return "boolean";
  if (t === "SQLiteInteger") return "integer";
  if (t === "SQLiteReal") return "double";
  if (t === "SQLiteText") return c.enumValues?.length ? `text(${c.enumValues.join("|")})` : "text";
  return t;
}

function pgType(c: any): string {
  const t = c.columnType as string;
  if (t === "PgTimestamp")
    return c.withTimezone && c.precision === 3 ? "timestamp" : "timestamp(wrong precision/zone)";
  if (t === "PgBoolean") return "boolean";
  if (t === "PgInteger" || t === "PgBigInt53") return "integer";
  if (t === "PgDoublePrecision") return "double";
  if (t === "PgText") return c.enumValues?.length ? `text(${c.enumValues.join("|")})` : "text";
  return t;
}

function shape(cfg: any, typeOf: (c: any) => string): Shape {
  const colName = (c: any) => (typeof c === "string" ? c : c.name);
  return {
    // In declaration order: rate-limiter-flexible inserts rate_limits rows by position.
    columns: cfg.columns.map(
      (c: any) =>
        `${c.name} ${typeOf(c)}${c.notNull ? " not null" : ""}${c.primary ? " primary key" : ""}${c.hasDefault ? " default" : ""}`,
    ),
    keys: cfg.primaryKeys.map((k: any) => k.columns.map(colName).join(",")).sort(),
    indexes: cfg.indexes
      .map(
        (i: any) =>
          `${i.config.unique ? "unique " : ""}${i.config.name} (${i.config.columns.map(colName).join(",")})`,
      )
      .sort(),
    foreignKeys: cfg.foreignKeys
      .map((f: any) => {
        const r = f.reference();
        const table = r.foreignTable[Symbol.for("drizzle:Name")];
        return `${r.columns.map(colName).join(",")} -> ${table}(${r.foreignColumns.map(colName).join(",")}) on delete ${f.onDelete ?? "no action"}`;
      })
      .sort(),
  };
}

const liteTables = (Object.values(lite) as unknown[]).filter(
  (t): t is SQLiteTable => t instanceof SQLiteTable,
);
const pgTables = (Object.values(pg) as unknown[]).filter((t): t is PgTable => t instanceof PgTable);

describe("SQLite and PostgreSQL schemas", () => {
  it("have the same tables", () => {
    const names = (ts: { [k: symbol]: unknown }[]) =>
      ts.map((t) => t[Symbol.for("drizzle:Name")] as string).sort();
    expect(names(pgTables as any)).toEqual(names(liteTables as any));
    expect(liteTables.length).toBeGreaterThanOrEqual(10);
  });

  for (const t of liteTables) {
    const name = liteConfig(t).name;
    it(`table ${name}: same columns, types, defaults, keys, indexes and foreign keys`, () => {
      const other = pgTables.find((p) => pgConfig(p).name === name);
      expect(other, `${name} is missing from schema.pg.ts`).toBeDefined();
      expect(shape(pgConfig(other!), pgType)).toEqual(shape(liteConfig(t), liteType));
    });
  }

  it("notices a drift (the comparison is not blind)", () => {
    const a = shape(liteConfig(lite.reports), liteType);
    const b = shape(pgConfig(pg.users), pgType);
    expect(a).not.toEqual(b);
  });
});

describe("committed migrations", () => {
  // drizzle-kit compares each schema with the last snapshot of its migrations folder; "No schema
  // changes" means the migrations create exactly what the schema declares.
  for (const [dialect, schema, folder] of [
    ["sqlite", "app/db/schema.sqlite.ts", "drizzle/sqlite"],
    ["postgresql", "app/db/schema.pg.ts", "drizzle/pg"],
  ] as const) {
    it(`${folder} matches ${schema}`, () => {
      const tmp = mkdtempSync(path.join(os.tmpdir(), "cb-migrations-"));
      try {
        cpSync(folder, path.join(tmp, "out"), { recursive: true });
        const config = path.join(tmp, "drizzle.config.json");
        writeFileSync(
          config,
          JSON.stringify({ dialect, schema, out: path.relative(process.cwd(), path.join(tmp, "out")) }),
        );
        const run = spawnSync(
          process.execPath,
          [path.resolve("node_modules/drizzle-kit/bin.cjs"), "generate", "--config", config],
          { encoding: "utf8" },
        );
        expect(run.stdout + run.stderr).toContain("No schema changes");
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
    }, 60_000);
  }
});
