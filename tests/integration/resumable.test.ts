import { createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { connect } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi, strongPassword } from "../helpers/api";
import { openTestDb, storedBytes, storedKeys } from "../helpers/db";
import { raw } from "../helpers/raw";
import { Browserish, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/**
 * Resumable uploads (tus 1.0.0 at /api/v1/uploads, decision 0015) over HTTP against the built app
 * with two worker processes — so consecutive requests of one upload land on different processes,
 * as they would on different nodes. Runs on SQLite + folder and, with TEST_BACKEND=pg-s3, on
 * PostgreSQL + S3. Rate limits are on (the upload budget is checked at creation).
 */

let server: TestServer & { root: string };
let smtp: Awaited<ReturnType<typeof startSmtp>>;
const tok: Record<string, string> = {};
const ids: Record<string, string> = {};
const MB = 1024 * 1024;
const MARKER = "PLAINTEXT-MARKER-7f3a";

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    WEB_CONCURRENCY: "2",
    ADMIN_EMAIL: "admin@tus.test",
    ADMIN_PASSWORD: "Admin-pass-123",
  });
  const api = apiClient(server.url);
  for (const [k, type] of [
    ["patient", "Patient"],
    ["other", "Patient"],
    ["limited", "Patient"],
    ["expert", "Expert"],
  ] as const) {
    const r = await signupViaApi(api, smtp, codeFrom, { email: `${k}@tus.test`, accountType: type });
    tok[k] = r.token;
    ids[k] = r.user._id;
  }
  tok.admin = (
    await api.post("/auth/login", { email: "admin@tus.test", password: "Admin-pass-123" })
  ).body.token;
  await api.post("/expert/approve-expert", { expertId: ids.expert }, tok.admin);
});

afterAll(async () => {
  if (domain) await (await import("~/db/client.server")).closeDatabase();
  await server?.stop();
  await smtp?.close();
});

/** A PDF as the server sniffs it, with incompressible bytes and a marker that must never be at rest. */
function pdfOf(size: number): Buffer {
  const body = randomBytes(size);
  Buffer.from("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n", "latin1").copy(body, 0);
  for (let at = 4096; at + MARKER.length < size; at += 200_000) body.write(MARKER, at, "latin1");
  return body;
}

const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");
const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
const metadata = (fields: Record<string, string>) =>
  Object.entries(fields)
    .map(([k, v]) => `${k} ${b64(v)}`)
    .join(",");

const FIELDS = {
  reportType: "ECG",
  countryCode: "+91",
  phoneNumber: "98765 43210",
  description: "सीने में दर्द, two weeks",
  consent: "on",
  filename: "ecg-march.pdf",
};

type Auth = { token?: string; cookie?: string; headers?: Record<string, string> };

function authHeaders(auth: Auth): Record<string, string> {
  const h: Record<string, string> = { "Tus-Resumable": "1.0.0", ...auth.headers };
  if (auth.token) h.Authorization = `Bearer ${auth.token}`;
  if (auth.cookie) h.Cookie = auth.cookie;
  return h;
}

async function create(auth: Auth, length: number, fields: Record<string, string> = FIELDS) {
  const res = await fetch(`${server.url}/api/v1/uploads`, {
    method: "POST",
    headers: { ...authHeaders(auth), "Upload-Length": String(length), "Upload-Metadata": metadata(fields) },
  });
  return { res, location: res.headers.get("location") ?? "", body: await res.text() };
}

async function patch(auth: Auth, location: string, offset: number, bytes: Buffer) {
  const res = await fetch(server.url + location, {
    method: "PATCH",
    headers: {
      ...authHeaders(auth),
      "Upload-Offset": String(offset),
      "Content-Type": "application/offset+octet-stream",
    },
    body: new Uint8Array(bytes),
  });
  const text = await res.text();
  return { res, offset: Number(res.headers.get("upload-offset")), json: text ? JSON.parse(text) : null };
}

async function head(auth: Auth, location: string) {
  const res = await fetch(server.url + location, { method: "HEAD", headers: authHeaders(auth) });
  return {
    res,
    offset: Number(res.headers.get("upload-offset")),
    length: Number(res.headers.get("upload-length")),
  };
}

/**
 * A PATCH whose connection is cut mid-body: the head and `sent` bytes of a longer body are written
 * to a raw socket, which is then destroyed without waiting for an answer.
 */
async function cutPatch(location: string, offset: number, whole: Buffer, sent: number) {
  const u = new URL(server.url);
  const socket = connect(Number(u.port), u.hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  socket.on("error", () => {});
  socket.write(
    [
      `PATCH ${location} HTTP/1.1`,
      `Host: ${u.host}`,
      `Authorization: Bearer ${tok.patient}`,
      "Tus-Resumable: 1.0.0",
      `Upload-Offset: ${offset}`,
      "Content-Type: application/offset+octet-stream",
      `Content-Length: ${whole.length}`,
      "",
      "",
    ].join("\r\n"),
  );
  for (let at = 0; at < sent; at += 16 * 1024) {
    await new Promise<void>((r) =>
      socket.write(whole.subarray(at, Math.min(sent, at + 16 * 1024)), () => r()),
    );
  }
  // Let the bytes reach the server, then cut the connection as a dropped mobile link would.
  await new Promise((r) => setTimeout(r, 300));
  socket.destroy();
}

const uploadIdOf = (location: string) => location.split("/").pop()!;
const segmentKeys = async (uploadId: string) =>
  (await storedKeys(server)).filter((k) => k.startsWith(uploadId));

async function waitFor<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("resumable uploads (tus)", () => {
  it("OPTIONS tells the protocol's version, extensions and largest size", async () => {
    const res = await fetch(`${server.url}/api/v1/uploads`, { method: "OPTIONS" });
    expect(res.status).toBe(204);
    expect(res.headers.get("tus-version")).toBe("1.0.0");
    expect(res.headers.get("tus-extension")).toBe("creation,creation-with-upload,termination");
    // The largest upload of any type: medical images (MAX_STUDY_MB, default 200); other files are
    // held to MAX_UPLOAD_MB at creation (below).
    expect(res.headers.get("tus-max-size")).toBe(String(200 * MB));
    // No CORS for other sites.
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("create, PATCH in pieces, a PATCH cut off mid-body keeps what arrived, HEAD shows the offset, resume, complete: the report downloads byte-identical and the segments are gone", async () => {
    const file = pdfOf(Math.round(1.6 * MB));
    const me = { token: tok.patient };
    const c = await create(me, file.length);
    expect(c.res.status).toBe(201);
    expect(c.location).toMatch(/^\/api\/v1\/uploads\/[a-f0-9]{24}$/);
    expect(c.res.headers.get("tus-resumable")).toBe("1.0.0");
    const id = uploadIdOf(c.location);
    expect((await head(me, c.location)).offset).toBe(0);

    // A first piece.
    let p = await patch(me, c.location, 0, file.subarray(0, 300_000));
    expect(p.res.status).toBe(204);
    expect(p.offset).toBe(300_000);
    // A wrong offset is a conflict and changes nothing.
    const wrong = await patch(me, c.location, 123, file.subarray(123, 1123));
    expect(wrong.res.status).toBe(409);
    expect(wrong.json).toMatchObject({ success: false });
    // A piece longer than a segment (1 MiB) is stored as two.
    p = await patch(me, c.location, 300_000, file.subarray(300_000, 1_400_000));
    expect(p.res.status).toBe(204);
    expect(p.offset).toBe(1_400_000);

    const db = await openTestDb(server.dataDir);
    try {
      const row = await db.get(
        "SELECT received, segments, length, report_id FROM upload_sessions WHERE id = ?",
        id,
      );
      expect(row).toMatchObject({ received: 1_400_000, segments: 3, length: file.length, report_id: null });
    } finally {
      await db.close();
    }
    // Every segment is ciphertext in our segment format; the plaintext is nowhere at rest.
    const keys = await segmentKeys(id);
    expect(keys).toHaveLength(3);
    for (const key of keys) {
      const bytes = await storedBytes(server, key);
      expect(bytes.subarray(0, 4).toString("latin1")).toBe("CBS1");
      expect(bytes.includes(Buffer.from(MARKER, "latin1"))).toBe(false);
      expect(bytes.includes(Buffer.from("%PDF"))).toBe(false);
    }

    // The connection drops 100 kB into a PATCH of the rest: what arrived is kept.
    await cutPatch(c.location, 1_400_000, file.subarray(1_400_000), 100_000);
    const after = await waitFor(
      () => head(me, c.location),
      (h) => h.offset > 1_400_000,
    );
    expect(after.res.status).toBe(200);
    expect(after.length).toBe(file.length);
    expect(after.offset).toBeGreaterThan(1_400_000);
    expect(after.offset).toBeLessThanOrEqual(1_500_000);
    expect(after.res.headers.get("cache-control")).toBe("no-store");
    const meta = Object.fromEntries(
      (after.res.headers.get("upload-metadata") ?? "").split(",").map((pair) => {
        const [k, v] = pair.split(" ");
        return [k, Buffer.from(v ?? "", "base64").toString("utf8")];
      }),
    );
    expect(meta).toMatchObject({
      reportType: "ECG",
      description: FIELDS.description,
      filename: "ecg-march.pdf",
    });

    // Resume from the server's offset: the last PATCH completes the file and gets the report.
    const done = await patch(me, c.location, after.offset, file.subarray(after.offset));
    expect(done.res.status).toBe(200);
    expect(done.offset).toBe(file.length);
    expect(done.json).toMatchObject({
      success: true,
      message: "Report Submitted Succesfully",
      data: {
        reportType: "ECG",
        fileName: "ecg-march.pdf",
        phoneNumber: "+919876543210",
        description: FIELDS.description,
      },
    });
    const reportId = done.json.data._id as string;
    const download = await fetch(`${server.url}/api/v1/report/${reportId}/file`, {
      headers: { Authorization: `Bearer ${tok.patient}` },
    });
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toMatch(/^application\/pdf/);
    expect(sha(Buffer.from(await download.arrayBuffer()))).toBe(sha(file));

    // Finished: HEAD says so (offset = length), the segments are gone, the row names the report.
    const finished = await head(me, c.location);
    expect(finished.offset).toBe(file.length);
    expect(await segmentKeys(id)).toEqual([]);
    const db2 = await openTestDb(server.dataDir);
    try {
      const row = await db2.get("SELECT report_id, segments FROM upload_sessions WHERE id = ?", id);
      expect(row).toMatchObject({ report_id: reportId, segments: 0 });
    } finally {
      await db2.close();
    }
    // A PATCH after the end is a conflict, not a second report.
    expect((await patch(me, c.location, file.length, Buffer.alloc(0))).res.status).toBe(409);
  });

  it("creation with upload: one POST carrying the whole small file makes the report", async () => {
    const file = pdfOf(40_000);
    const res = await fetch(`${server.url}/api/v1/uploads`, {
      method: "POST",
      headers: {
        ...authHeaders({ token: tok.patient }),
        "Upload-Length": String(file.length),
        "Upload-Metadata": metadata({ ...FIELDS, filename: "small.pdf" }),
        "Content-Type": "application/offset+octet-stream",
      },
      body: new Uint8Array(file),
    });
    expect(res.status).toBe(201);
    const json = await res.json();
    expect(json.data).toMatchObject({ fileName: "small.pdf" });
    const download = await fetch(`${server.url}${json.data.reportUrl}`, {
      headers: { Authorization: `Bearer ${tok.patient}` },
    });
    expect(sha(Buffer.from(await download.arrayBuffer()))).toBe(sha(file));
  });

  it("bad metadata: 400 with the form's field errors before any byte, nothing stored", async () => {
    const before = (await storedKeys(server)).length;
    const db = await openTestDb(server.dataDir);
    const count = async () => (await db.get<{ n: number }>("SELECT count(*) AS n FROM upload_sessions"))!.n;
    try {
      const rows = await count();
      const c = await create({ token: tok.patient }, 5000, {
        reportType: "Horoscope",
        phoneNumber: "12",
        filename: "x.pdf",
      });
      expect(c.res.status).toBe(400);
      expect(c.location).toBe("");
      const json = JSON.parse(c.body);
      expect(json).toMatchObject({ success: false, message: "Could not Uplaod Report" });
      expect(Object.keys(json.errors).sort()).toEqual([
        "consent",
        "countryCode",
        "phoneNumber",
        "reportType",
      ]);
      expect(json.errors.reportType).toEqual(["Please choose one of the listed report types"]);
      // An urgent report needs its reason, as on the form.
      const urgent = await create({ token: tok.patient }, 5000, { ...FIELDS, urgent: "on" });
      expect(urgent.res.status).toBe(400);
      expect(JSON.parse(urgent.body).errors).toHaveProperty("urgentReason");
      // In the patient's language.
      const hi = await create({ token: tok.patient, headers: { "Accept-Language": "hi" } }, 5000, {
        filename: "x.pdf",
      });
      expect(hi.res.status).toBe(400);
      expect(JSON.parse(hi.body).errors.phoneNumber).toEqual(["फ़ोन नंबर आवश्यक है"]);
      // Not tus at all.
      const noVersion = await fetch(`${server.url}/api/v1/uploads`, {
        method: "POST",
        headers: { Authorization: `Bearer ${tok.patient}`, "Upload-Length": "10" },
      });
      expect(noVersion.status).toBe(412);
      expect(await noVersion.json()).toMatchObject({ success: false });
      const badMeta = await fetch(`${server.url}/api/v1/uploads`, {
        method: "POST",
        headers: {
          ...authHeaders({ token: tok.patient }),
          "Upload-Length": "10",
          "Upload-Metadata": "a b c d",
        },
      });
      expect(badMeta.status).toBe(400);
      expect(await count()).toBe(rows);
      expect((await storedKeys(server)).length).toBe(before);
    } finally {
      await db.close();
    }
  });

  it("too large: 413 at creation, and a PATCH longer than the upload is refused", async () => {
    const c = await create({ token: tok.patient }, 10 * MB + 1);
    expect(c.res.status).toBe(413);
    expect(JSON.parse(c.body)).toMatchObject({
      success: false,
      message: "The file is too large (at most 10 MB)",
    });
    const ok = await create({ token: tok.patient }, 10_000);
    const over = await patch({ token: tok.patient }, ok.location, 0, pdfOf(12_000));
    expect(over.res.status).toBe(413);
    expect((await head({ token: tok.patient }, ok.location)).offset).toBe(0);
  });

  it("a file that is not a PDF or an image is refused at its first PATCH (415) and the upload ends", async () => {
    const html = Buffer.from("<html><body>not a report</body></html>".repeat(200));
    const c = await create({ token: tok.patient }, html.length, { ...FIELDS, filename: "fake.pdf" });
    expect(c.res.status).toBe(201);
    const p = await patch({ token: tok.patient }, c.location, 0, html);
    expect(p.res.status).toBe(415);
    expect(p.json.message).toMatch(/This file type is not allowed/);
    expect((await head({ token: tok.patient }, c.location)).res.status).toBe(404);
    expect(await segmentKeys(uploadIdOf(c.location))).toEqual([]);
  });

  it("DELETE ends an upload: its segments and row go", async () => {
    const file = pdfOf(200_000);
    const c = await create({ token: tok.patient }, file.length);
    await patch({ token: tok.patient }, c.location, 0, file.subarray(0, 100_000));
    expect(await segmentKeys(uploadIdOf(c.location))).toHaveLength(1);
    const del = await fetch(server.url + c.location, {
      method: "DELETE",
      headers: authHeaders({ token: tok.patient }),
    });
    expect(del.status).toBe(204);
    expect(await segmentKeys(uploadIdOf(c.location))).toEqual([]);
    expect((await head({ token: tok.patient }, c.location)).res.status).toBe(404);
  });

  it("withdrawing review consent ends the patient's unfinished uploads; one finished after a withdrawal makes no report", async () => {
    const api = apiClient(server.url);
    const r = await signupViaApi(api, smtp, codeFrom, {
      email: "withdraws@tus.test",
      accountType: "Patient",
    });
    const auth = { token: r.token };
    const file = pdfOf(300_000);
    const c = await create(auth, file.length);
    expect((await patch(auth, c.location, 0, file.subarray(0, 100_000))).res.status).toBe(204);
    expect(await segmentKeys(uploadIdOf(c.location))).toHaveLength(1);
    const w = await api.post("/rights/consents", { purpose: "review", granted: false }, r.token);
    expect(w.status).toBe(200);
    // The upload is gone with its segments: resuming it is refused, nothing becomes a report.
    expect((await head(auth, c.location)).res.status).toBe(404);
    expect((await patch(auth, c.location, 100_000, file.subarray(100_000))).res.status).toBe(404);
    expect(await segmentKeys(uploadIdOf(c.location))).toEqual([]);
    expect((await api.get(`/report/get-report-by-patientId/${r.user._id}`, r.token)).body.data).toEqual([]);
    // Consent given again with a new upload: that one completes.
    const again = await create(auth, file.length);
    expect((await patch(auth, again.location, 0, file)).res.status).toBe(200); // the last PATCH answers with the report
    expect((await api.get(`/report/get-report-by-patientId/${r.user._id}`, r.token)).body.data).toHaveLength(
      1,
    );
  });

  it("only the owning patient: others get 404 (the upload is not theirs to know), experts and admins 403, strangers 401", async () => {
    const file = pdfOf(100_000);
    const c = await create({ token: tok.patient }, file.length);
    await patch({ token: tok.patient }, c.location, 0, file.subarray(0, 50_000));
    for (const [who, status] of [
      ["other", 404],
      ["expert", 403],
      ["admin", 403],
    ] as const) {
      const auth = { token: tok[who] };
      expect((await head(auth, c.location)).res.status, `HEAD ${who}`).toBe(status);
      expect((await patch(auth, c.location, 50_000, file.subarray(50_000))).res.status, `PATCH ${who}`).toBe(
        status,
      );
      const del = await fetch(server.url + c.location, { method: "DELETE", headers: authHeaders(auth) });
      expect(del.status, `DELETE ${who}`).toBe(status);
    }
    expect((await head({}, c.location)).res.status).toBe(401);
    expect((await patch({}, c.location, 50_000, file.subarray(50_000))).res.status).toBe(401);
    expect((await create({ token: tok.expert }, 100)).res.status).toBe(403);
    expect((await create({}, 100)).res.status).toBe(401);
    // Nothing of theirs touched it.
    expect((await head({ token: tok.patient }, c.location)).offset).toBe(50_000);
    const done = await patch({ token: tok.patient }, c.location, 50_000, file.subarray(50_000));
    expect(done.res.status).toBe(200);
  });

  it("the browser session works from our own pages, never from another site", async () => {
    const b = new Browserish(server.url);
    expect((await b.post("/login", { email: "patient@tus.test", password: strongPassword })).status).toBe(
      302,
    );
    const cookie = b.cookieHeader();
    const same = { cookie, headers: { "Sec-Fetch-Site": "same-origin", Origin: server.url } };
    const c = await create(same, 1000);
    expect(c.res.status).toBe(201);
    expect(
      (await head({ cookie, headers: { "Sec-Fetch-Site": "same-origin" } }, c.location)).res.status,
    ).toBe(200);
    // Another site's page: the write is refused by the server, the read by the route.
    const cross = { cookie, headers: { "Sec-Fetch-Site": "cross-site", Origin: "https://evil.example" } };
    expect((await create(cross, 1000)).res.status).toBe(403);
    expect((await head({ cookie, headers: { "Sec-Fetch-Site": "cross-site" } }, c.location)).res.status).toBe(
      403,
    );
  });

  it("the upload rate limit counts at creation, per account", async () => {
    // A source address of its own: only this account's budget is spent here.
    const post = () =>
      raw(`${server.url}/api/v1/uploads`, {
        method: "POST",
        headers: {
          ...authHeaders({ token: tok.limited }),
          "Upload-Length": "1000",
          "Upload-Metadata": metadata(FIELDS),
        },
        localAddress: "127.0.0.61",
      });
    for (let i = 0; i < 30; i++) expect((await post()).status).toBe(201);
    const refused = await post();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    expect(JSON.parse(refused.body.toString())).toMatchObject({ success: false });
  });

  it("logs like every API route: method, route pattern and status, never the upload's id", async () => {
    const c = await create({ token: tok.patient }, 1000);
    await head({ token: tok.patient }, c.location);
    const id = uploadIdOf(c.location);
    const lines = await waitFor(
      async () => server.output().split("\n"),
      (l) =>
        l.some((x) => x.includes('"method":"HEAD"') && x.includes('"route":"/api/v1/uploads/:uploadId"')),
    );
    expect(lines.some((l) => l.includes('"method":"POST"') && l.includes('"route":"/api/v1/uploads"'))).toBe(
      true,
    );
    expect(
      lines.some((l) => l.includes('"method":"PATCH"') && l.includes('"route":"/api/v1/uploads/:uploadId"')),
    ).toBe(true);
    expect(server.output()).not.toContain(id);
  });
});

/** The app's own domain modules, opened on the test server's database and store. */
let domain:
  | {
      uploads: typeof import("~/domain/consultation/resumable-uploads.server");
      files: typeof import("~/domain/records/files.server") &
        typeof import("~/domain/records/upload-segments.server");
    }
  | undefined;

async function openDomain() {
  if (domain) return domain;
  const backendFile = path.join(server.root, "backend.json");
  const backend: Record<string, string> = existsSync(backendFile)
    ? JSON.parse(readFileSync(backendFile, "utf8"))
    : {};
  for (const k of ["DATABASE_URL", "STORAGE_URL", "ENCRYPTION_KEY", "SESSION_SECRET", "SMTP_URL"])
    delete process.env[k];
  Object.assign(process.env, {
    DATA_DIR: server.dataDir,
    UPLOADS_DIR: server.uploadsDir,
    LOG_LEVEL: "silent",
    ...backend,
  });
  domain = {
    uploads: await import("~/domain/consultation/resumable-uploads.server"),
    files: {
      ...(await import("~/domain/records/files.server")),
      ...(await import("~/domain/records/upload-segments.server")),
    },
  };
  return domain;
}

describe("a request that died while making the report", () => {
  it("HEAD says busy (423) while it may still be at work, then another request takes over and makes the report", async () => {
    const me = { token: tok.patient };
    const file = pdfOf(250_000);
    const c = await create(me, file.length, { ...FIELDS, filename: "taken-over.pdf" });
    const id = uploadIdOf(c.location);
    const last = file.length - 1000;
    expect((await patch(me, c.location, 0, file.subarray(0, last))).offset).toBe(last);
    // The last bytes were stored and counted, and then the process died before making the report.
    const { files } = await openDomain();
    const segment = await files.storeSegment(
      id,
      last,
      (async function* () {
        yield file.subarray(last);
      })(),
    );
    expect(segment).toMatchObject({ offset: last, size: 1000 });
    const db = await openTestDb(server.dataDir, { write: true });
    try {
      await db.run(
        "UPDATE upload_sessions SET received = ?, segments = segments + 1, updated_at = ? WHERE id = ?",
        file.length,
        db.time(Date.now()),
        id,
      );
      const busy = await head(me, c.location);
      expect(busy.res.status).toBe(423);
      // Ten minutes of silence: the next HEAD makes the report itself and says "complete".
      await db.run(
        "UPDATE upload_sessions SET updated_at = ? WHERE id = ?",
        db.time(Date.now() - 11 * 60 * 1000),
        id,
      );
      const done = await head(me, c.location);
      expect(done.res.status).toBe(200);
      expect(done.offset).toBe(file.length);
      const row = await db.get<{ report_id: string | null }>(
        "SELECT report_id FROM upload_sessions WHERE id = ?",
        id,
      );
      expect(row?.report_id).toMatch(/^[a-f0-9]{24}$/);
      const download = await fetch(`${server.url}/api/v1/report/${row!.report_id}/file`, {
        headers: { Authorization: `Bearer ${tok.patient}` },
      });
      expect(sha(Buffer.from(await download.arrayBuffer()))).toBe(sha(file));
      expect(await segmentKeys(id)).toEqual([]);
    } finally {
      await db.close();
    }
  });
});

describe("the sweep of abandoned uploads", () => {
  it("an upload idle for 24 h goes with its segments; a young one stays, and its segments are no orphans", async () => {
    const me = { token: tok.patient };
    const file = pdfOf(300_000);
    const old = await create(me, file.length);
    await patch(me, old.location, 0, file.subarray(0, 120_000));
    const young = await create(me, file.length);
    await patch(me, young.location, 0, file.subarray(0, 80_000));
    const oldId = uploadIdOf(old.location);
    const youngId = uploadIdOf(young.location);
    expect(await segmentKeys(oldId)).toHaveLength(1);

    const db = await openTestDb(server.dataDir, { write: true });
    try {
      const changed = await db.run(
        "UPDATE upload_sessions SET updated_at = ? WHERE id = ?",
        db.time(Date.now() - 25 * 60 * 60 * 1000),
        oldId,
      );
      expect(changed).toBe(1);
    } finally {
      await db.close();
    }
    const { uploads, files } = await openDomain();
    // The hourly file sweep, an hour from now: segments of live uploads are referenced, not orphans.
    await files.sweepLeftovers(Date.now() + 60 * 60 * 1000);
    expect(await segmentKeys(oldId)).toHaveLength(1);
    expect(await segmentKeys(youngId)).toHaveLength(1);

    const swept = await uploads.sweepUploads();
    expect(swept).toEqual({ removedUploads: 1, removedSegments: 1 });
    expect(await segmentKeys(oldId)).toEqual([]);
    expect((await head(me, old.location)).res.status).toBe(404);
    // The young one continues as if nothing happened.
    expect(await segmentKeys(youngId)).toHaveLength(1);
    expect((await head(me, young.location)).offset).toBe(80_000);
    const done = await patch(me, young.location, 80_000, file.subarray(80_000));
    expect(done.res.status).toBe(200);
  });
});
