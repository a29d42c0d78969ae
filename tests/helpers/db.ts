import { ListObjectsCommand, S3Client } from "@aws-sdk/client-s3";
import Database from "better-sqlite3";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { S3_CREDENTIALS } from "./backends";

pg.types.setTypeParser(20, (v) => Number(v)); // count(*) as a number, as on SQLite

/**
 * What a test server stored, read straight from its database — SQLite file or PostgreSQL — with one
 * API. SQL uses `?` placeholders (turned into $1, $2 … on PostgreSQL); keep it to what both accept.
 */
export type TestDb = {
  kind: "sqlite" | "postgres";
  get<T = Record<string, any>>(sql: string, ...params: unknown[]): Promise<T | undefined>;
  all<T = Record<string, any>>(sql: string, ...params: unknown[]): Promise<T[]>;
  /** Runs a write; returns the number of rows changed. */
  run(sql: string, ...params: unknown[]): Promise<number>;
  /** A time as the dialect stores it (epoch ms on SQLite, a timestamptz on PostgreSQL). */
  time(ms: number): number | Date;
  close(): Promise<void>;
};

function backendOf(dataDir: string): Record<string, string> {
  const file = path.join(path.dirname(dataDir), "backend.json");
  return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : {};
}

/** Opens the test server's database (by its data folder); read-only on SQLite unless `write`. */
export async function openTestDb(dataDir: string, opts: { write?: boolean } = {}): Promise<TestDb> {
  const url = backendOf(dataDir).DATABASE_URL;
  if (url) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const q = async (sql: string, params: unknown[]) => {
      let i = 0;
      return client.query(
        sql.replace(/\?/g, () => `$${++i}`),
        params,
      );
    };
    return {
      kind: "postgres",
      get: async (sql, ...params) => (await q(sql, params)).rows[0],
      all: async (sql, ...params) => (await q(sql, params)).rows,
      run: async (sql, ...params) => (await q(sql, params)).rowCount ?? 0,
      time: (ms) => new Date(ms),
      close: () => client.end(),
    };
  }
  const db = new Database(path.join(dataDir, "app.db"), { readonly: !opts.write, fileMustExist: true });
  if (opts.write) db.pragma("busy_timeout = 5000");
  return {
    kind: "sqlite",
    get: async (sql, ...params) => db.prepare(sql).get(...params) as any,
    all: async (sql, ...params) => db.prepare(sql).all(...params) as any,
    run: async (sql, ...params) => db.prepare(sql).run(...params).changes,
    time: (ms) => ms,
    close: async () => void db.close(),
  };
}

/** Keys of the encrypted files the test server keeps (its uploads folder or its bucket). */
export async function storedKeys(server: { dataDir: string; uploadsDir: string }): Promise<string[]> {
  const storage = backendOf(server.dataDir).STORAGE_URL;
  if (!storage) {
    if (!existsSync(server.uploadsDir)) return [];
    return readdirSync(server.uploadsDir)
      .filter((f) => f.endsWith(".enc"))
      .map((f) => f.slice(0, -4));
  }
  const u = new URL(storage);
  const client = new S3Client({
    region: "us-east-1",
    endpoint: u.searchParams.get("endpoint")!,
    forcePathStyle: true,
    credentials: S3_CREDENTIALS,
  });
  const keys: string[] = [];
  // ListObjects (v1) paged by Marker, the last key seen: s3rver makes every truncated v2 answer's
  // continuation token with DES, which OpenSSL 3 (Node 18+) no longer offers (a 500 past 1,000 keys).
  let after: string | undefined;
  try {
    for (;;) {
      const out = await client.send(new ListObjectsCommand({ Bucket: u.hostname, Marker: after }));
      for (const o of out.Contents ?? []) if (o.Key?.endsWith(".enc")) keys.push(o.Key.slice(0, -4));
      const last = out.Contents?.at(-1)?.Key;
      if (!out.IsTruncated || !last) break;
      after = last;
    }
  } finally {
    client.destroy();
  }
  return keys;
}

/** The raw stored (encrypted) bytes of one file. */
export async function storedBytes(
  server: { dataDir: string; uploadsDir: string },
  key: string,
): Promise<Buffer> {
  const storage = backendOf(server.dataDir).STORAGE_URL;
  if (!storage) return readFileSync(path.join(server.uploadsDir, `${key}.enc`));
  const { GetObjectCommand } = await import("@aws-sdk/client-s3");
  const u = new URL(storage);
  const client = new S3Client({
    region: "us-east-1",
    endpoint: u.searchParams.get("endpoint")!,
    forcePathStyle: true,
    credentials: S3_CREDENTIALS,
  });
  try {
    const out = await client.send(new GetObjectCommand({ Bucket: u.hostname, Key: `${key}.enc` }));
    return Buffer.from(await out.Body!.transformToByteArray());
  } finally {
    client.destroy();
  }
}

/** A report's lab read as the test server stored it (its job row in `lab_reads`), or undefined. */
export async function labReadOf(server: { dataDir: string }, reportId: string) {
  const db = await openTestDb(server.dataDir);
  try {
    return await db.get<{ status: string; attempts: number; last_error: string | null }>(
      "select status, attempts, last_error from lab_reads where report_id = ?",
      reportId,
    );
  } finally {
    await db.close();
  }
}

/** Waits until the server's lab reader has no read queued or under way; fails after `ms`. */
export async function labReadsEnded(server: { dataDir: string }, ms = 60_000): Promise<void> {
  for (const deadline = Date.now() + ms; ; ) {
    const db = await openTestDb(server.dataDir);
    const busy = await db
      .get<{ n: number }>("select count(*) as n from lab_reads where status in ('queued', 'reading')")
      .finally(() => db.close());
    if (!busy?.n) return;
    if (Date.now() > deadline) throw new Error("the lab reads did not end");
    await new Promise((r) => setTimeout(r, 250));
  }
}
