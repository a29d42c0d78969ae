import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
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
import { samplePdf, uploadForm } from "../helpers/files";
import { raw } from "../helpers/raw";
import { Browserish, spawnApp, type AppProcess } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/*
 * Past one machine: one PostgreSQL, one S3-protocol server, two app nodes on different
 * ports sharing nothing but those two (and the deployment's secrets), and clients that alternate
 * between the nodes. Everything here is real: Debian's PostgreSQL, s3rver over HTTP, the built app
 * as separate processes, an SMTP server; SIGKILL is a real kill.
 */

const ADMIN = { email: "admin@nodes.test", password: "Admin-pass-2026" };

let pgServer: Postgres;
let s3: S3Server;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let env: Record<string, string>;
const roots: string[] = [];
const nodes: { A?: AppProcess; B?: AppProcess } = {};
let rootA: string;

async function startNode(root: string) {
  return spawnApp(root, env);
}

function kill(app?: AppProcess) {
  if (app && app.child.exitCode === null && app.child.signalCode === null) app.child.kill("SIGKILL");
}

beforeAll(async () => {
  [pgServer, s3, smtp] = await Promise.all([startPostgres(), startS3(), startSmtp()]);
  env = {
    DATABASE_URL: await pgServer.createDatabase("carebridge"),
    STORAGE_URL: await s3.createBucket("carebridge-files"),
    AWS_ACCESS_KEY_ID: S3_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: S3_CREDENTIALS.secretAccessKey,
    ...sharedSecrets(),
    SMTP_URL: smtp.url,
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    // Room for the slow uploads that are cut off by the kill after several S3 parts.
    MAX_UPLOAD_MB: "60",
    // Behind one load balancer both nodes have the same public address (links in mails, letters' verify URL).
    APP_URL: "http://carebridge.nodes.test",
    // The per-address budget for code mails set small, so 40 requests cross it.
    RATE_LIMITS: JSON.stringify({ mail: { address: { points: 30, duration: 3600 } } }),
  };
  rootA = mkdtempSync(path.join(os.tmpdir(), "cb-node-a-"));
  const rootB = mkdtempSync(path.join(os.tmpdir(), "cb-node-b-"));
  roots.push(rootA, rootB);
  // Both start at once: the migration runs once under PostgreSQL's advisory lock, the admin is made once.
  [nodes.A, nodes.B] = await Promise.all([startNode(rootA), startNode(rootB)]);
}, 120_000);

afterAll(async () => {
  kill(nodes.A);
  kill(nodes.B);
  await Promise.allSettled([nodes.A?.exited, nodes.B?.exited]);
  await Promise.allSettled([pgServer?.stop(), s3?.stop(), smtp?.close()]);
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

const api = (node: AppProcess) => apiClient(node.url);
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

async function download(node: AppProcess, reportId: string, token: string) {
  const res = await fetch(`${node.url}/api/v1/report/${reportId}/file`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
}

async function query<T = any>(sql: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: env.DATABASE_URL });
  await c.connect();
  try {
    return (await c.query(sql, params)).rows as T[];
  } finally {
    await c.end();
  }
}

const shared = {} as {
  patient: string;
  patientId: string;
  admin: string;
  report: string;
  file: Buffer;
  experts: string[];
};

describe("two app nodes on one PostgreSQL and one bucket", () => {
  it("both nodes are healthy and report their database and file store", async () => {
    for (const node of [nodes.A!, nodes.B!]) {
      const res = await fetch(`${node.url}/healthz`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: "ok", database: "ok", storage: "ok", disk: "ok" });
      expect((await fetch(`${node.url}/readyz`)).status).toBe(200);
    }
    // Started together, they migrated once and made one admin.
    const admins = await query("SELECT count(*)::int AS n FROM users WHERE email = $1", [ADMIN.email]);
    expect(admins[0].n).toBe(1);
    const migrations = await query("SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations");
    expect(migrations[0].n).toBeGreaterThanOrEqual(1);
  });

  it("a session made on node A works on node B (API token and browser cookie)", async () => {
    const { token, user } = await signupViaApi(api(nodes.A!), smtp, codeFrom, {
      email: "patient@nodes.test",
      firstName: "Asha",
    });
    shared.patient = token;
    shared.patientId = user._id;
    const onB = await api(nodes.B!).get("/profile/get-user-details", token);
    expect(onB.status).toBe(200);
    expect(onB.body.data.email).toBe("patient@nodes.test");

    const browser = new Browserish(nodes.A!.url);
    const login = await browser.post("/login", { email: "patient@nodes.test", password: strongPassword });
    expect(login.status).toBe(302);
    const onBWeb = new Browserish(nodes.B!.url);
    onBWeb.cookies = browser.cookies;
    const home = await onBWeb.fetch("/dashboard/home");
    expect(home.status).toBe(200);
    expect(await home.text()).toContain("Asha");
    // Logging out on B ends the session on A too.
    const out = await onBWeb.post("/logout", {});
    expect([200, 302, 303]).toContain(out.status);
    const again = new Browserish(nodes.A!.url);
    again.cookies = new Map([...browser.cookies]);
    expect((await again.fetch("/dashboard/home")).headers.get("Location") ?? "").toMatch(/^\/login/);
  });

  it("a report uploaded through A (7 MiB: a multipart upload) downloads byte-identical through B", async () => {
    const file = Buffer.concat([samplePdf(), randomBytes(7 * 1024 * 1024)]);
    shared.file = file;
    const up = await api(nodes.A!).call(
      "POST",
      "/report/upload-report",
      uploadForm(
        { reportType: "X-Ray", phoneNumber: "9876543210", countryCode: "+91", description: "Chest" },
        { name: "scan.pdf", data: file, type: "application/pdf" },
      ),
      shared.patient,
    );
    expect(up.status).toBe(201);
    shared.report = up.body.data._id;
    const got = await download(nodes.B!, shared.report, shared.patient);
    expect(got.status).toBe(200);
    expect(got.body.length).toBe(file.length);
    expect(sha(got.body)).toBe(sha(file));
    // The bucket holds ciphertext only.
    const rows = await query<{ file_key: string }>("SELECT file_key FROM reports WHERE id = $1", [
      shared.report,
    ]);
    const { GetObjectCommand } = await import("@aws-sdk/client-s3");
    const client = s3.client();
    const obj = await client.send(
      new GetObjectCommand({ Bucket: "carebridge-files", Key: `${rows[0].file_key}.enc` }),
    );
    const stored = Buffer.from(await obj.Body!.transformToByteArray());
    client.destroy();
    expect(stored.length).toBe(file.length + 32); // header + ciphertext + tag
    expect(stored.includes(file.subarray(0, 64))).toBe(false);
  });

  it("10 concurrent reviews of one report spread over both nodes: exactly one succeeds", async () => {
    const adminLogin = await api(nodes.B!).post("/auth/login", ADMIN);
    expect(adminLogin.status).toBe(200);
    shared.admin = adminLogin.body.token;
    shared.experts = [];
    for (let i = 0; i < 10; i++) {
      const node = i % 2 ? nodes.B! : nodes.A!;
      const { token, user } = await signupViaApi(api(node), smtp, codeFrom, {
        email: `expert${i}@nodes.test`,
        accountType: "Expert",
        firstName: `Expert${i}`,
      });
      const approved = await api(i % 2 ? nodes.A! : nodes.B!).post(
        "/expert/approve-expert",
        { expertId: user._id },
        shared.admin,
      );
      expect(approved.status).toBe(200);
      shared.experts.push(token);
    }
    const results = await Promise.all(
      shared.experts.map((token, i) =>
        api(i % 2 ? nodes.B! : nodes.A!).post(
          `/report/add-review/${shared.report}`,
          { review: `Opinion number ${i}` },
          token,
        ),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s >= 200 && s < 300)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(9);
    const winner = results.find((r) => r.status === 200)!;
    const row = await query("SELECT status, review FROM reports WHERE id = $1", [shared.report]);
    expect(row[0]).toEqual({ status: "Reviewed", review: winner.body.data.review });
    const audits = await query(
      "SELECT count(*)::int AS n FROM audit_events WHERE action = 'report.review' AND subject_id = $1",
      [shared.report],
    );
    expect(audits[0].n).toBe(1);
  });

  it("one delete: the same report deleted through both nodes at once is deleted once", async () => {
    const up = await api(nodes.A!).call(
      "POST",
      "/report/upload-report",
      uploadForm(
        { reportType: "Biopsy", phoneNumber: "9876543210", countryCode: "+91" },
        { name: "twice.pdf", data: samplePdf(), type: "application/pdf" },
      ),
      shared.patient,
    );
    expect(up.status).toBe(201);
    const reportId = up.body.data._id;
    const results = await Promise.all(
      [nodes.A!, nodes.B!, nodes.A!, nodes.B!].map((n) =>
        api(n).del("/report/delete-report", { reportId }, shared.patient),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 404, 404, 404]);
    const audits = await query(
      "SELECT count(*)::int AS n FROM audit_events WHERE action = 'report.delete' AND subject_id = $1",
      [reportId],
    );
    expect(audits[0].n).toBe(1);
  });

  it("a per-client rate limit is counted across both nodes", async () => {
    // 30 code mails per address an hour (RATE_LIMITS above): 40 requests from one address, alternating nodes.
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const node = i % 2 ? nodes.B! : nodes.A!;
      const res = await raw(`${node.url}/api/v1/auth/send-otp`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: `limit${i}@nodes.test`, checkUserPresent: true }),
        localAddress: "127.0.0.88",
      });
      statuses.push(res.status);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(30);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
    expect(statuses.slice(30).every((s) => s === 429)).toBe(true);
    // Another address still gets through on either node.
    const other = await raw(`${nodes.B!.url}/api/v1/auth/send-otp`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "other@nodes.test", checkUserPresent: true }),
      localAddress: "127.0.0.89",
    });
    expect(other.status).toBe(200);
  });

  it("sessions remembered for reads: a change on one node (or in the database) ends them on every node", async () => {
    const email = "remembered@nodes.test";
    const { token, user } = await signupViaApi(api(nodes.A!), smtp, codeFrom, { email, firstName: "Mina" });
    const me = (node: AppProcess, t = token) => api(node).get("/profile/get-user-details", t);
    /** Polls until `check` holds (the announcement travels through PostgreSQL to the other node). */
    async function within(ms: number, check: () => Promise<boolean>) {
      const end = Date.now() + ms;
      for (;;) {
        if (await check()) return true;
        if (Date.now() > end) return false;
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    const scans = async () => {
      await new Promise((r) => setTimeout(r, 1_200)); // backends publish their statistics about once a second
      const [row] = await query<{ n: number }>(
        "SELECT idx_scan::int AS n FROM pg_stat_user_indexes WHERE indexrelname = 'sessions_token_hash_uq'",
      );
      return row.n;
    };
    // A busy machine publishes them later: the count once two readings agree.
    const lookups = async () => {
      let last = await scans();
      for (let i = 0; i < 5; i++) {
        const now = await scans();
        if (now === last) break;
        last = now;
      }
      return last;
    };
    const listeners = async () =>
      (
        await query<{ pid: number }>(
          "SELECT pid FROM pg_stat_activity WHERE application_name LIKE 'carebridge-auth-%' AND query ILIKE 'LISTEN%'",
        )
      ).map((r) => r.pid);

    // Both nodes read the session once and listen for changes; then they answer reads from memory.
    // A node answers from memory only once it listens, and pg_stat_activity shows the LISTEN before
    // the node has its answer: a read or two on each node after it, then the count starts (taken
    // once the statistics agree, so a look-up published late is never counted twice or missed).
    for (const node of [nodes.A!, nodes.B!]) expect((await me(node)).status).toBe(200);
    expect(await within(5_000, async () => (await listeners()).length >= 2)).toBe(true);
    for (const node of [nodes.A!, nodes.B!]) for (let i = 0; i < 3; i++) await me(node);
    const before = await lookups();
    const first = Date.now();
    for (let i = 0; i < 30; i++) expect((await me(i % 2 ? nodes.A! : nodes.B!)).status).toBe(200);
    // 30 reads. At most two look-ups per node for each 10 s window a remembered session lasts that
    // these reads touch (a busy machine may take longer than one to make them), and the reads'
    // before the count: a backend idle since its look-up publishes it up to 10 s later (PostgreSQL's
    // idle flush of statistics), after `before` was taken, one per worker at most. 30 without memory.
    const windows = 1 + Math.ceil((Date.now() - first) / 10_000);
    expect((await lookups()) - before).toBeLessThanOrEqual(4 * windows + 4);

    // The account changed in the database: every node shows it.
    await query("UPDATE users SET first_name = 'Meena' WHERE id = $1", [user._id]);
    for (const node of [nodes.A!, nodes.B!])
      expect(await within(2_000, async () => (await me(node)).body.data?.firstName === "Meena")).toBe(true);

    // A second device logs in; logging out the first on A ends it on A at once and on B promptly.
    const second = await api(nodes.B!).post("/auth/login", { email, password: strongPassword });
    expect(second.status).toBe(200);
    const token2 = second.body.token as string;
    for (const node of [nodes.A!, nodes.B!]) expect((await me(node, token2)).status).toBe(200);
    expect((await api(nodes.A!).post("/auth/logout", {}, token)).status).toBe(200);
    expect((await me(nodes.A!)).status).toBe(401);
    expect(await within(2_000, async () => (await me(nodes.B!)).status === 401)).toBe(true);
    for (let i = 0; i < 5; i++) expect((await me(nodes.B!)).status).toBe(401);
    // The other session stays.
    for (const node of [nodes.A!, nodes.B!]) expect((await me(node, token2)).status).toBe(200);

    // The listening connections are cut: the nodes stop answering from memory, listen again, and
    // a session deleted in the database afterwards ends on both.
    const old = await listeners();
    await query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = ANY($1)", [old]);
    expect(
      await within(10_000, async () => {
        const now = await listeners();
        return now.length >= old.length && now.every((p) => !old.includes(p));
      }),
    ).toBe(true);
    for (const node of [nodes.A!, nodes.B!]) expect((await me(node, token2)).status).toBe(200);
    await query("DELETE FROM sessions WHERE user_id = $1", [user._id]);
    for (const node of [nodes.A!, nodes.B!])
      expect(await within(2_000, async () => (await me(node, token2)).status === 401)).toBe(true);
  });

  it("SIGKILL of node A during uploads leaves no half-stored report, and B keeps serving", async () => {
    const countRows = async () =>
      (await query("SELECT count(*)::int AS n FROM reports WHERE patient_id = $1", [shared.patientId]))[0].n;
    const rowsBefore = await countRows();
    // Three uploads to A that trickle in (a slow phone) and are cut off by the kill.
    const slow = (i: number) => {
      const boundary = `----cb-kill-${i}`;
      const head = Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="reportType"\r\n\r\nECG\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="phoneNumber"\r\n\r\n9876543210\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="report"; filename="slow${i}.pdf"\r\n` +
          `Content-Type: application/pdf\r\n\r\n`,
      );
      let sent = 0;
      const body = new Readable({
        read() {
          if (sent === 0) {
            sent++;
            this.push(Buffer.concat([head, samplePdf()]));
            return;
          }
          // 256 KiB every 50 ms (~5 MiB/s) up to 100 MiB: a few 5 MiB S3 parts are stored before the kill.
          setTimeout(() => {
            sent++;
            this.push(sent < 400 ? randomBytes(256 * 1024) : null);
          }, 50);
        },
      });
      return raw(`${nodes.A!.url}/api/v1/report/upload-report`, {
        method: "POST",
        headers: {
          "content-type": `multipart/form-data; boundary=${boundary}`,
          authorization: `Bearer ${shared.patient}`,
        },
        body,
      }).catch((err: Error) => err);
    };
    const cut = [slow(1), slow(2), slow(3)];
    // Meanwhile a complete upload through B.
    const whole = Buffer.concat([samplePdf(), randomBytes(300_000)]);
    const onB = api(nodes.B!).call(
      "POST",
      "/report/upload-report",
      uploadForm(
        { reportType: "MRI", phoneNumber: "9876543210", countryCode: "+91" },
        { name: "whole.pdf", data: whole, type: "application/pdf" },
      ),
      shared.patient,
    );
    await new Promise((r) => setTimeout(r, 2_000));
    nodes.A!.child.kill("SIGKILL");
    const killed = await nodes.A!.exited;
    expect(killed.signal).toBe("SIGKILL");
    const outcomes = await Promise.all(cut);
    for (const o of outcomes) expect(o).toBeInstanceOf(Error); // the connection died with the node
    const bResult = await onB;
    expect(bResult.status).toBe(201);

    // B keeps serving: health, lists and files.
    expect((await fetch(`${nodes.B!.url}/healthz`)).status).toBe(200);
    const list = await api(nodes.B!).get(
      `/report/get-report-by-patientId/${shared.patientId}`,
      shared.patient,
    );
    expect(list.status).toBe(200);
    expect(await countRows()).toBe(rowsBefore + 1);
    const names = list.body.data.map((r: { fileName: string }) => r.fileName);
    expect(names).toContain("whole.pdf");
    expect(names.some((n: string) => /^slow/.test(n))).toBe(false);
    const got = await download(nodes.B!, bResult.body.data._id, shared.patient);
    expect(sha(got.body)).toBe(sha(whole));

    // No half-stored report: every object in the bucket belongs to a row, every row has its object.
    const { ListObjectsV2Command } = await import("@aws-sdk/client-s3");
    const client = s3.client();
    const listed = await client.send(new ListObjectsV2Command({ Bucket: "carebridge-files" }));
    client.destroy();
    const objects = (listed.Contents ?? []).map((o) => o.Key!.replace(/\.enc$/, "")).sort();
    const referenced = (
      await query<{ k: string }>(
        "SELECT file_key AS k FROM reports UNION SELECT image AS k FROM users WHERE image IS NOT NULL",
      )
    )
      .map((r) => r.k)
      .sort();
    expect(objects).toEqual(referenced);
  });

  it("node A restarted joins cleanly: old sessions, old files and new uploads work across both", async () => {
    nodes.A = await startNode(rootA);
    expect((await fetch(`${nodes.A.url}/healthz`)).status).toBe(200);
    const me = await api(nodes.A).get("/profile/get-user-details", shared.patient);
    expect(me.status).toBe(200);
    const old = await download(nodes.A, shared.report, shared.patient);
    expect(sha(old.body)).toBe(sha(shared.file));
    const fresh = Buffer.concat([samplePdf(), randomBytes(50_000)]);
    const up = await api(nodes.A).call(
      "POST",
      "/report/upload-report",
      uploadForm(
        { reportType: "CT Scan", phoneNumber: "9876543210", countryCode: "+91" },
        { name: "after-restart.pdf", data: fresh, type: "application/pdf" },
      ),
      shared.patient,
    );
    expect(up.status).toBe(201);
    const viaB = await download(nodes.B!, up.body.data._id, shared.patient);
    expect(sha(viaB.body)).toBe(sha(fresh));
    // The reviewed report reads the same from both nodes.
    const fromA = await api(nodes.A).get("/report/get-all-reviewed-reports", shared.admin);
    const fromB = await api(nodes.B!).get("/report/get-all-reviewed-reports", shared.admin);
    expect(fromA.status).toBe(200);
    expect(fromA.body.data).toEqual(fromB.body.data);
    expect(fromA.body.data.map((r: { _id: string }) => r._id)).toContain(shared.report);
  });
});
