import { execFileSync } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  rmSync,
  statfsSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi, strongPassword, uploadSamplePdf } from "../helpers/api";
import { ctSeries, makeZip } from "../helpers/dicom";
import { samplePdf, uploadForm } from "../helpers/files";
import { spawnApp, type AppProcess } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/*
 * Decision 0060: a clinic's disk fills up. On a small filesystem the test mounts (tmpfs, 48 MB)
 * and fills: new reports are refused with 507 and a message saying so; signing in, reading a report,
 * opening its file and deleting it still work (their rows are written in the space the node keeps);
 * /healthz says "degraded", /metrics shows the free space, the admin's home warns; and once room is
 * made, uploads work again.
 */

let mount: string;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let app: AppProcess;
let token: string;
let patientId: string;
const METRICS_TOKEN = "metrics-token-for-the-disk-test";
const api = () => apiClient(app.url);
const filler = () => path.join(mount, "filler");

beforeAll(async () => {
  mount = mkdtempSync(path.join(os.tmpdir(), "cb-disk-"));
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=48m,mode=0700", "tmpfs", mount]);
  smtp = await startSmtp();
  app = await spawnApp(mount, {
    SMTP_URL: smtp.url,
    RATE_LIMIT_DISABLED: "1",
    DISK_LOW_MB: "24",
    DISK_RESERVE_MB: "4",
    METRICS_TOKEN,
    ADMIN_EMAIL: "root@disk.test",
    ADMIN_PASSWORD: "Root-pass-1234",
  });
  const signed = await signupViaApi(api(), smtp, codeFrom, { email: "disk@clinic.test" });
  token = signed.token;
  patientId = signed.user._id;
}, 120_000);

afterAll(async () => {
  app?.child.kill("SIGTERM");
  await app?.exited;
  await smtp?.close();
  if (mount) {
    execFileSync("umount", ["-l", mount]);
    rmSync(mount, { recursive: true, force: true });
  }
});

const upload = () => uploadSamplePdf(api(), token);
const health = async () => (await fetch(`${app.url}/healthz`)).json();

/** Writes zeros into a file on the mount until the filesystem refuses (ENOSPC). */
function fillTheDisk() {
  const fd = openSync(filler(), "a");
  const chunk = Buffer.alloc(256 * 1024);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOSPC") throw err;
  } finally {
    closeSync(fd);
  }
}

/** Polls (≤ 10 s) until `ok()` holds. */
async function eventually(ok: () => Promise<boolean>) {
  const until = Date.now() + 10_000;
  while (Date.now() < until) {
    if (await ok()) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

describe("a full disk (decision 0060)", () => {
  it("refuses new reports with 507, keeps signing in, reading, opening and deleting; says so everywhere; recovers", async () => {
    const kept = await upload();
    expect(kept.status).toBe(201);
    const reportId = kept.body.data._id as string;
    expect(await health()).toMatchObject({ status: "ok", disk: "ok" });
    expect(existsSync(path.join(app.dataDir, "space-reserve"))).toBe(true);

    fillTheDisk();
    // The node notices within its 2 s reading and gives back its reserve.
    expect(await eventually(async () => (await health()).disk === "full")).toBe(true);
    expect(await health()).toMatchObject({ status: "degraded", database: "ok", storage: "ok", disk: "full" });

    const refused = await upload();
    expect(refused.status).toBe(507);
    expect(refused.body).toMatchObject({ success: false, message: expect.stringMatching(/out of space/) });

    // Signing in (a session row), reading, opening the file (an access-trail row), deleting.
    const login = await api().post("/auth/login", { email: "disk@clinic.test", password: strongPassword });
    expect(login.status).toBe(200);
    const fresh = login.body.token as string;
    const listed = await api().raw(
      "GET",
      `/report/get-report-by-patientId/${patientId}?page=1&pageSize=20`,
      undefined,
      fresh,
    );
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((r: { _id: string }) => r._id)).toEqual([reportId]);
    const file = await fetch(`${app.url}/api/v1/report/${reportId}/file`, {
      headers: { Authorization: `Bearer ${fresh}` },
    });
    expect(file.status).toBe(200);
    expect(Buffer.from(await file.arrayBuffer()).equals(samplePdf())).toBe(true);

    // The admin's home warns; /metrics shows the free space of the database's disk.
    const web = await fetch(`${app.url}/login`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: app.url },
      body: "email=root%40disk.test&password=Root-pass-1234",
      redirect: "manual",
    });
    const cookie = web.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const home = await (await fetch(`${app.url}/dashboard/home`, { headers: { Cookie: cookie } })).text();
    expect(home).toContain("The server is out of space: new reports are refused");
    const metrics = await (
      await fetch(`${app.url}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })
    ).text();
    const free = /carebridge_disk_free_bytes\{part="database"\} (\d+)/.exec(metrics);
    expect(Number(free?.[1])).toBeLessThan(4 * 1024 * 1024 + 1024 * 1024);

    const deleted = await api().raw("DELETE", "/report/delete-report", { reportId }, fresh);
    expect(deleted.status).toBe(200);

    // Room is made: uploads work again.
    rmSync(filler());
    expect(await eventually(async () => (await upload()).status === 201)).toBe(true);
    expect(await eventually(async () => (await health()).disk === "ok")).toBe(true);
  }, 90_000);

  it("a CD whose images fill the disk half-way is refused as out of space (507), never as a damaged ZIP", async () => {
    // 200 CT images of 128 × 128 (about 6.5 MB stored), in a ZIP of about a tenth of that.
    const { files } = ctSeries(200, { rows: 128, columns: 128, personal: false });
    const zip = makeZip(files.map((data, i) => ({ name: `IM${i}`, data, deflate: true })));
    // Room for the ZIP and a few of its images beyond the node's reserve, not for all of them.
    const { bavail, bsize } = statfsSync(mount);
    const room = 4 * 1024 * 1024 + zip.length + 2 * 1024 * 1024;
    writeFileSync(filler(), Buffer.alloc(Math.max(0, bavail * bsize - room)));
    try {
      expect(await eventually(async () => (await health()).disk !== "full")).toBe(true);
      const res = await api().call(
        "POST",
        "/report/upload-report",
        uploadForm(
          { reportType: "CT Scan", phoneNumber: "9876543210", countryCode: "+91" },
          { name: "cd.zip", data: zip, type: "application/zip" },
        ),
        token,
      );
      expect(res.status, JSON.stringify(res.body)).toBe(507);
      expect(res.body.message).toMatch(/out of space/);
    } finally {
      rmSync(filler());
    }
    // With room made, the node is well again.
    expect(await eventually(async () => (await health()).disk === "ok")).toBe(true);
  }, 90_000);
});
