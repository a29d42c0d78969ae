import { describe, expect, it } from "vitest";
import { applyMigration, databaseBefore } from "../helpers/sqlite-migrations";

/*
 * The migration that puts the lab reader on the one runner (decision 0113) gives every read still
 * waiting, or cut off mid-read, its job with the attempts already made, and no other read one
 * (SQLite; the PostgreSQL file has the same statement in its dialect).
 */

describe("0037_lab_read_jobs", () => {
  it("a job for each queued or reading read, with its attempts, due time and last error; none for the settled", () => {
    const db = databaseBefore("0037_lab_read_jobs");
    db.pragma("foreign_keys = OFF"); // reads without their reports: only lab_reads is looked at
    db.exec(`
      INSERT INTO lab_reads (report_id, status, attempts, account, next_attempt_at, last_error, created_at) VALUES
        ('r1', 'queued', 0, 'u1', 1000, NULL, 900),
        ('r2', 'reading', 1, 'u1', 2000, NULL, 901),
        ('r3', 'queued', 2, 'u2', 3000, 'pdftotext crashed', 902),
        ('r4', 'read', 1, 'u2', 4000, NULL, 903),
        ('r5', 'failed', 3, 'u3', 5000, 'time limit', 904),
        ('r6', 'not-lab', 1, 'u3', 6000, NULL, 905);
    `);
    applyMigration(db, "0037_lab_read_jobs");
    const jobs = db
      .prepare(
        "SELECT kind, key, payload, state, attempts, run_at AS runAt, last_error AS lastError FROM jobs ORDER BY key",
      )
      .all();
    expect(jobs).toEqual([
      {
        kind: "lab-read",
        key: "r1",
        payload: '{"reportId":"r1"}',
        state: "queued",
        attempts: 0,
        runAt: 1000,
        lastError: null,
      },
      {
        kind: "lab-read",
        key: "r2",
        payload: '{"reportId":"r2"}',
        state: "queued",
        attempts: 1,
        runAt: 2000,
        lastError: null,
      },
      {
        kind: "lab-read",
        key: "r3",
        payload: '{"reportId":"r3"}',
        state: "queued",
        attempts: 2,
        runAt: 3000,
        lastError: "pdftotext crashed",
      },
    ]);
    db.close();
  });
});
