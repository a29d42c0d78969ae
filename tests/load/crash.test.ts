/**
 * Crash safety of the built app:
 * - SIGKILL in the middle of uploads and reviews, then a restart, leaves no row without its
 *   file, no file without its row and no half-written file (the start-up sweep removes what
 *   a crash leaves: temporary `.part` files and files whose row was never written);
 * - SIGTERM lets an upload in flight finish (201), refuses new connections, and the process
 *   exits 0 with the database closed cleanly (WAL checkpointed).
 */
import Database from "better-sqlite3";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { samplePdf } from "../helpers/files";
import {
  adminToken,
  approve,
  decryptStored,
  killApp,
  MULTIPART_TYPE,
  multipartBody,
  sha256,
  signup,
  slowUpload,
  startApp,
  storedFiles,
  type App,
} from "./support";

const roots: string[] = [];
const apps: App[] = [];
afterAll(async () => {
  for (const a of apps) await killApp(a);
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

async function fresh() {
  const root = mkdtempSync(path.join(os.tmpdir(), "carebridge-crash-"));
  roots.push(root);
  return root;
}
async function start(root: string) {
  const app = await startApp(root);
  apps.push(app);
  return app;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pdf = (size: number, tag: string) => Buffer.concat([samplePdf(tag), randomBytes(size)]);

async function postUpload(app: App, token: string, file: Buffer) {
  const r = await fetch(`${app.url}/api/v1/report/upload-report`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": MULTIPART_TYPE },
    body: multipartBody(file),
  });
  return { status: r.status, body: await r.json() };
}

describe("crash safety", () => {
  it(
    "SIGKILL mid-uploads and mid-reviews, restart: rows and files match, nothing half-written",
    { timeout: 90_000 },
    async () => {
      const root = await fresh();
      let app = await start(root);
      const admin = await adminToken(app);
      const expert = await signup(app, "expert@crash.test", "Expert");
      await approve(app, admin, expert.id);
      const patient = await signup(app, "patient@crash.test", "Patient");

      const acked = new Map<string, string>(); // report id → sha256 of the bytes sent
      const reviewedAck = new Set<string>();
      for (let i = 0; i < 8; i++) {
        const file = pdf(5_000, `before ${i}`);
        const r = await postUpload(app, patient.token, file);
        expect(r.status).toBe(201);
        acked.set(r.body.data._id, sha256(file));
      }

      // Traffic that is always in the middle of something: quick uploads, slow 3 MB uploads
      // (body still arriving), and reviews of whatever has been uploaded.
      let running = true;
      let slowInFlight = 0;
      const quick = async (n: number) => {
        while (running) {
          const file = pdf(20_000 + n * 10_000, `quick ${n} ${Date.now()}`);
          try {
            const r = await postUpload(app, patient.token, file);
            if (r.status === 201) acked.set(r.body.data._id, sha256(file));
          } catch {
            /* the server died under us */
          }
        }
      };
      const slow = async (n: number) => {
        while (running) {
          const file = pdf(3 * 1024 * 1024, `slow ${n} ${Date.now()}`);
          slowInFlight++;
          try {
            const r = await slowUpload(app.url, patient.token, file, { chunk: 128 * 1024, delayMs: 5 });
            if (r.status === 201) acked.set(JSON.parse(r.body).data._id, sha256(file));
          } catch {
            /* the server died under us */
          } finally {
            slowInFlight--;
          }
        }
      };
      const reviewer = async (n: number) => {
        while (running) {
          const ids = [...acked.keys()].filter((id) => !reviewedAck.has(id));
          const id = ids[Math.floor(Math.random() * ids.length)];
          if (!id) {
            await sleep(10);
            continue;
          }
          try {
            const r = await fetch(`${app.url}/api/v1/report/add-review/${id}`, {
              method: "POST",
              headers: { Authorization: `Bearer ${expert.token}`, "Content-Type": "application/json" },
              body: JSON.stringify({ review: `Crash-test review ${n}.` }),
            });
            if (r.status === 200) reviewedAck.add(id);
            await r.arrayBuffer();
          } catch {
            /* the server died under us */
          }
        }
      };
      const traffic = [
        ...Array.from({ length: 6 }, (_, i) => quick(i)),
        ...Array.from({ length: 4 }, (_, i) => slow(i)),
        ...Array.from({ length: 4 }, (_, i) => reviewer(i)),
      ];
      await sleep(1500 + Math.random() * 1000);
      while (slowInFlight === 0) await sleep(5);
      const ackedBeforeKill = acked.size;
      app.child.kill("SIGKILL");
      expect((await app.exited).signal).toBe("SIGKILL");
      running = false;
      await Promise.allSettled(traffic);
      expect(ackedBeforeKill).toBeGreaterThanOrEqual(8);

      // What a crash can leave, planted on top of whatever this one left: a half-written
      // temporary file, and a complete file whose row was never inserted.
      const leftBehind = storedFiles(app.uploadsDir);
      const partKey = randomBytes(16).toString("hex");
      const orphanKey = randomBytes(16).toString("hex");
      writeFileSync(path.join(app.uploadsDir, `${partKey}.part`), randomBytes(70_000));
      writeFileSync(
        path.join(app.uploadsDir, `${orphanKey}.enc`),
        Buffer.concat([Buffer.from("CBF1"), randomBytes(5000)]),
      );

      app = await start(root);
      // The sweep runs in the background at start-up, removing one file after another, and logs
      // when it has gone through them all: the files are compared only then.
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && !/"msg":"upload sweep"/.test(app.output())) await sleep(50);

      const db = new Database(path.join(app.dataDir, "app.db"), { readonly: true, fileMustExist: true });
      try {
        expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
        const rows = db
          .prepare(
            "SELECT id, file_key AS key, size, status, review, expert_id AS expertId, reviewed_at AS reviewedAt FROM reports",
          )
          .all() as {
          id: string;
          key: string;
          size: number;
          status: string;
          review: string | null;
          expertId: string | null;
          reviewedAt: number | null;
        }[];
        const files = storedFiles(app.uploadsDir);
        console.log(
          `crash: ${acked.size} uploads and ${reviewedAck.size} reviews acknowledged; the kill left ` +
            `${leftBehind.part.length} .part and ${leftBehind.enc.length - rows.length} unreferenced .enc; ${rows.length} rows after restart`,
        );
        // No half-written file, no file without its row, no row without its file.
        expect(files.part).toEqual([]);
        expect(files.enc.sort()).toEqual(rows.map((r) => r.key).sort());
        for (const row of rows)
          expect(decryptStored(app.uploadsDir, app.dataDir, row.key).length).toBe(row.size);
        // Everything acknowledged survived, byte for byte.
        const byId = new Map(rows.map((r) => [r.id, r]));
        for (const [id, hash] of acked) {
          expect(byId.has(id), id).toBe(true);
          expect(sha256(decryptStored(app.uploadsDir, app.dataDir, byId.get(id)!.key))).toBe(hash);
        }
        for (const id of reviewedAck) expect(byId.get(id)?.status).toBe("Reviewed");
        // Each write was all-or-nothing: a review with all its fields and its audit event.
        for (const row of rows.filter((r) => r.status === "Reviewed")) {
          expect([row.review, row.expertId, row.reviewedAt].every((v) => v !== null)).toBe(true);
        }
        const audited = (action: string) =>
          new Set(
            (
              db.prepare("SELECT subject_id AS id FROM audit_events WHERE action = ?").all(action) as {
                id: string;
              }[]
            ).map((r) => r.id),
          );
        const uploads = audited("report.upload");
        const reviews = audited("report.review");
        for (const row of rows) {
          expect(uploads.has(row.id)).toBe(true);
          expect(reviews.has(row.id)).toBe(row.status === "Reviewed");
        }
        // The restarted app lists exactly these reports.
        const listed = await fetch(
          `${app.url}/api/v1/report/get-report-by-patientId/${patient.id}?pageSize=1`,
          {
            headers: { Authorization: `Bearer ${patient.token}` },
          },
        ).then((r) => r.json());
        expect(listed.pagination.total).toBe(rows.length);
      } finally {
        db.close();
      }
      expect(app.output()).toMatch(/"msg":"upload sweep".*"removedOrphans":[1-9]/);
      app.child.kill("SIGTERM");
      expect((await app.exited).code).toBe(0);
    },
  );

  it(
    "SIGTERM lets an upload in flight finish, refuses new work, exits 0 with the WAL checkpointed",
    { timeout: 60_000 },
    async () => {
      const root = await fresh();
      const app = await start(root);
      const patient = await signup(app, "drain@crash.test", "Patient");
      const file = pdf(3 * 1024 * 1024, "drain");
      let signalled!: () => void;
      const signalSent = new Promise<void>((r) => (signalled = r));
      const upload = slowUpload(app.url, patient.token, file, {
        chunk: 64 * 1024,
        delayMs: 20, // about a second for the whole body
        afterFirstChunk: () => {
          setTimeout(() => {
            app.child.kill("SIGTERM");
            signalled();
          }, 200);
        },
      });
      await signalSent;
      await sleep(100);
      // Stopped listening: a new connection is refused while the upload is still arriving.
      await expect(fetch(`${app.url}/healthz`)).rejects.toThrow();
      const done = await upload;
      expect(done.status).toBe(201);
      const id = JSON.parse(done.body).data._id as string;

      const exit = await Promise.race([app.exited, sleep(20_000).then(() => "timeout" as const)]);
      expect(exit).toEqual({ code: 0, signal: null });
      const wal = path.join(app.dataDir, "app.db-wal");
      expect(existsSync(wal) ? statSync(wal).size : 0).toBe(0);
      const db = new Database(path.join(app.dataDir, "app.db"), { readonly: true, fileMustExist: true });
      try {
        const row = db.prepare("SELECT file_key AS key FROM reports WHERE id = ?").get(id) as
          | { key: string }
          | undefined;
        expect(row).toBeDefined();
        expect(sha256(decryptStored(app.uploadsDir, app.dataDir, row!.key))).toBe(sha256(file));
      } finally {
        db.close();
      }
      expect(app.output()).not.toMatch(/"level":"error"/);
    },
  );
});
