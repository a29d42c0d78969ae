import Database from "better-sqlite3";
import { drizzle as drizzleSqlite } from "drizzle-orm/better-sqlite3";
import { migrate as migrateSqlite } from "drizzle-orm/better-sqlite3/migrator";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { backendEnv, onPostgres } from "../helpers/backends";

/*
 * The migration that makes patient profiles (decision 0030), run on a database holding data from
 * before it: every patient account becomes its own profile under the same id, and the reports,
 * their follow-ups and sharing links (whose tables SQLite rebuilds to point at the profiles) are
 * all still there. SQLite goes through the app's own opener (foreign keys off while migrating, then
 * checked); PostgreSQL through the same migrator the app uses. The run's backend picks which.
 */

const TAG = onPostgres ? "0005_patient_profiles_centres" : "0008_patient_profiles_centres";
const source = path.join(__dirname, "../../drizzle", onPostgres ? "pg" : "sqlite");
const tmp = mkdtempSync(path.join(os.tmpdir(), "cb-migrate-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A copy of the migrations folder that stops just before the profiles migration. */
function migrationsBefore(): string {
  const dir = path.join(tmp, "before");
  cpSync(source, dir, { recursive: true });
  const journalFile = path.join(dir, "meta/_journal.json");
  const journal = JSON.parse(readFileSync(journalFile, "utf8")) as { entries: { tag: string }[] };
  const at = journal.entries.findIndex((e) => e.tag === TAG);
  expect(at).toBeGreaterThan(0);
  journal.entries = journal.entries.slice(0, at);
  writeFileSync(journalFile, JSON.stringify(journal));
  return dir;
}

const T0 = Date.UTC(2026, 0, 5);
const SEED = [
  `INSERT INTO users (id, email, phone, password_hash, first_name, last_name, account_type, locale, approved, created_at, updated_at) VALUES
    ('p1', 'asha@x.test', NULL, 'h', 'Asha', 'Devi', 'Patient', 'hi', TRUE, $T, $T),
    ('p2', '', '+919876543210', 'h', 'Meena', '', 'Patient', 'ta', TRUE, $T, $T),
    ('e1', 'ravi@x.test', NULL, 'h', 'Ravi', 'Kumar', 'Expert', 'en', TRUE, $T, $T),
    ('a1', 'admin@x.test', NULL, 'h', 'Ad', 'Min', 'Admin', 'en', TRUE, $T, $T)`,
  `INSERT INTO reports (id, patient_id, report_type, phone_number, file_key, file_name, mime_type, size, consent_at, status, expert_id, review, reviewed_at, created_at, updated_at) VALUES
    ('r1', 'p1', 'X-Ray', '+911', 'k1', 'a.pdf', 'application/pdf', 1, $T, 'Reviewed', 'e1', 'fine', $T, $T, $T),
    ('r2', 'p1', 'MRI', '+911', 'k2', 'b.pdf', 'application/pdf', 1, $T, 'Pending', NULL, NULL, NULL, $T, $T),
    ('r3', 'p2', 'CT Scan', '+912', 'k3', 'c.png', 'image/png', 1, $T, 'Pending', NULL, NULL, NULL, $T, $T)`,
  `INSERT INTO report_followups (id, report_id, question, asked_at) VALUES ('f1', 'r1', 'Is it serious?', $T)`,
  `INSERT INTO share_links (id, token_hash, report_id, patient_id, expires_at, created_at) VALUES ('s1', 'th', 'r1', 'p1', $T, $T)`,
];

const CHECKS = {
  patients:
    "SELECT id, account_id, first_name, last_name, locale, phone, phone_owner, centre_id FROM patients ORDER BY id",
  reports: "SELECT id, patient_id, status FROM reports ORDER BY id",
  followups: "SELECT id, report_id FROM report_followups",
  links: "SELECT id, report_id, patient_id, created_by FROM share_links",
};

const EXPECTED = {
  patients: [
    {
      id: "p1",
      account_id: "p1",
      first_name: "Asha",
      last_name: "Devi",
      locale: "hi",
      phone: null,
      phone_owner: "none",
      centre_id: null,
    },
    {
      id: "p2",
      account_id: "p2",
      first_name: "Meena",
      last_name: "",
      locale: "ta",
      phone: "+919876543210",
      phone_owner: "self",
      centre_id: null,
    },
  ],
  reports: [
    { id: "r1", patient_id: "p1", status: "Reviewed" },
    { id: "r2", patient_id: "p1", status: "Pending" },
    { id: "r3", patient_id: "p2", status: "Pending" },
  ],
  followups: [{ id: "f1", report_id: "r1" }],
  // Links from before were made by the person themself (the next migration says so).
  links: [{ id: "s1", report_id: "r1", patient_id: "p1", created_by: "p1" }],
};

describe.skipIf(onPostgres)("the patient-profiles migration on SQLite, with data", () => {
  it("makes each patient account its own profile and keeps every report, follow-up and link", async () => {
    const file = path.join(tmp, "before.sqlite");
    const old = new Database(file);
    old.pragma("journal_mode = WAL");
    old.pragma("foreign_keys = ON");
    migrateSqlite(drizzleSqlite(old), { migrationsFolder: migrationsBefore() });
    for (const s of SEED) old.exec(s.replaceAll("$T", String(T0)).replaceAll("TRUE", "1"));
    old.close();

    // The app's own opener applies the rest (foreign keys off during the rebuild, checked after).
    const { openSqlite } = await import("~/db/client.server");
    const { sqlite } = openSqlite(file);
    try {
      for (const [k, q] of Object.entries(CHECKS))
        expect(sqlite.prepare(q).all(), k).toEqual(EXPECTED[k as keyof typeof CHECKS]);
      expect(sqlite.pragma("foreign_key_check")).toEqual([]);
      expect(sqlite.pragma("foreign_keys", { simple: true })).toBe(1);
      // Reports now belong to profiles: an account id with no profile is refused.
      expect(() =>
        sqlite
          .prepare(
            "INSERT INTO reports (id, patient_id, report_type, phone_number, file_key, file_name, mime_type, size, consent_at, created_at, updated_at) VALUES ('r9', 'e1', 'MRI', '1', 'k9', 'x.pdf', 'application/pdf', 1, 0, 0, 0)",
          )
          .run(),
      ).toThrow(/FOREIGN KEY/);
      // Erasing the account still takes its profile, reports, follow-ups and links with it.
      sqlite.prepare("DELETE FROM users WHERE id = 'p1'").run();
      expect(sqlite.prepare("SELECT count(*) AS n FROM reports WHERE patient_id = 'p1'").get()).toEqual({
        n: 0,
      });
      expect(sqlite.prepare("SELECT count(*) AS n FROM report_followups").get()).toEqual({ n: 0 });
      expect(sqlite.prepare("SELECT count(*) AS n FROM share_links").get()).toEqual({ n: 0 });
    } finally {
      sqlite.close();
    }
  });
});

describe.skipIf(!onPostgres)("the patient-profiles migration on PostgreSQL, with data", () => {
  it("makes each patient account its own profile and keeps every report, follow-up and link", async () => {
    // An empty database, not the run's migrated template: this test migrates it in two steps.
    const env = await backendEnv({ template: false });
    const pool = new pg.Pool({ connectionString: env.DATABASE_URL, max: 1 });
    try {
      const db = drizzlePg(pool);
      await migratePg(db, { migrationsFolder: migrationsBefore() });
      for (const s of SEED) await pool.query(s.replaceAll("$T", `to_timestamp(${T0 / 1000})`));
      await migratePg(db, { migrationsFolder: source });
      for (const [k, q] of Object.entries(CHECKS))
        expect((await pool.query(q)).rows, k).toEqual(EXPECTED[k as keyof typeof CHECKS]);
      await expect(
        pool.query(
          "INSERT INTO reports (id, patient_id, report_type, phone_number, file_key, file_name, mime_type, size, consent_at) VALUES ('r9', 'e1', 'MRI', '1', 'k9', 'x.pdf', 'application/pdf', 1, now())",
        ),
      ).rejects.toThrow(/foreign key/);
      await pool.query("DELETE FROM users WHERE id = 'p1'");
      expect(
        (await pool.query("SELECT count(*)::int AS n FROM reports WHERE patient_id = 'p1'")).rows,
      ).toEqual([{ n: 0 }]);
      expect((await pool.query("SELECT count(*)::int AS n FROM share_links")).rows).toEqual([{ n: 0 }]);
    } finally {
      await pool.end();
    }
  });
});
