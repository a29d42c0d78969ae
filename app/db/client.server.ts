import Database from "better-sqlite3";
import { Column, getTableName, is, SQL, Subquery, sql, type SQLWrapper } from "drizzle-orm";
import { drizzle as drizzleSqlite, type BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { migrate as migrateSqlite } from "drizzle-orm/better-sqlite3/migrator";
import { drizzle as drizzlePg, type NodePgDatabase } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import type { BaseSQLiteDatabase } from "drizzle-orm/sqlite-core";
import { AsyncLocalStorage, AsyncResource } from "node:async_hooks";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { config, type DatabaseKind } from "~/config.server";
import { onProbe, probe } from "~/lib/probe.server";
import { watchAuthChanges, watchSqliteChanges, type AuthChange, type AuthWatch } from "./auth-changes.server";
import { guardPgUpgrade, guardSqliteUpgrade } from "./upgrade-guard.server";
import * as pgSchema from "./schema.pg";
import * as liteSchema from "./schema.sqlite";

/**
 * The one place that knows which database runs (decision 0010). Domain modules get `db()` — a
 * Drizzle database typed as asynchronous SQLite — and the helpers below, and never write
 * dialect-specific SQL: every query is awaited (never `.get()/.all()/.run()`), writes that must
 * know whether they matched use `.returning()`, and a transaction is a generator of steps
 * (`rows()`/`exec()`), which SQLite runs synchronously inside one BEGIN IMMEDIATE and PostgreSQL
 * awaits inside BEGIN … COMMIT.
 */
export type DB = BaseSQLiteDatabase<"async", unknown, typeof liteSchema>;

type Handle =
  | { kind: "sqlite"; db: DB; sqlite: Database.Database; raw: BetterSQLite3Database<typeof liteSchema> }
  | { kind: "postgres"; db: DB; pool: pg.Pool; raw: NodePgDatabase<typeof pgSchema> };

const globalForDb = globalThis as unknown as { __carebridgeDb?: Handle };

const MIGRATIONS = {
  sqlite: () => path.resolve(process.cwd(), "drizzle/sqlite"),
  postgres: () => path.resolve(process.cwd(), "drizzle/pg"),
};

/** Only the app's user may read or write the database files (SQLite gives -wal/-shm the file's mode). */
function ownerOnly(file: string) {
  try {
    chmodSync(file, 0o600);
  } catch {
    /* missing, or not ours */
  }
}

/**
 * Applies pending migrations with foreign keys off (decision 0030). A migration that changes a
 * table's foreign keys rebuilds it (SQLite's documented procedure); with foreign keys on, dropping
 * the old table would cascade into the rows that refer to it. The pragma is a no-op inside the
 * migrator's transaction, so it is set around it. Afterwards no reference may be broken that was
 * not broken before (an older problem in the file is left to the tools that report it, such as
 * migrate:to-postgres); the check scans every table, so it runs only when something was applied.
 */
function migrateSqliteSafely(sqlite: Database.Database, pending: number, migrate: () => void) {
  sqlite.pragma("foreign_keys = OFF");
  if (pending <= 0) return migrate();
  type Broken = { table: string; rowid: number; parent: string };
  const key = (b: Broken) => `${b.table}:${b.rowid}:${b.parent}`;
  const before = new Set((sqlite.pragma("foreign_key_check") as Broken[]).map(key));
  migrate();
  const added = (sqlite.pragma("foreign_key_check") as Broken[]).filter((b) => !before.has(key(b)));
  if (added.length)
    throw new Error(
      `the migrations broke ${added.length} references, e.g. ${added
        .slice(0, 3)
        .map((b) => `${b.table} row ${b.rowid} → ${b.parent}`)
        .join(", ")}`,
    );
}

/** Opens a SQLite file (WAL, foreign keys, busy timeout) and applies pending migrations. */
export function openSqlite(file: string) {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  if (!existsSync(file)) closeSync(openSync(file, "a", 0o600));
  ownerOnly(file);
  const sqlite = new Database(file);
  sqlite.pragma("journal_mode = WAL");
  for (const extra of ["-wal", "-shm"]) ownerOnly(file + extra);
  sqlite.pragma("busy_timeout = 5000");
  sqlite.pragma("synchronous = NORMAL");
  const raw = drizzleSqlite(sqlite, { schema: liteSchema });
  // A newer database is refused; one with data is copied before it is migrated (decision 0070).
  let pending: number;
  try {
    pending = guardSqliteUpgrade(sqlite, MIGRATIONS.sqlite());
  } catch (err) {
    sqlite.close();
    throw err;
  }
  migrateSqliteSafely(sqlite, pending, () => migrateSqlite(raw, { migrationsFolder: MIGRATIONS.sqlite() }));
  sqlite.pragma("foreign_keys = ON");
  checkpoint(sqlite);
  return { raw, sqlite };
}

/**
 * Moves every committed page from the write-ahead log into the database file and empties the log,
 * at start (a process that was killed, or stopped on a full disk, leaves its rows in the log) and
 * at shutdown: then the database file alone holds everything, for whoever copies it (decision 0060).
 * A checkpoint that cannot finish (a reader still open, no space) is left to the next one.
 */
function checkpoint(sqlite: Database.Database) {
  try {
    sqlite.pragma("wal_checkpoint(TRUNCATE)");
  } catch (err) {
    console.warn(JSON.stringify({ level: "warn", msg: "WAL checkpoint failed", error: String(err) }));
  }
}

// node-postgres returns int8 (count(*), bigint columns) as strings; every int8 we store fits a double.
pg.types.setTypeParser(20, (v) => Number(v));

/**
 * PostgreSQL cannot store U+0000 in text (SQLite can): a NUL in any string parameter would turn a
 * hostile request into a 500. No field of ours means anything by it, so it is dropped here.
 */
function withoutNul(v: unknown) {
  return typeof v === "string" && v.includes("\u0000") ? v.replaceAll("\u0000", "") : v;
}

class Client extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    // A connection the server ends (restart, failover, `pg_ctl stop`) while the client is checked
    // out between queries (an advisory lock held over a job) emits "error" on the client, which the
    // pool only listens for while it is idle: unheard, it ended the process (decision 0060). Its next
    // query fails instead ("not queryable": answered 503), and the pool drops it on release.
    this.on("error", () => {});
  }

  override query(config: any, values?: any, callback?: any): any {
    if (config && typeof config === "object" && Array.isArray(config.values)) {
      config = { ...config, values: config.values.map(withoutNul) };
    }
    if (Array.isArray(values)) values = values.map(withoutNul);
    if (heardWrite) noticeAuthWrite(config, values);
    const limit = statementLimit();
    if (limit && typeof config?.submit !== "function")
      return boundedQuery(this, limit, config, values, callback);
    return this.send(config, values, callback);
  }

  /** The statement as node-postgres runs it (timed when the server's probe watches). */
  send(config: any, values?: any, callback?: any): any {
    if (!probe || typeof config?.submit === "function") return (super.query as any)(config, values, callback);
    return timedQuery(this, config, values, callback);
  }
}

/**
 * The bound on one statement in this process (decision 0075): set by a serving process at
 * start-up, 0 (none) in scripts and tests. Work that legitimately runs long — migrations, the
 * jobs run under an advisory lock, bulk loads — runs `unbounded()`.
 */
let statementLimitMs = 0;
const longWork = new AsyncLocalStorage<true>();

/** Bounds every statement of this process to `ms` (0: unbounded), except inside `unbounded()`. */
export function boundStatements(ms: number) {
  statementLimitMs = ms;
}

/** Runs `fn` with its statements unbounded, however long they take (migrations, jobs, bulk loads). */
export function unbounded<T>(fn: () => Promise<T>): Promise<T> {
  return longWork.run(true, fn);
}

function statementLimit(): number {
  return statementLimitMs && !longWork.getStore() ? statementLimitMs : 0;
}

/**
 * One statement with a deadline. A database that hangs (a frozen host, a stopped process, a
 * network that drops packets) never refuses: without a deadline the request waits as long as the
 * hang lasts. When `limit` passes unanswered, the connection is in an unknown state (the statement
 * may still run, or be half-answered), so it is not given back: its socket is destroyed with an
 * ETIMEDOUT error, which fails this statement and any queued behind it (answered 503, decision
 * 0060), marks the client unqueryable, and the pool drops it on release.
 */
function boundedQuery(client: Client, limit: number, config: any, values: any, callback: any): any {
  if (typeof values === "function") {
    callback = values;
    values = undefined;
  }
  const timer = setTimeout(() => {
    const err = Object.assign(new Error(`the database did not answer within ${limit} ms`), {
      code: "ETIMEDOUT",
    });
    (
      client as unknown as { connection?: { stream?: { destroy(e: Error): void } } }
    ).connection?.stream?.destroy(err);
  }, limit);
  if (typeof callback === "function")
    return client.send(config, values, (err: unknown, res: unknown) => {
      clearTimeout(timer);
      callback(err, res);
    });
  return client.send(config, values).then(
    (res: unknown) => {
      clearTimeout(timer);
      return res;
    },
    (err: unknown) => {
      clearTimeout(timer);
      throw err;
    },
  );
}

/**
 * The pool, its callbacks run in the context of whoever asked: a connection handed over when
 * another is released would otherwise run the waiting caller's statement in the releasing one's
 * context, and so with its bound or without (decision 0075).
 */
class Pool extends pg.Pool {
  override connect(callback?: any): any {
    return typeof callback === "function" ? super.connect(AsyncResource.bind(callback)) : super.connect();
  }
}

/** The watch's subscriber while one runs (PostgreSQL): told of this process's own writes at once. */
let heardWrite: ((change: AuthChange) => void) | undefined;
const AUTH_WRITE =
  /^\s*(?:update\s+"(?:users|expert_specialties)"|delete\s+from\s+"(?:users|sessions|expert_specialties)"|insert\s+into\s+"expert_specialties")/i;

/**
 * The triggers' announcement of a change reaches this process's own listener only after the
 * commit, possibly after the next request: a write of ours to the tables behind a signed-in actor
 * makes this process forget, before the statement runs, the users and sessions it names among its
 * parameters (a user's or session's id). Updates of sessions only touch "last used".
 */
function noticeAuthWrite(config: any, values: unknown) {
  const text = typeof config === "string" ? config : config?.text;
  // Most statements are selects: one character decides.
  if (typeof text !== "string" || text.charCodeAt(0) === 115 /* s */ || !AUTH_WRITE.test(text)) return;
  const params = Array.isArray(values) ? values : Array.isArray(config?.values) ? config.values : [];
  heardWrite?.(params.filter((v: unknown): v is string => typeof v === "string"));
}

/**
 * One statement timed by the server's probe (metrics, traces): the pool hands us a callback, a
 * transaction awaits a promise. Only reached when a probe is installed.
 */
function timedQuery(client: pg.Client, config: any, values: any, callback: any): any {
  if (typeof values === "function") {
    callback = values;
    values = undefined;
  }
  const text = typeof config === "string" ? config : config?.text;
  const end = probe!.start("db", "postgresql", "query", typeof text === "string" ? text : undefined);
  const query = pg.Client.prototype.query as any;
  if (typeof callback === "function") {
    return query.call(client, config, values, (err: unknown, res: unknown) => {
      end(err ?? undefined);
      callback(err, res);
    });
  }
  const result = query.call(client, config, values);
  if (result && typeof result.then === "function") {
    return result.then(
      (r: unknown) => {
        end();
        return r;
      },
      (err: unknown) => {
        end(err);
        throw err;
      },
    );
  }
  end();
  return result;
}

/**
 * better-sqlite3 runs every statement through its Statement class's all/get/run: wrapping those
 * once (when a probe is installed) times every query of every connection, drizzle's and ours.
 * Statements are synchronous, so the request's trace context is the active one while they run.
 */
function probeSqliteStatements(sqlite: Database.Database) {
  type Method = (this: Database.Statement, ...args: unknown[]) => unknown;
  const proto = Object.getPrototypeOf(sqlite.prepare("select 1")) as Record<string, Method> & {
    __carebridgeProbed?: boolean;
  };
  if (proto.__carebridgeProbed) return;
  proto.__carebridgeProbed = true;
  for (const name of ["all", "get", "run"] as const) {
    const original = proto[name];
    proto[name] = function (this: Database.Statement, ...args: unknown[]) {
      if (!probe) return original.apply(this, args);
      const end = probe.start("db", "sqlite", "query", this.source);
      try {
        const result = original.apply(this, args);
        end();
        return result;
      } catch (err) {
        end(err);
        throw err;
      }
    };
  }
}

function openPostgres(url: string, max: number) {
  const pool = new Pool({
    Client,
    connectionString: url,
    max,
    // A database that does not answer fails the request (and /healthz) instead of hanging it.
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    application_name: `carebridge-${process.pid}`,
    // No Memoize nodes (decision 0044): every list page is a LIMIT 20 nested loop, and PostgreSQL
    // sized each Memoize cache by the whole table's estimate, so at 1,000,000 reports setting up
    // three of them cost 1.5–2 ms per execution for 20 rows (0.2 ms without). Sent with the
    // connection's start-up packet, so it costs no round trip.
    // Index probes priced as what they are on a database that fits in memory (random_page_cost
    // 1.1 instead of the spinning-disk 4; decision 0052): with 4, PostgreSQL re-planned some admin
    // lists on every execution (approved experts at 100,000 reports: 0.39 ms, 0.13 ms with its
    // generic plan) and hashed whole small tables where a probe by key would do. A start-up option
    // wins over the server's own setting: a database far larger than memory would change it here.
    // A transaction left open and idle (a process that froze or lost its way mid-transaction) is
    // ended by the server after a minute, so its locks do not hold every other writer (decision
    // 0075); a backup's snapshot transaction, idle while pg_dump reads it, turns this off for itself.
    options: "-c enable_memoize=off -c random_page_cost=1.1 -c idle_in_transaction_session_timeout=60000",
    // No forced generic plans: at 100,000 reports the generic plan of a list page (status and
    // LIMIT/OFFSET as unknown parameters) walked and sorted the pending rows, making the pending
    // and reviewed APIs 6–7× slower than with a custom plan per execution (bench of 2026-11-24,
    // docs/performance-history.md); planning a custom plan costs far less than that.
  });
  // An idle connection dropped by the server (restart, failover) must not crash the process.
  pool.on("error", () => {});
  const raw = drizzlePg(pool, { schema: pgSchema });
  return { raw, pool };
}

function handle(): Handle {
  let h = globalForDb.__carebridgeDb;
  if (!h) {
    const c = config();
    if (c.databaseKind === "postgres") {
      const { raw, pool } = openPostgres(c.databaseUrl, c.databasePoolMax);
      h = { kind: "postgres", db: raw as unknown as DB, pool, raw };
    } else {
      const { raw, sqlite } = openSqlite(c.databaseUrl);
      h = { kind: "sqlite", db: raw as unknown as DB, sqlite, raw };
      onProbe(() => probeSqliteStatements(sqlite));
    }
    globalForDb.__carebridgeDb = h;
  }
  return h;
}

export function db(): DB {
  return handle().db;
}

export function dialect(): DatabaseKind {
  return handle().kind;
}

/** The SQLite connection, when SQLite runs (rate-limit store, backup); undefined on PostgreSQL. */
export function sqliteConnection(): Database.Database | undefined {
  const h = handle();
  return h.kind === "sqlite" ? h.sqlite : undefined;
}

/** The PostgreSQL pool, when PostgreSQL runs (rate-limit store, advisory locks); undefined on SQLite. */
export function pgPool(): pg.Pool | undefined {
  const h = handle();
  return h.kind === "postgres" ? h.pool : undefined;
}

/** The pool's connections for /metrics (PostgreSQL; null on SQLite, which has no pool). */
export function poolStats(): { total: number; idle: number; waiting: number; max: number } | null {
  const h = globalForDb.__carebridgeDb;
  if (h?.kind !== "postgres") return null;
  const p = h.pool;
  return { total: p.totalCount, idle: p.idleCount, waiting: p.waitingCount, max: p.options.max ?? 10 };
}

/** Lock ids for PostgreSQL advisory locks (one number per kind of exclusive work). */
const LOCKS = {
  migrate: 7_310_001,
  prune: 7_310_002,
  sweep: 7_310_003,
  overdue: 7_310_004,
  uploads: 7_310_005,
  /** Due erasures and the audit retention (decision 0019). */
  rights: 7_310_014,
} as const;
export type JobName = Exclude<keyof typeof LOCKS, "migrate">;

/**
 * Applies pending migrations. SQLite migrates when it opens; on PostgreSQL every node's start-up
 * may call this at once, so it waits for an advisory lock and the first node migrates alone.
 */
export async function migrateDatabase(): Promise<void> {
  const h = handle();
  if (h.kind === "sqlite") return;
  await unbounded(() => migratePostgres(h.pool, h.raw));
}

async function migratePostgres(pool: pg.Pool, raw: NodePgDatabase<typeof pgSchema>) {
  const client = await pool.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [LOCKS.migrate]);
    try {
      await guardPgUpgrade(client, MIGRATIONS.postgres()); // decision 0070
      await migratePg(raw, { migrationsFolder: MIGRATIONS.postgres() });
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [LOCKS.migrate]);
    }
  } finally {
    client.release();
  }
}

/**
 * Runs scheduled work on one node at a time: on PostgreSQL only the node that gets the job's
 * advisory lock runs it (the others skip this round); SQLite has one machine, whose owning
 * process is the only one that schedules work. Returns undefined when skipped.
 */
export async function runExclusive<T>(job: JobName, fn: () => Promise<T>): Promise<T | undefined> {
  const h = handle();
  if (h.kind === "sqlite") return fn();
  // A job may run long statements (a sweep, a retention delete): no request waits on it (decision 0075).
  return unbounded(() => exclusively(h.pool, job, fn));
}

async function exclusively<T>(pool: pg.Pool, job: JobName, fn: () => Promise<T>): Promise<T | undefined> {
  const client = await pool.connect();
  try {
    const { rows } = await client.query<{ ok: boolean }>("SELECT pg_try_advisory_lock($1) AS ok", [
      LOCKS[job],
    ]);
    if (!rows[0]?.ok) return undefined;
    try {
      return await fn();
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [LOCKS[job]]);
    }
  } finally {
    client.release();
  }
}

const watches = new WeakMap<Handle, AuthWatch>();

/**
 * Starts (once per database handle) the watch on changed signed-in actors across the cluster:
 * `onChange` hears which users' sessions, account or specialties changed (auth-changes.server.ts);
 * on SQLite, that anything in the file changed (decision 0125).
 */
export function watchActors(onChange: (change: AuthChange) => void): AuthWatch {
  const h = handle();
  let w = watches.get(h);
  if (!w) {
    w =
      h.kind === "postgres"
        ? watchAuthChanges(h.pool.options.connectionString, onChange)
        : watchSqliteChanges(h.sqlite, onChange);
    watches.set(h, w);
    if (h.kind === "postgres") heardWrite = onChange;
  }
  return w;
}

export async function closeDatabase(): Promise<void> {
  const h = globalForDb.__carebridgeDb;
  if (!h) return;
  globalForDb.__carebridgeDb = undefined;
  await watches.get(h)?.close();
  heardWrite = undefined;
  if (h.kind === "sqlite") {
    checkpoint(h.sqlite);
    h.sqlite.close();
  } else await h.pool.end();
}

const probes = new WeakMap<Database.Database, Database.Statement>();

/** Throws unless the database answers a trivial query (for /healthz). */
export async function pingDatabase(): Promise<void> {
  const h = handle();
  if (h.kind === "sqlite") {
    let probe = probes.get(h.sqlite);
    if (!probe) probes.set(h.sqlite, (probe = h.sqlite.prepare("select 1")));
    probe.get();
  } else {
    await h.pool.query("select 1");
  }
}

// ---------------------------------------------------------------------------------------------
// Writing queries once for both dialects

/** How many rows an awaited insert/update/delete without `.returning()` touched. */
export function affected(result: unknown): number {
  const r = result as { changes?: number; rowCount?: number | null };
  return r.changes ?? r.rowCount ?? 0;
}

/** The first row of a query (adds LIMIT 1), or undefined. */
export async function first<T>(query: { limit(n: number): PromiseLike<T[]> }): Promise<T | undefined> {
  return (await query.limit(1))[0];
}

/** A unique constraint refused the write (a concurrent insert won): callers turn it into `conflict`. */
export function isUniqueViolation(err: unknown): boolean {
  for (let e = err as { code?: string; cause?: unknown } | undefined, i = 0; e && i < 4; i++) {
    if (
      e.code === "23505" ||
      e.code === "SQLITE_CONSTRAINT_UNIQUE" ||
      e.code === "SQLITE_CONSTRAINT_PRIMARYKEY"
    )
      return true;
    e = e.cause as typeof e;
  }
  return false;
}

/**
 * A column compared without using its index. SQLite's planner otherwise prefers a narrower index
 * (e.g. walking every file-open event by action); its idiom is a unary "+". PostgreSQL costs it right.
 */
export function unindexed(column: SQLWrapper): SQL {
  return dialect() === "sqlite" ? sql`+${column}` : sql`${column}`;
}

/**
 * A constant of the code (an action name, a subject type) written into a statement as a literal
 * instead of sent as a parameter. A prepared statement's parameters are values PostgreSQL looks up
 * in its statistics for each custom plan; constants that never change should not make custom plans
 * look cheaper than the generic one (decision 0044). Only plain names and separators are accepted
 * (no quote or backslash can get in).
 */
export function constantText(value: string): SQL {
  if (!/^[A-Za-z0-9_.:,|-]*$/.test(value)) throw new Error(`not a plain constant: ${value}`);
  return sql.raw(`'${value}'`);
}

/** `constantText` for a whole number of the code (a priority): written into the statement. */
export function constantInt(value: number): SQL {
  if (!Number.isSafeInteger(value)) throw new Error(`not a whole number: ${value}`);
  return sql.raw(String(value));
}

/**
 * A parameter whose value the planner should not look up: on PostgreSQL an uncorrelated
 * `(select $n)`, so a custom plan estimates it as the generic plan does and the prepared statement
 * keeps its generic plan (decision 0044); the index on the compared column still serves. SQLite
 * compares the parameter as it is.
 */
export function opaqueText(param: SQLWrapper): SQL {
  return dialect() === "sqlite" ? sql`${param}` : sql`(select ${param}::text)`;
}

/** `opaqueText` for a moment (a `timeParam`): on PostgreSQL `(select $n::timestamptz)`. */
export function opaqueTime(param: SQLWrapper): SQL {
  return dialect() === "sqlite" ? sql`${param}` : sql`(select ${param}::timestamptz)`;
}

/**
 * The values of `column` over the rows `from` selects, joined by `separator` into one text (null
 * when none): a correlated sub-select that lets one statement bring a short list along with its
 * row (string_agg on PostgreSQL, group_concat on SQLite).
 */
export function textList(column: SQLWrapper, from: SQL, separator: string): SQL<string | null> {
  return dialect() === "sqlite"
    ? sql<string | null>`(select group_concat(${column}, ${constantText(separator)}) ${from})`
    : sql<string | null>`(select string_agg(${column}, ${constantText(separator)}) ${from})`;
}

/**
 * The rows `from` selects as one JSON array (text) of objects with `fields` as keys, or null/"[]"
 * when none — a correlated sub-select that lets one statement bring a row's short list of records
 * along with it (json_agg on PostgreSQL, json_group_array on SQLite). Order is not promised: sort
 * after reading. Times in it should be `epochMs` (a number on both dialects).
 */
export function jsonRows(fields: Record<string, SQLWrapper>, from: SQL): SQL<string | null> {
  const pairs = sql.join(
    Object.entries(fields).map(
      ([key, value]) => sql`${sql.raw(`'${key.replace(/[^A-Za-z]/g, "")}'`)}, ${value}`,
    ),
    sql`, `,
  );
  return dialect() === "sqlite"
    ? sql<string | null>`(select json_group_array(json_object(${pairs})) ${from})`
    : sql<string | null>`(select json_agg(json_build_object(${pairs}))::text ${from})`;
}

/** A time column as epoch milliseconds (SQLite keeps them so; PostgreSQL has timestamptz). */
export function epochMs(column: SQLWrapper): SQL<number | null> {
  return dialect() === "sqlite"
    ? sql<number | null>`${column}`
    : sql<number | null>`(extract(epoch from ${column}) * 1000)::int8`;
}

/** A time bound as a prepared statement's placeholder value (placeholders skip the column's mapping). */
export function timeParam(ms: number): number | Date {
  return dialect() === "sqlite" ? ms : new Date(ms);
}

/**
 * `column` is one of the texts of the list placeholder `name`, so that a statement over a batch
 * of ids is prepared once however many there are: `= any($n)` on PostgreSQL (a text[] parameter),
 * `in (select value from json_each(?))` on SQLite (a JSON array). Pass the list through `listParam`.
 */
export function inList(column: SQLWrapper, name: string): SQL {
  return dialect() === "sqlite"
    ? sql`${column} in (select value from json_each(${sql.placeholder(name)}))`
    : sql`${column} = any(${sql.placeholder(name)})`;
}

/** The value of an `inList` placeholder. */
export function listParam(values: readonly string[]): string | string[] {
  return dialect() === "sqlite" ? JSON.stringify(values) : [...values];
}

const preparedByHandle = new WeakMap<DB, Map<string, unknown>>();

/**
 * A statement built and prepared once per database handle (by `prepareQuery`), for queries that
 * run on every request: building a select costs more than running it.
 */
export function preparedOnce<P>(name: string, build: (d: DB) => Preparable<P>): P {
  const d = db();
  let byName = preparedByHandle.get(d);
  if (!byName) preparedByHandle.set(d, (byName = new Map()));
  let found = byName.get(name) as P | undefined;
  if (!found) byName.set(name, (found = prepareQuery(name, build(d))));
  return found;
}

type Preparable<P> = { prepare(name?: string): P };

/**
 * Prepares a query once per process (PostgreSQL names its prepared statements, SQLite does not),
 * with its rows mapped by `rowMapper`.
 */
export function prepareQuery<P>(name: string, query: Preparable<P>): P {
  const prepared = dialect() === "sqlite" ? query.prepare() : query.prepare(name);
  const p = prepared as unknown as DrizzlePrepared;
  if (Array.isArray(p.fields) && !p.customResultMapper)
    p.customResultMapper = rowMapper(p.fields, p.joinsNotNullableMap);
  return prepared;
}

/** What drizzle's prepared select keeps (both dialects' sessions read these on every execution). */
type DrizzlePrepared = {
  fields?: { path: string[]; field: unknown }[];
  joinsNotNullableMap?: Record<string, boolean>;
  customResultMapper?: (rows: unknown[][]) => unknown;
};
type Decoder = { mapFromDriverValue(value: unknown): unknown };

/**
 * The rows of a prepared select as drizzle's own mapping gives them (nested objects by path; a
 * left-joined table's object null when its first column is null), with the per-column decisions
 * taken once. Drizzle's mapper decides, for every column of every row, what kind of field it is
 * (`is()` walks the class chain of each `sql` column) and walks the path with an iterator: on a
 * page of 20 joined reports that was a tenth of the pending API's CPU on PostgreSQL (profile in
 * docs/performance-history.md). Installed through drizzle's `customResultMapper`, which its sessions
 * (node-postgres and better-sqlite3) call with the raw row arrays instead of their mapper.
 */
export function rowMapper(
  fields: { path: string[]; field: unknown }[],
  joinsNotNullableMap?: Record<string, boolean>,
): (rows: unknown[][]) => Record<string, unknown>[] {
  const cols = fields.map(({ path, field }) => {
    const f = field as { decoder: Decoder; _: { sql: { decoder: Decoder } }; sql: { decoder: Decoder } };
    const isColumn = is(field, Column);
    const decoder: Decoder = isColumn
      ? (field as Decoder)
      : is(field, SQL)
        ? f.decoder
        : is(field, Subquery)
          ? f._.sql.decoder
          : f.sql.decoder;
    return {
      parents: path.slice(0, -1),
      last: path[path.length - 1],
      decoder,
      // Which table's nullness may null the object (drizzle: columns two levels deep, joins only).
      table:
        joinsNotNullableMap && isColumn && path.length === 2 ? getTableName((field as Column).table) : null,
    };
  });
  const mapRow = (row: unknown[]) => {
    const result: Record<string, unknown> = {};
    let nullify: Record<string, string | false> | undefined;
    for (let i = 0; i < cols.length; i++) {
      const c = cols[i];
      let node = result;
      for (let j = 0; j < c.parents.length; j++)
        node = (node[c.parents[j]] ??= {}) as Record<string, unknown>;
      const raw = row[i];
      const value = (node[c.last] = raw === null ? null : c.decoder.mapFromDriverValue(raw));
      if (c.table !== null) {
        const objectName = c.parents[0];
        nullify ??= {};
        if (!(objectName in nullify)) nullify[objectName] = value === null ? c.table : false;
        else if (typeof nullify[objectName] === "string" && nullify[objectName] !== c.table)
          nullify[objectName] = false;
      }
    }
    if (nullify) {
      for (const objectName in nullify) {
        const table = nullify[objectName];
        if (typeof table === "string" && !joinsNotNullableMap![table]) result[objectName] = null;
      }
    }
    return result;
  };
  return (rows) => rows.map(mapRow);
}

// ---------------------------------------------------------------------------------------------
// Transactions

type Step = { kind: "rows" | "exec"; query: unknown };
export type TxSteps<T> = Generator<Step, T, unknown>;

/** In a transaction body: runs a select (or a write with `.returning()`) and gives its rows. */
export function* rows<T>(query: PromiseLike<T>): TxSteps<T> {
  return (yield { kind: "rows", query }) as T;
}

/** In a transaction body: runs a write whose result is not needed. */
export function* exec(query: PromiseLike<unknown>): TxSteps<void> {
  yield { kind: "exec", query };
}

/**
 * In a transaction body: makes the transactions that name the same `lock` run one after another
 * (decision 0100). SQLite's transactions already do (BEGIN IMMEDIATE); PostgreSQL takes a
 * transaction-scoped advisory lock on the name's hash, let go at commit or rollback.
 */
export function* oneAtATime(tx: DB, lock: string): TxSteps<void> {
  if (handle().kind === "sqlite") return;
  const pgTx = tx as unknown as { execute(q: SQL): PromiseLike<unknown> };
  yield* exec(pgTx.execute(sql`select pg_advisory_xact_lock(hashtext(${lock}))`));
}

/**
 * Runs one statement so that the statements naming the same `lock` run one after another, across
 * processes and nodes (a claim whose choice looks at the other rows' states, decisions 0100 and
 * 0113): SQLite runs every statement alone already; PostgreSQL runs it in a transaction that first
 * takes the transaction-scoped advisory lock (`oneAtATime`), so it sees what the one before it wrote.
 */
export async function oneStatementAtATime<T>(lock: string, statement: (q: DB) => PromiseLike<T>): Promise<T> {
  if (handle().kind === "sqlite") return statement(db());
  return transaction(function* (tx) {
    yield* oneAtATime(tx, lock);
    return yield* rows(statement(tx));
  });
}

/**
 * A select of rows to claim, for a claiming update's subquery (decision 0113). PostgreSQL locks the
 * rows it picks and skips rows another transaction holds (`FOR UPDATE SKIP LOCKED`), so racing
 * runners each take a different row instead of queueing behind one; SQLite runs the whole claiming
 * update alone, so the select stays as it is.
 */
export function skipLocked<Q>(query: Q): Q {
  if (handle().kind === "sqlite") return query;
  return (query as unknown as { for(s: "update", o: { skipLocked: true }): Q }).for("update", {
    skipLocked: true,
  });
}

/**
 * Runs `body` in one transaction: every step commits together or none does. The body yields
 * queries (`yield* rows(…)`, `yield* exec(…)`) and decides on their results, but cannot wait for
 * anything else, so SQLite runs it synchronously (no other request's statement can slip into the
 * transaction) and PostgreSQL on one pooled connection.
 */
export async function transaction<T>(body: (tx: DB) => TxSteps<T>): Promise<T> {
  const h = handle();
  if (h.kind === "sqlite") {
    return h.raw.transaction(
      (tx) => {
        const steps = body(tx as unknown as DB);
        let next = steps.next();
        while (!next.done) {
          const { kind, query } = next.value;
          let value: unknown;
          try {
            const q = query as { all(): unknown; run(): unknown };
            value = kind === "rows" ? q.all() : q.run();
          } catch (err) {
            next = steps.throw(err);
            continue;
          }
          next = steps.next(value);
        }
        return next.value;
      },
      { behavior: "immediate" },
    );
  }
  return h.raw.transaction(async (tx) => {
    const steps = body(tx as unknown as DB);
    let next = steps.next();
    while (!next.done) {
      let value: unknown;
      try {
        value = await (next.value.query as PromiseLike<unknown>);
      } catch (err) {
        next = steps.throw(err);
        continue;
      }
      next = steps.next(value);
    }
    return next.value;
  });
}
