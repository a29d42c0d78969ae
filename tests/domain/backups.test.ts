import { execFileSync } from "node:child_process";
import { openSync, readdirSync, statSync, writeSync, closeSync } from "node:fs";
import path from "node:path";
import * as vitest from "vitest";
import { expect } from "vitest";
import { onlyWith, requireTool } from "../helpers/requires";
import { leaveStaleLock, locksIn, resticDomain } from "../helpers/restic";
import { mailsTo, makeReport, type Domain, type Person } from "../helpers/factories";

const { afterAll, beforeAll, describe, it } = onlyWith(requireTool("restic", "restic"), vitest);

/*
 * Scheduled, verified backups (decision 0067) with real restic into a real repository (a folder
 * in a temporary directory), on SQLite with local files and — TEST_BACKEND=pg-s3 — on PostgreSQL
 * with the files read from the S3 bucket: a backup is stored and verified (check, the database
 * restored and counted, files decrypted), the second one after a new report adds little
 * (deduplication), retention keeps one a day, one node of two takes a slot, and a repository
 * whose pack was overwritten gives an unverified run, the good snapshot kept, and one mail.
 */

let d: Domain;
let ops: typeof import("~/domain/operations/index.server");
let admin: Person;
let patient: Person;
let repo: string;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ d, ops, admin, patient, repo, close } = await resticDomain({ verifyFiles: 3, reports: 3 }));
}, 60_000);
afterAll(async () => {
  await close?.();
});

/** restic's own view of the repository (the password file the app generated). */
function snapshotsInRepo(): { id: string }[] {
  const b = d.config.config().backup;
  const out = execFileSync("restic", ["-r", repo, "--no-cache", "snapshots", "--json"], {
    env: { ...process.env, RESTIC_PASSWORD_FILE: b.passwordFile },
  });
  return JSON.parse(out.toString());
}

describe("a backup", () => {
  let first: Awaited<ReturnType<typeof ops.runBackup>>;

  it("is stored in the repository (created on first use) and verified", async () => {
    first = await ops.runBackup();
    expect(first.reason).toBeNull();
    expect(first).toMatchObject({ status: "verified", trigger: "manual", repository: repo, files: 3 });
    expect(first.snapshotId).toMatch(/^[0-9a-f]{8,}$/);
    expect(first.sizeBytes).toBeGreaterThan(10_000);
    expect(first.durationMs).toBeGreaterThan(0);
    expect(snapshotsInRepo()).toHaveLength(1);
    // The staging folder is emptied after the snapshot.
    expect(readdirSync(path.dirname(d.config.config().backup.stagingDir))).not.toContain("carebridge-backup");
    const gauge = (await ops.productGauges()).find(
      (g) => g.name === "carebridge_backup_last_verified_timestamp_seconds",
    );
    expect(gauge!.value).toBeGreaterThanOrEqual(Math.floor(first.finishedAt!.getTime() / 1000));
  }, 60_000);

  it("after one new report adds little (deduplication), and retention keeps one a day", async () => {
    await makeReport(patient);
    const second = await ops.runBackup();
    expect(second.status).toBe("verified");
    expect(second.files).toBe(4);
    expect(second.addedBytes!).toBeLessThan(first.addedBytes!);
    // BACKUP_KEEP_DAILY keeps the newest of each day: today's first one is forgotten.
    const left = snapshotsInRepo();
    expect(left).toHaveLength(1);
    expect(left[0].id.startsWith(second.snapshotId!)).toBe(true);
  }, 60_000);
});

describe("the schedule", () => {
  it("is BACKUP_AT in the clinic's time (India unless CLINIC_TIME_ZONE), the latest slot at or before now", () => {
    const at = (h: number, m: number, day = 26) =>
      Date.parse(`2026-11-${day}T${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}:00+05:30`);
    expect(ops.dueSlot(at(3, 0))).toBe(at(2, 30));
    expect(ops.dueSlot(at(2, 30))).toBe(at(2, 30));
    expect(ops.dueSlot(at(2, 29))).toBe(at(2, 30, 25));
  });

  it("a slot is taken by one of two nodes looking at once, and only once", async () => {
    const now = Date.now();
    const [a, b] = await Promise.all([ops.backupTick(now), ops.backupTick(now)]);
    const runs = [a, b].filter(Boolean);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: "verified", trigger: "scheduled" });
    expect(runs[0]!.slot!.getTime()).toBe(ops.dueSlot(now));
    expect(await ops.backupTick(now + 1000)).toBeNull();
    const listed = await ops.listBackupRuns(admin);
    expect(listed.filter((r) => r.trigger === "scheduled")).toHaveLength(1);
  }, 60_000);
});

describe("a run cut off", () => {
  it("a lock left by a killed restic (a power cut mid-check) does not stop the next backup", async () => {
    await leaveStaleLock(repo, d.config.config().backup.passwordFile);
    // restic 0.14 lets nothing past that exclusive lock until `unlock`.
    expect(locksIn(repo)).toHaveLength(1);
    const run = await ops.runBackup();
    expect(run.reason).toBeNull();
    expect(run.status).toBe("verified");
    expect(locksIn(repo)).toHaveLength(0);
  }, 90_000);
});

describe("a damaged repository", () => {
  it("gives an unverified run, keeps the good snapshot and mails the admins once", async () => {
    const good = snapshotsInRepo();
    // Overwrite the start of every data pack, as a failing disk would.
    const packs: string[] = [];
    for (const dir of readdirSync(path.join(repo, "data")))
      for (const f of readdirSync(path.join(repo, "data", dir))) packs.push(path.join(repo, "data", dir, f));
    expect(packs.length).toBeGreaterThan(0);
    for (const p of packs) {
      const fd = openSync(p, "r+");
      writeSync(fd, Buffer.alloc(Math.min(64, statSync(p).size), 0x41), 0, undefined, 0);
      closeSync(fd);
    }
    const run = await ops.runBackup();
    expect(run.status).toBe("unverified");
    expect(run.reason).toMatch(/restic check/);
    expect(run.snapshotId).toBeTruthy();
    expect(run.alertedAt).toBeTruthy();
    // Not pruned: the earlier verified snapshot is still there, next to the unverified one.
    const ids = snapshotsInRepo().map((s) => s.id);
    for (const s of good) expect(ids).toContain(s.id);
    const mails = await mailsTo(admin.email, /could not be verified/);
    expect(mails).toHaveLength(1);
    expect(mails[0].body).toContain("restic check");
    const listed = await ops.listBackupRuns(admin);
    expect(listed[0]).toMatchObject({ id: run.id, status: "unverified" });
  }, 90_000);
});

describe("a stopping server", () => {
  it("starts no restic once it is stopping: the backup fails and says why, the repository untouched", async () => {
    const before = snapshotsInRepo().length;
    await ops.stopBackupScheduler();
    const run = await ops.runBackup();
    expect(run.status).toBe("failed");
    expect(run.reason).toMatch(/the server is stopping/);
    expect(snapshotsInRepo()).toHaveLength(before);
    expect(locksIn(repo)).toHaveLength(0);
  }, 60_000);
});
