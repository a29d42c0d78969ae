import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { freshDomain, makePatient, makeReport, pdfBytes } from "../helpers/factories";

/*
 * The figure of decision 0067, measured on demand (BENCH_BACKUP=1; skipped in CI): 1,000 reports
 * with a 100 kB file each, one backup with its verification, then one more report and a second
 * backup (deduplication: what it adds), then one with nothing new. On SQLite, or with
 * TEST_BACKEND=pg-s3 on PostgreSQL with the files in the S3 bucket.
 *
 *   BENCH_BACKUP=1 npx vitest run tests/domain/backup-bench.test.ts
 */
it.skipIf(!process.env.BENCH_BACKUP)(
  "1,000 reports: backup and verification time, and what a second backup adds",
  async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "cb-bench-"));
    const d = await freshDomain({ BACKUP_REPOSITORY: path.join(dir, "repo") });
    try {
      const ops = await import("~/domain/operations/index.server");
      const patients = await Promise.all(Array.from({ length: 10 }, () => makePatient()));
      for (let i = 0; i < 1000; i++) await makeReport(patients[i % 10], { bytes: pdfBytes(100_000) });
      const show = (label: string, r: Awaited<ReturnType<typeof ops.runBackup>>) =>
        console.log(
          `${label}: ${r.status} in ${(r.durationMs! / 1000).toFixed(1)} s`,
          JSON.stringify({ files: r.files, read: r.sizeBytes, added: r.addedBytes, ...r.phasesMs }),
        );
      const first = await ops.runBackup();
      show("first backup", first);
      await makeReport(patients[0], { bytes: pdfBytes(100_000) });
      const second = await ops.runBackup();
      show("after one new report", second);
      show("with nothing new", await ops.runBackup());
      expect([first.status, second.status]).toEqual(["verified", "verified"]);
    } finally {
      await d.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
  600_000,
);
