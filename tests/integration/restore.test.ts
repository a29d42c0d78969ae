import { execFile, execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import * as vitest from "vitest";
import { expect } from "vitest";
import { apiClient, signupViaApi } from "../helpers/api";
import { webmOpus } from "../helpers/audio";
import {
  S3_CREDENTIALS,
  sharedSecrets,
  startPostgres,
  startS3,
  type Postgres,
  type S3Server,
} from "../helpers/backends";
import { ctInstance } from "../helpers/dicom";
import { samplePdf, uploadForm } from "../helpers/files";
import { formatDateTime } from "~/lib/format";
import { onlyWith, requireTool } from "../helpers/requires";
import { leaveStaleLock } from "../helpers/restic";
import { runScript } from "../helpers/scripts";
import { startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

const { describe, it, beforeAll, afterAll } = onlyWith(
  requireTool("restic", "restic") && requireTool("pdftotext", "poppler-utils"),
  vitest,
);

/*
 * A clinic's machine is lost (decisions 0067, 0069): data made through the API — a patient and a
 * family member, a patient registered at a centre by its health worker, reports with files, an
 * opinion and its letter, a voice note, a DICOM study, a sharing link, the access trail — is backed
 * up by the scheduled backup's own code (`npm run backup`: restic, verified) into a repository
 * standing for a USB disk; a new, empty machine (new data and upload folders, a new database and
 * bucket) restores it with one command and the recovery sheet's password; the app started there
 * answers every read byte for byte as the old one did. On SQLite with local files, and on
 * PostgreSQL with an S3 bucket — there from the sheet alone: the new machine is given no
 * SESSION_SECRET or ENCRYPTION_KEY, the snapshot's are used (decision 0091). The restore says which
 * snapshot it brought back and when it was taken, in the clinic's time.
 */

const execFileP = promisify(execFile);
const tmp = mkdtempSync(path.join(os.tmpdir(), "cb-restore-"));
const stops: (() => Promise<unknown>)[] = [];
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let pgServer: Postgres | undefined;
let s3: S3Server | undefined;

async function run(script: string, args: string[], env: Record<string, string>): Promise<string> {
  return (
    await runScript(script, args, { env: { ...process.env, LOG_LEVEL: "silent", BACKUP_AT: "off", ...env } })
  ).stdout;
}

beforeAll(async () => {
  smtp = await startSmtp();
}, 60_000);
afterAll(async () => {
  for (const stop of stops.reverse()) await stop().catch(() => {});
  await s3?.stop();
  await pgServer?.stop();
  await smtp?.close();
  rmSync(tmp, { recursive: true, force: true });
});

const admin = { ADMIN_EMAIL: "admin@r.test", ADMIN_PASSWORD: "Admin-pass-123", RATE_LIMIT_DISABLED: "1" };

type Reads = { json: Map<string, unknown>; bytes: Map<string, Buffer> };

/** Makes the clinic's data through the API; returns what to read back and with which tokens. */
async function makeClinic(server: TestServer, tag: string) {
  const api = apiClient(server.url);
  const adminToken = (
    await api.post("/auth/login", { email: admin.ADMIN_EMAIL, password: admin.ADMIN_PASSWORD })
  ).body.token as string;
  const expert = await signupViaApi(api, smtp, codeFrom, {
    email: `dr-${tag}@r.test`,
    accountType: "Expert",
  });
  expect((await api.post("/expert/approve-expert", { expertId: expert.user._id }, adminToken)).status).toBe(
    200,
  );
  const patient = await signupViaApi(api, smtp, codeFrom, { email: `pat-${tag}@r.test`, firstName: "Kamla" });
  const member = await api.raw(
    "POST",
    "/family/members",
    {
      firstName: "Meena",
      sex: "female",
      birthYear: 1990,
      relationship: "daughter",
      preferredLanguage: "hi",
      memberConsent: true,
    } as never,
    patient.token,
  );
  expect(member.status).toBe(201);
  const centreId = (
    await api.post(
      "/centres",
      { name: "HWC Rampur", kind: "hwc", district: "Sitapur", state: "Uttar Pradesh", pinCode: "261001" },
      adminToken,
    )
  ).body.data._id as string;
  const worker = await signupViaApi(api, smtp, codeFrom, {
    email: `hw-${tag}@r.test`,
    firstName: "Sunita",
    extra: { accountType: "HealthWorker", centreId, workerRole: "cho", workerId: "CHO-1" } as never,
  });
  expect(
    (await api.raw("POST", `/health-workers/${worker.user._id}/approve`, undefined, adminToken)).status,
  ).toBe(200);
  const registered = await api.call(
    "POST",
    "/centre/patients",
    uploadForm({
      firstName: "Phoolmati",
      lastName: "Devi",
      sex: "female",
      age: "61",
      locality: "Rampur",
      preferredLanguage: "hi",
      phoneOwner: "none",
      consent: "granted",
      consentMethod: "verbal",
    }),
    worker.token,
  );
  expect(registered.status).toBe(201);

  const pdf = samplePdf(`restore me ${tag}`);
  const report = await api.call(
    "POST",
    "/report/upload-report",
    uploadForm({ reportType: "Blood Test", phoneNumber: "9876543210" }, { name: "lab.pdf", data: pdf }),
    patient.token,
  );
  expect(report.status).toBe(201);
  const reportId = report.body.data._id as string;
  const study = await api.call(
    "POST",
    "/report/upload-report",
    uploadForm(
      { reportType: "CT Scan", phoneNumber: "9876543210", countryCode: "+91" },
      { name: "ct.dcm", data: ctInstance(), type: "application/dicom" },
    ),
    patient.token,
  );
  expect(study.status, JSON.stringify(study.body)).toBe(201);
  const studyId = study.body.data._id as string;
  expect((await api.post(`/report/claim/${reportId}`, {}, expert.token)).status).toBe(200);
  expect(
    (await api.post(`/report/add-review/${reportId}`, { review: "Haemoglobin is low" }, expert.token)).status,
  ).toBe(200);
  const voice = uploadForm(
    { kind: "description", language: "hi" },
    { name: "v.webm", data: webmOpus(2), type: "audio/webm", field: "audio" },
  );
  voice.append("reportId", reportId);
  const note = await api.call("POST", "/voice-notes", voice, patient.token);
  expect(note.status, JSON.stringify(note.body)).toBe(201);
  const link = await api.post("/report/share-links", { reportId }, patient.token);
  expect(link.status).toBe(201);

  const p = patient.token;
  return {
    json: [
      [`/profile/get-user-details`, p],
      [`/report/get-report-by-patientId/${patient.user._id}?pageSize=100`, p],
      [`/family/members`, p],
      [`/voice-notes?reportId=${reportId}`, p],
      [`/report/share-links?reportId=${reportId}`, p],
      [`/report/${studyId}/study`, p],
      [`/centre/patients?pageSize=100`, worker.token],
      [`/report/get-report-by-expertId?pageSize=100`, expert.token],
    ] as [string, string][],
    bytes: [
      [`/report/${reportId}/file`, p],
      [`/report/${reportId}/opinion.pdf`, p],
      [`/report/${studyId}/file`, p],
      [`/voice-notes/${note.body.data._id}/audio`, p],
    ] as [string, string][],
    trail: [`/profile/access-trail?pageSize=100`, p] as [string, string],
    pdf,
  };
}

async function readAll(url: string, clinic: Awaited<ReturnType<typeof makeClinic>>): Promise<Reads> {
  const out: Reads = { json: new Map(), bytes: new Map() };
  for (const [p, token] of clinic.json) {
    const r = await fetch(`${url}/api/v1${p}`, { headers: { Authorization: `Bearer ${token}` } });
    expect(r.status, p).toBe(200);
    // Links the server builds from its own address (a letter's verify URL) name the machine.
    out.json.set(p, JSON.parse((await r.text()).replaceAll(url, "http://the-clinic")));
  }
  for (const [p, token] of clinic.bytes) {
    const r = await fetch(`${url}/api/v1${p}`, { headers: { Authorization: `Bearer ${token}` } });
    expect(r.status, p).toBe(200);
    const body = Buffer.from(await r.arrayBuffer());
    // The letter is drawn when asked for, with the server's address in its verify link: its words.
    out.bytes.set(
      p,
      p.endsWith(".pdf") ? Buffer.from((await pdfText(body)).replaceAll(url, "http://the-clinic")) : body,
    );
  }
  return out;
}

async function pdfText(pdf: Buffer): Promise<string> {
  const file = path.join(tmp, `letter-${Date.now()}-${Math.random()}.pdf`);
  writeFileSync(file, pdf);
  const { stdout } = await execFileP("pdftotext", ["-layout", file, "-"], { encoding: "utf8" });
  rmSync(file);
  return stdout;
}

/** When restic says a snapshot was taken. */
function snapshotTime(repository: string, passwordFile: string, id: string): string {
  const out = execFileSync(
    "restic",
    ["-r", repository, "--no-cache", "--no-lock", "snapshots", "--json", "--", id],
    {
      env: { ...process.env, RESTIC_PASSWORD_FILE: passwordFile },
      encoding: "utf8",
    },
  );
  return (JSON.parse(out) as { time: string }[])[0].time;
}

async function trail(url: string, [p, token]: [string, string]) {
  const r = await fetch(`${url}/api/v1${p}`, { headers: { Authorization: `Bearer ${token}` } });
  expect(r.status).toBe(200);
  return r.json();
}

/** The whole round trip for one setup; `backend(name)` gives a fresh database and store. */
async function roundTrip(
  tag: string,
  backend: () => Promise<Record<string, string>>,
  /** The lost machine's own settings (PostgreSQL + S3: SESSION_SECRET, ENCRYPTION_KEY); the new one has none of them. */
  lostMachine: Record<string, string> = {},
) {
  const rootA = mkdtempSync(path.join(tmp, `${tag}-a-`));
  const envA: Record<string, string> = { ...admin, SMTP_URL: smtp.url, ...(await backend()), ...lostMachine };
  const a = await startServer(envA, { root: rootA, keep: true });
  stops.push(() => a.stop());
  const clinic = await makeClinic(a, tag);
  const before = await readAll(a.url, clinic);
  expect(before.bytes.get(clinic.bytes[0][0])!.equals(clinic.pdf)).toBe(true);
  const trailBefore = await trail(a.url, clinic.trail);

  // The scheduled backup's own run, into a folder standing for a USB disk.
  const usb = path.join(tmp, `${tag}-usb`);
  const backedUp = Date.now();
  const backupSaid = await run("scripts/backup.ts", [], {
    ...envA,
    DATA_DIR: a.dataDir,
    UPLOADS_DIR: a.uploadsDir,
    BACKUP_REPOSITORY: usb,
  });
  const backupSeconds = (Date.now() - backedUp) / 1000;
  // The recovery sheet's password, kept apart from the machine.
  const sheet = path.join(tmp, `${tag}-sheet-password`);
  copyFileSync(path.join(a.dataDir, "secrets", "backup-password"), sheet);
  await a.stop();
  rmSync(rootA, { recursive: true, force: true });

  const snapshotId = /^Backup ([0-9a-f]{8,64}) stored/m.exec(backupSaid)?.[1];
  expect(snapshotId, backupSaid).toBeTruthy();
  // The machine died mid-check: its lock is still on the disk. A restore only reads, and reads past it.
  if (tag === "lite") await leaveStaleLock(usb, sheet);

  // A new machine: empty folders, a new database and store (PostgreSQL: the operator's new
  // DATABASE_URL and bucket) and nothing else but the recovery sheet — not the old machine's
  // SESSION_SECRET or ENCRYPTION_KEY: the snapshot holds them (decision 0091).
  const fresh = mkdtempSync(path.join(tmp, `${tag}-new-`));
  const { DATABASE_URL: _d, STORAGE_URL: _s, SESSION_SECRET: _ss, ENCRYPTION_KEY: _ek, ...keep } = envA;
  const envB = {
    ...keep,
    ...(await backend()),
    DATA_DIR: path.join(fresh, "data"),
    UPLOADS_DIR: path.join(fresh, "uploads"),
  };
  const restoring = Date.now();
  const said = await run(
    "scripts/restore.ts",
    ["--repository", usb, "--snapshot", "latest", "--password-file", sheet],
    envB,
  );
  const restoreSeconds = (Date.now() - restoring) / 1000;
  expect(said).toMatch(/Restored database and \d+ files/);
  // Which snapshot came back and when it was taken, in the clinic's time: what is not in it was lost.
  const taken = new Date(snapshotTime(usb, sheet, snapshotId!));
  expect(said).toContain(
    `Snapshot ${snapshotId!.slice(0, 8)}, taken ${formatDateTime(taken, "en", "Asia/Kolkata")} (Asia/Kolkata)`,
  );
  console.log(
    `${tag}: backup ${backupSeconds.toFixed(1)} s, restore on a new machine ${restoreSeconds.toFixed(1)} s`,
  );

  const b = await startServer(envB, { root: fresh });
  stops.push(() => b.stop());
  // The trail first (reading the rest adds to it), then every record and every file.
  expect(await trail(b.url, clinic.trail)).toEqual(trailBefore);
  const after = await readAll(b.url, clinic);
  for (const [p, body] of before.json) expect(after.json.get(p), p).toEqual(body);
  for (const [p, bytes] of before.bytes) expect(after.bytes.get(p)!.equals(bytes), p).toBe(true);
  // Its own backups go on into the same repository with the restored password.
  expect(readdirSync(path.join(fresh, "data", "secrets"))).toContain("backup-password");
  await b.stop();
}

describe("a lost machine, restored in one command", () => {
  it("SQLite and a local folder", { timeout: 240_000 }, async () => {
    await roundTrip("lite", async () => {
      const root = mkdtempSync(path.join(tmp, "lite-db-"));
      return { DATABASE_URL: path.join(root, "app.db"), STORAGE_URL: "" };
    });
  });

  it("PostgreSQL and an S3 bucket", { timeout: 240_000 }, async () => {
    pgServer ??= await startPostgres();
    s3 ??= await startS3();
    await roundTrip(
      "pg",
      async () => ({
        DATABASE_URL: await pgServer!.createDatabase(),
        STORAGE_URL: await s3!.createBucket(),
        AWS_ACCESS_KEY_ID: S3_CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: S3_CREDENTIALS.secretAccessKey,
      }),
      sharedSecrets(),
    );
  });
});
