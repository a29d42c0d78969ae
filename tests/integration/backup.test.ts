import { GetObjectCommand, ListObjectsV2Command } from "@aws-sdk/client-s3";
import Database from "better-sqlite3";
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi, strongPassword } from "../helpers/api";
import {
  S3_CREDENTIALS,
  sharedSecrets,
  startPostgres,
  startS3,
  type Postgres,
  type S3Server,
} from "../helpers/backends";
import { samplePdf, samplePng, uploadForm } from "../helpers/files";
import { runScript } from "../helpers/scripts";
import { Browserish, startServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/*
 * Every app and script here gets its backend explicitly (DATABASE_URL, STORAGE_URL), so the file
 * means the same on a TEST_BACKEND=pg-s3 run: the SQLite test stays on SQLite, the others use the
 * PostgreSQL cluster and S3 server this file starts for itself.
 */

const scriptEnv = (env: Record<string, string>) => ({ ...process.env, LOG_LEVEL: "silent", ...env });

/** Runs a script to success and returns what it printed. */
async function run(script: string, args: string[], env: Record<string, string>): Promise<string> {
  return (await runScript(script, args, { env: scriptEnv(env) })).stdout;
}

/** Runs a script that must fail; returns its exit code and everything it printed. */
async function runFailing(script: string, args: string[], env: Record<string, string>) {
  try {
    const { stdout } = await runScript(script, args, { env: scriptEnv(env) });
    throw new Error(`${script} succeeded but should have failed:\n${stdout}`);
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    if (typeof e.code !== "number") throw err;
    return { code: e.code, output: `${e.stdout ?? ""}${e.stderr ?? ""}` };
  }
}

const tmp = mkdtempSync(path.join(os.tmpdir(), "cb-backup-"));
/** Everything started here, stopped in afterAll even when a test fails half-way. */
const stops: (() => Promise<unknown>)[] = [];
function started<T extends { stop: () => Promise<unknown> }>(thing: T): T {
  stops.push(() => thing.stop());
  return thing;
}
afterAll(async () => {
  // Apps first, then the servers they used (last started, first stopped).
  for (const stop of stops.reverse()) await stop().catch(() => {});
  rmSync(tmp, { recursive: true, force: true });
});

const admin = { ADMIN_EMAIL: "admin@b.test", ADMIN_PASSWORD: "Admin-pass-123", RATE_LIMIT_DISABLED: "1" };
const s3Keys = {
  AWS_ACCESS_KEY_ID: S3_CREDENTIALS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: S3_CREDENTIALS.secretAccessKey,
};
/** A SQLite app on a folder of its own (DATABASE_URL given, so never the pg-s3 run's backend). */
const sqliteEnv = (root: string) => ({ DATABASE_URL: path.join(root, "data", "app.db"), STORAGE_URL: "" });

const manifestOf = (folder: string) => JSON.parse(readFileSync(path.join(folder, "manifest.json"), "utf8"));

/** Backup folders made by the tests below, for the cross-dialect refusals at the end. */
const snapshots: { sqlite?: string; postgres?: string; postgresEnv?: Record<string, string> } = {};

describe("backup and restore on SQLite + a local folder", () => {
  it("round-trips the database, files and keys while the app runs", async () => {
    const rootA = mkdtempSync(path.join(tmp, "lite-a-"));
    const a = started(await startServer({ ...admin, ...sqliteEnv(rootA) }, { root: rootA, keep: true }));
    const api = apiClient(a.url);
    // A patient signs up via the outbox (no SMTP set): read the code from data/outbox.
    await api.post("/auth/send-otp", { email: "pat@b.test" });
    const eml = readdirSync(path.join(a.dataDir, "outbox"));
    const code = /(\d{6}) is your/.exec(readFileSync(path.join(a.dataDir, "outbox", eml[0]), "utf8"))![1];
    const pw = "Sturdy-pass-2026";
    const signup = await api.post("/auth/signup", {
      accountType: "Patient",
      firstName: "P",
      lastName: "Q",
      email: "pat@b.test",
      contactNumber: "9876543210",
      password: pw,
      confirmPassword: pw,
      otp: code,
    });
    expect(signup.status).toBe(201);
    const token = (await api.post("/auth/login", { email: "pat@b.test", password: pw })).body.token;
    const pdf = samplePdf("backup me");
    const rep = await api.call(
      "POST",
      "/report/upload-report",
      uploadForm({ reportType: "MRI", phoneNumber: "9876543210" }, { name: "mri.pdf", data: pdf }),
      token,
    );
    expect(rep.status).toBe(201);

    const out = path.join(tmp, "snap");
    const msg = await run("scripts/backup.ts", ["--out", out], {
      ...sqliteEnv(rootA),
      DATA_DIR: a.dataDir,
      UPLOADS_DIR: a.uploadsDir,
    });
    expect(msg).toMatch(/database \+ 1 files/);
    expect(statSync(out).mode & 0o777).toBe(0o700);
    expect(existsSync(path.join(out, "app.db"))).toBe(true);
    expect(manifestOf(out)).toMatchObject({ database: "sqlite", storage: "local", files: 1, referenced: 1 });
    snapshots.sqlite = out;
    await a.stop();
    rmSync(rootA, { recursive: true, force: true });

    const fresh = path.join(tmp, "fresh");
    const env = {
      ...sqliteEnv(fresh),
      DATA_DIR: path.join(fresh, "data"),
      UPLOADS_DIR: path.join(fresh, "uploads"),
    };
    expect(await run("scripts/restore.ts", [out], env)).toMatch(/Restored database and 1 files/);
    const b = started(await startServer({ ...admin, ...env }, { root: fresh }));
    const api2 = apiClient(b.url);
    const login = await api2.post("/auth/login", { email: "pat@b.test", password: pw });
    expect(login.status).toBe(200);
    const file = await fetch(`${b.url}/api/v1/report/${rep.body.data._id}/file`, {
      headers: { Authorization: `Bearer ${login.body.token}` },
    });
    expect(file.status).toBe(200);
    expect(Buffer.from(await file.arrayBuffer()).equals(pdf)).toBe(true);
    await b.stop();
  }, 90_000); // two app starts and two scripts: slow on a busy 2-core machine

  it("checks every file-bearing column, not only the reports' (decision 0091): a held item's missing file is counted", async () => {
    // The backup above, with a row of another file-bearing column (a health worker's held upload)
    // whose file is not in it — as a file lost before the backup leaves it.
    const copy = path.join(tmp, "snap-held");
    cpSync(snapshots.sqlite!, copy, { recursive: true });
    const file = new Database(path.join(copy, "app.db"));
    file.pragma("foreign_keys = OFF"); // no centre of that id: only the file matters here
    file
      .prepare(
        "insert into held_items (id, centre_id, worker_name, kind, idem_key, reason, fields, file_key, created_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?)",
      )
      .run("held-1", "centre-1", "Asha", "report", "idem-1", "suspended", "{}", "ab".repeat(16), Date.now());
    file.close();
    const manifest = manifestOf(copy);
    manifest.counts.held_items += 1;
    writeFileSync(path.join(copy, "manifest.json"), JSON.stringify(manifest));
    const into = path.join(tmp, "held-into");
    const said = await run("scripts/restore.ts", ["--from", copy], {
      ...sqliteEnv(into),
      DATA_DIR: path.join(into, "data"),
      UPLOADS_DIR: path.join(into, "uploads"),
    });
    expect(said).toMatch(/Restored database and 1 files/);
    expect(said).toMatch(/1 referenced files are in neither the backup nor the store/);
  });

  it("refuses a folder that is not a backup", async () => {
    const r = await runFailing("scripts/restore.ts", [tmp], {
      ...sqliteEnv(path.join(tmp, "x")),
      DATA_DIR: path.join(tmp, "x"),
      UPLOADS_DIR: path.join(tmp, "y"),
    });
    expect(r.code).toBe(2);
    expect(r.output).toMatch(/not a complete backup/);
  });
});

describe("PostgreSQL and an S3 bucket", () => {
  let pgServer: Postgres;
  let s3: S3Server;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;

  beforeAll(async () => {
    [pgServer, s3, smtp] = await Promise.all([startPostgres(), startS3(), startSmtp()]);
    started(pgServer);
    started(s3);
    stops.push(() => smtp.close());
  });

  /** How many tables a PostgreSQL database has in its public schema. */
  async function pgTables(url: string): Promise<number> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const q = "SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = 'public'";
      return Number((await client.query(q)).rows[0].n);
    } finally {
      await client.end();
    }
  }

  /** Row counts of the tables migrate:to-postgres copies, from PostgreSQL. */
  async function pgCounts(url: string, tables: string[]): Promise<Record<string, number>> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const out: Record<string, number> = {};
      for (const t of tables)
        out[t] = Number((await client.query(`SELECT count(*) AS n FROM "${t}"`)).rows[0].n);
      return out;
    } finally {
      await client.end();
    }
  }

  /** The encrypted objects a bucket holds: key → bytes. */
  async function bucketObjects(storageUrl: string): Promise<Map<string, Buffer>> {
    const bucket = new URL(storageUrl).hostname;
    const client = s3.client();
    try {
      const objects = new Map<string, Buffer>();
      const list = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
      for (const o of list.Contents ?? []) {
        const got = await client.send(new GetObjectCommand({ Bucket: bucket, Key: o.Key! }));
        objects.set(o.Key!.replace(/\.enc$/, ""), Buffer.from(await got.Body!.transformToByteArray()));
      }
      return objects;
    } finally {
      client.destroy();
    }
  }

  it(
    "backs up with pg_dump and the bucket, and restores into a new database and a new bucket",
    { timeout: 180_000 },
    async () => {
      // PostgreSQL and a bucket take the secrets from the environment; the restore gets the same ones.
      const secrets = sharedSecrets();
      const from = {
        DATABASE_URL: await pgServer.createDatabase(),
        STORAGE_URL: await s3.createBucket(),
        ...s3Keys,
        ...secrets,
      };
      const a = started(
        await startServer(
          { ...admin, SMTP_URL: smtp.url, ...from },
          { root: mkdtempSync(path.join(tmp, "pg-a-")), keep: true },
        ),
      );
      const api = apiClient(a.url);
      const patient = await signupViaApi(api, smtp, codeFrom, { email: "pat@pg.test", firstName: "Pia" });
      const pdf = samplePdf("backup me from PostgreSQL");
      const rep = await api.call(
        "POST",
        "/report/upload-report",
        uploadForm({ reportType: "MRI", phoneNumber: "9876543210" }, { name: "mri.pdf", data: pdf }),
        patient.token,
      );
      expect(rep.status).toBe(201);
      const stored = await bucketObjects(from.STORAGE_URL);
      expect(stored.size).toBe(1);

      // Online: the app keeps running while the backup is taken.
      const out = path.join(tmp, "pg-snap");
      const msg = await run("scripts/backup.ts", ["--out", out], {
        ...from,
        DATA_DIR: a.dataDir,
        UPLOADS_DIR: a.uploadsDir,
      });
      expect(msg).toMatch(/database \+ 1 files/);
      expect(statSync(out).mode & 0o777).toBe(0o700);
      expect(existsSync(path.join(out, "database.pgdump"))).toBe(true);
      expect(existsSync(path.join(out, "app.db"))).toBe(false);
      expect(readFileSync(path.join(out, "database.pgdump")).subarray(0, 5).toString()).toBe("PGDMP");
      expect(manifestOf(out)).toMatchObject({ database: "postgres", storage: "s3", files: 1, referenced: 1 });
      // The object is copied as stored: still encrypted, byte for byte the bucket's.
      const [[key, bytes]] = [...stored];
      expect(readFileSync(path.join(out, "uploads", `${key}.enc`)).equals(bytes)).toBe(true);
      expect(readFileSync(path.join(out, "secrets", "encryption-key"), "utf8").trim()).toBe(
        secrets.ENCRYPTION_KEY,
      );
      expect((await fetch(`${a.url}/healthz`)).status).toBe(200);
      snapshots.postgres = out;
      await a.stop();
      rmSync(a.root, { recursive: true, force: true });

      const fresh = path.join(tmp, "pg-fresh");
      const to = {
        DATABASE_URL: await pgServer.createDatabase(),
        STORAGE_URL: await s3.createBucket(),
        ...s3Keys,
        ...secrets,
      };
      const env = { ...to, DATA_DIR: path.join(fresh, "data"), UPLOADS_DIR: path.join(fresh, "uploads") };
      snapshots.postgresEnv = env;

      // With another ENCRYPTION_KEY the restored files could never be read: refused, nothing touched.
      const otherKey = await runFailing("scripts/restore.ts", [out], {
        ...env,
        ENCRYPTION_KEY: sharedSecrets().ENCRYPTION_KEY,
      });
      expect(otherKey.code).toBe(1);
      expect(otherKey.output).toMatch(/ENCRYPTION_KEY is not the key this backup's files are encrypted with/);
      expect(await pgTables(to.DATABASE_URL)).toBe(0);
      expect((await bucketObjects(to.STORAGE_URL)).size).toBe(0);
      expect(await run("scripts/restore.ts", [out], env)).toMatch(/Restored database and 1 files/);
      expect((await bucketObjects(to.STORAGE_URL)).get(key)?.equals(bytes)).toBe(true);
      expect(readdirSync(path.join(fresh, "uploads"))).toEqual([]);

      // A second app on the new database and bucket, with the restored secrets (fresh/data/secrets).
      const b = started(await startServer({ ...admin, SMTP_URL: smtp.url, ...env }, { root: fresh }));
      const api2 = apiClient(b.url);
      const login = await api2.post("/auth/login", { email: "pat@pg.test", password: strongPassword });
      expect(login.status).toBe(200);
      const file = await fetch(`${b.url}/api/v1/report/${rep.body.data._id}/file`, {
        headers: { Authorization: `Bearer ${login.body.token}` },
      });
      expect(file.status).toBe(200);
      expect(Buffer.from(await file.arrayBuffer()).equals(pdf)).toBe(true);
      await b.stop();
    },
  );

  it(
    "moves a SQLite clinic to PostgreSQL and S3 with migrate:to-postgres",
    { timeout: 180_000 },
    async () => {
      const root = mkdtempSync(path.join(tmp, "clinic-"));
      const lite = sqliteEnv(root);
      const a = started(await startServer({ ...admin, SMTP_URL: smtp.url, ...lite }, { root, keep: true }));
      const api = apiClient(a.url);
      const patient = await signupViaApi(api, smtp, codeFrom, { email: "pat@m.test", firstName: "Pat" });
      const expert = await signupViaApi(api, smtp, codeFrom, {
        email: "dr@m.test",
        accountType: "Expert",
        firstName: "Dora",
      });
      const adminToken = (
        await api.post("/auth/login", { email: admin.ADMIN_EMAIL, password: admin.ADMIN_PASSWORD })
      ).body.token;
      expect(
        (await api.post("/expert/approve-expert", { expertId: expert.user._id }, adminToken)).status,
      ).toBe(200);
      const pdf = samplePdf("migrate me");
      const rep = await api.call(
        "POST",
        "/report/upload-report",
        uploadForm(
          { reportType: "Blood Test", phoneNumber: "9876543210", description: "Fasting sugar" },
          { name: "lab.pdf", data: pdf },
        ),
        patient.token,
      );
      expect(rep.status).toBe(201);
      const reportId = rep.body.data._id as string;
      const png = samplePng(16, 16);
      const pic = await api.call(
        "PUT",
        "/profile/update-display-picture",
        uploadForm({}, { field: "displayPicture", name: "me.png", data: png }),
        patient.token,
      );
      expect(pic.status).toBe(200);
      const opened = await fetch(`${a.url}/api/v1/report/${reportId}/file`, {
        headers: { Authorization: `Bearer ${expert.token}` },
      });
      expect(opened.status).toBe(200);
      await opened.arrayBuffer();
      const reviewText = "Values are normal. Repeat in a year.";
      expect(
        (await api.post(`/report/add-review/${reportId}`, { review: reviewText }, expert.token)).status,
      ).toBe(200);
      await a.stop();

      // Every table of the clinic except the rate-limit counters, the lists' totals (the target's
      // triggers keep its own; compared below) and Drizzle's own bookkeeping.
      const sqlite = new Database(lite.DATABASE_URL, { readonly: true, fileMustExist: true });
      const tables = (
        sqlite
          .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' " +
              "AND name NOT IN ('__drizzle_migrations', 'rate_limits', 'list_counts') ORDER BY name",
          )
          .all() as { name: string }[]
      ).map((r) => r.name);
      expect(tables).toEqual(expect.arrayContaining(["users", "reports", "audit_events", "sessions"]));
      const sourceCounts = Object.fromEntries(
        tables.map((t) => [t, (sqlite.prepare(`SELECT count(*) AS n FROM "${t}"`).get() as { n: number }).n]),
      );
      const listTotals = (rows: { key: string; n: number | string }[]) =>
        Object.fromEntries(rows.filter((r) => Number(r.n) !== 0).map((r) => [r.key, Number(r.n)]));
      const sourceTotals = listTotals(
        sqlite.prepare("SELECT key, n FROM list_counts").all() as { key: string; n: number }[],
      );
      sqlite.close();
      expect(sourceCounts).toMatchObject({ users: 3, reports: 1, sessions: 3 });
      expect(sourceTotals["r:s:Reviewed"]).toBe(1);
      expect(sourceCounts.audit_events).toBeGreaterThan(0);

      // PostgreSQL takes the secrets from the environment: the clinic's generated ones.
      const secret = (name: string) => readFileSync(path.join(a.dataDir, "secrets", name), "utf8").trim();
      const target = {
        DATABASE_URL: await pgServer.createDatabase(),
        STORAGE_URL: await s3.createBucket(),
        ...s3Keys,
        ENCRYPTION_KEY: secret("encryption-key"),
        SESSION_SECRET: secret("session-secret"),
      };
      // UPLOADS_DIR is unused with a bucket.
      const migrateEnv = { ...target, DATA_DIR: a.dataDir, UPLOADS_DIR: path.join(root, "unused-uploads") };
      const targetIsEmpty = async () => {
        expect(Object.values(await pgCounts(target.DATABASE_URL, tables)).every((n) => n === 0)).toBe(true);
        expect((await bucketObjects(target.STORAGE_URL)).size).toBe(0);
      };
      const args = ["--from", lite.DATABASE_URL, "--uploads", a.uploadsDir];

      // A wrong ENCRYPTION_KEY is caught on the first file, before any row is written.
      const wrongKey = await runFailing("scripts/migrate-to-postgres.ts", args, {
        ...migrateEnv,
        ENCRYPTION_KEY: sharedSecrets().ENCRYPTION_KEY,
      });
      expect(wrongKey.code).toBe(1);
      expect(wrongKey.output).toMatch(/ENCRYPTION_KEY does not decrypt the clinic's files/);
      await targetIsEmpty();

      // A row PostgreSQL refuses in one of the last tables (a message from a user that does not
      // exist, kept while SQLite's foreign keys were off): the files and rows already copied are undone.
      const broken = path.join(root, "broken.db");
      copyFileSync(lite.DATABASE_URL, broken);
      const b = new Database(broken);
      b.pragma("foreign_keys = OFF");
      b.prepare(
        "INSERT INTO contact_messages (id, name, email, message, user_id, created_at) VALUES (?, ?, ?, ?, ?, ?)",
      ).run("f".repeat(24), "Ghost", "ghost@m.test", "hello", "0".repeat(24), Date.now());
      b.close();
      const failed = await runFailing(
        "scripts/migrate-to-postgres.ts",
        ["--from", broken, "--uploads", a.uploadsDir],
        migrateEnv,
      );
      expect(failed.code).toBe(1);
      expect(failed.output).toMatch(/Migration failed while copying contact_messages/);
      expect(failed.output).toMatch(/foreign key/);
      // The failed rows are never printed: they hold names, e-mail addresses and password hashes.
      expect(failed.output).not.toMatch(/params:|pat@m\.test|\$argon2/);
      expect(failed.output).toMatch(/rolled back/);
      expect(failed.output).toMatch(/Removed the 2 files this run had put/);
      await targetIsEmpty();

      // A wrong uploads folder is caught before anything is written.
      const noFiles = await runFailing(
        "scripts/migrate-to-postgres.ts",
        ["--from", lite.DATABASE_URL, "--uploads", path.join(root, "nowhere")],
        migrateEnv,
      );
      expect(noFiles.output).toMatch(/2 of 2 referenced files are not in/);
      await targetIsEmpty();

      const out = await run("scripts/migrate-to-postgres.ts", args, migrateEnv);
      expect(out).toMatch(/Migrated .* into PostgreSQL/);
      expect(out).toMatch(/files: 2 of 2 referenced/);
      expect(out).toMatch(/Secrets: /);
      expect(out).not.toMatch(/WARNING/);
      expect(await pgCounts(target.DATABASE_URL, tables)).toEqual(sourceCounts);
      // The lists' totals the target's triggers kept while the rows arrived: the clinic's own.
      {
        const client = new pg.Client({ connectionString: target.DATABASE_URL });
        await client.connect();
        try {
          expect(listTotals((await client.query("SELECT key, n FROM list_counts")).rows)).toEqual(
            sourceTotals,
          );
        } finally {
          await client.end();
        }
      }
      const objects = await bucketObjects(target.STORAGE_URL);
      expect(objects.size).toBe(2);
      for (const [key, bytes] of objects) {
        expect(readFileSync(path.join(a.uploadsDir, `${key}.enc`)).equals(bytes)).toBe(true);
      }

      // A second run is refused: the target now holds the clinic.
      const again = await runFailing("scripts/migrate-to-postgres.ts", args, migrateEnv);
      expect(again.output).toMatch(/already holds data \(users: 3/);
      expect(await pgCounts(target.DATABASE_URL, tables)).toEqual(sourceCounts);

      // The app on PostgreSQL + S3, with the clinic's secrets and no local files at all.
      const c = started(await startServer({ ...admin, SMTP_URL: smtp.url, ...target }));
      expect(readdirSync(c.uploadsDir)).toEqual([]);
      const api2 = apiClient(c.url);
      const login = await api2.post("/auth/login", { email: "pat@m.test", password: strongPassword });
      expect(login.status).toBe(200);
      const mine = await api2.get(`/report/get-report-by-patientId/${patient.user._id}`, login.body.token);
      expect(mine.status).toBe(200);
      expect(mine.body.data).toHaveLength(1);
      expect(mine.body.data[0]).toMatchObject({
        _id: reportId,
        status: "Reviewed",
        review: reviewText,
        description: "Fasting sugar",
        expert: { firstName: "Dora" },
      });
      const file = await fetch(`${c.url}/api/v1/report/${reportId}/file`, {
        headers: { Authorization: `Bearer ${login.body.token}` },
      });
      expect(file.status).toBe(200);
      expect(Buffer.from(await file.arrayBuffer()).equals(pdf)).toBe(true);
      // The display picture came along (users.image), and so did the API session from before.
      const web = new Browserish(c.url);
      expect((await web.post("/login", { email: "pat@m.test", password: strongPassword })).status).toBe(302);
      const avatar = await web.fetch(pic.body.data.image);
      expect(avatar.status).toBe(200);
      expect(Buffer.from(await avatar.arrayBuffer()).equals(png)).toBe(true);
      expect((await api2.get("/profile/get-user-details", patient.token)).status).toBe(200);
      const reviewed = await api2.get("/report/get-report-by-expertId", expert.token);
      expect(reviewed.body.data.map((r: { _id: string }) => r._id)).toEqual([reportId]);
      await c.stop();
    },
  );

  it("refuses to restore a backup into the other kind of database", async () => {
    expect(snapshots.sqlite && snapshots.postgres && snapshots.postgresEnv).toBeTruthy();
    const into = path.join(tmp, "wrong");
    const pgIntoSqlite = await runFailing("scripts/restore.ts", [snapshots.postgres!], {
      ...sqliteEnv(into),
      DATA_DIR: path.join(into, "data"),
      UPLOADS_DIR: path.join(into, "uploads"),
    });
    expect(pgIntoSqlite.code).toBe(1);
    expect(pgIntoSqlite.output).toMatch(/holds a PostgreSQL database .* configured database is SQLite/);
    expect(existsSync(path.join(into, "data", "app.db"))).toBe(false);

    const sqliteIntoPg = await runFailing("scripts/restore.ts", [snapshots.sqlite!], {
      ...snapshots.postgresEnv!,
      DATA_DIR: path.join(into, "data2"),
    });
    expect(sqliteIntoPg.code).toBe(1);
    expect(sqliteIntoPg.output).toMatch(/holds a SQLite database .* migrate:to-postgres/);
  });
});
