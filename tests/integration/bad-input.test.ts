import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withRetries } from "../helpers/again";
import { apiClient, signupViaApi } from "../helpers/api";
import { openTestDb, storedKeys } from "../helpers/db";
import { samplePdf, uploadForm } from "../helpers/files";
import { raw, zeros } from "../helpers/raw";
import { Browserish, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/**
 * Bad-input sweep: every mutating endpoint gets malformed and hostile bodies. Expected: never a
 * 5xx, always the JSON error shape, nothing stored, and the server still healthy afterwards.
 */
let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let api: ReturnType<typeof apiClient>;
const tok: Record<string, string> = {};
let reportId = "";
let patientId = "";

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    RATE_LIMIT_DISABLED: "1",
    MAX_UPLOAD_MB: "1",
    // The request cap is the largest file any type may be (medical images have their own limit).
    MAX_STUDY_MB: "1",
    ADMIN_EMAIL: "admin@bad.test",
    ADMIN_PASSWORD: "Admin-pass-123",
  });
  api = apiClient(server.url);
  const patient = await signupViaApi(api, smtp, codeFrom, { email: "p@bad.test" });
  tok.patient = patient.token;
  patientId = patient.user._id;
  tok.expert = (
    await signupViaApi(api, smtp, codeFrom, { email: "e@bad.test", accountType: "Expert" })
  ).token;
  tok.admin = (
    await api.post("/auth/login", { email: "admin@bad.test", password: "Admin-pass-123" })
  ).body.token;
  const r = await api.call(
    "POST",
    "/report/upload-report",
    uploadForm({ reportType: "ECG", phoneNumber: "9876543210" }, { name: "a.pdf", data: samplePdf() }),
    tok.patient,
  );
  reportId = r.body.data._id;
});
afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

const huge = "x".repeat(1024 * 1024);
const odd = "\u202eevil\u0000\ud800 Z\u0351\u036b\u0343 🙂 <script>alert(1)</script> ' OR 1=1 --";

/** Bodies every JSON endpoint must survive. */
const hostileBodies: { name: string; body: string; type?: string }[] = [
  { name: "malformed JSON", body: '{"email": ' },
  { name: "an array", body: "[]" },
  { name: "a string", body: '"hello"' },
  { name: "null", body: "null" },
  { name: "a number", body: "42" },
  { name: "empty", body: "" },
  {
    name: "wrong types",
    body: JSON.stringify({
      email: 5,
      password: ["a"],
      otp: { x: 1 },
      review: false,
      reportId: 7,
      expertId: [],
      firstName: null,
      dateOfBirth: 3,
    }),
  },
  {
    name: "1 MB strings",
    body: JSON.stringify({
      email: huge,
      password: huge,
      review: huge,
      reportId: huge,
      expertId: huge,
      firstName: huge,
      about: huge,
      token: huge,
      otp: huge,
    }),
  },
  {
    name: "NUL bytes and odd Unicode",
    body: JSON.stringify({
      email: `a${odd}@b.co`,
      password: odd,
      review: odd,
      firstName: odd,
      lastName: odd,
      about: odd,
      reportId: odd,
      expertId: odd,
      token: odd,
      otp: "12\u00003456",
      gender: odd,
      dateOfBirth: odd,
      contactNumber: odd,
    }),
  },
  {
    name: "extra fields",
    body: JSON.stringify({
      __proto__: { admin: true },
      constructor: { prototype: { x: 1 } },
      accountType: "Admin",
      approved: true,
      role: "Admin",
    }),
  },
  { name: "form content type", body: "email=a@b.co&password=x", type: "application/x-www-form-urlencoded" },
  { name: "text content type", body: "hello", type: "text/plain" },
];

const jsonEndpoints: { method: string; path: string; token?: string }[] = [
  { method: "POST", path: "/auth/send-otp" },
  { method: "POST", path: "/auth/signup" },
  { method: "POST", path: "/auth/login" },
  { method: "POST", path: "/auth/reset-password-token" },
  { method: "POST", path: "/auth/send-login-code" },
  { method: "PUT", path: "/profile/update-notifications", token: "patient" },
  { method: "POST", path: "/auth/reset-password" },
  { method: "POST", path: "/auth/change-password", token: "patient" },
  { method: "PUT", path: "/profile/update-profile", token: "patient" },
  { method: "POST", path: "/report/add-review/REPORT", token: "admin" },
  { method: "DELETE", path: "/report/delete-report", token: "patient" },
  { method: "POST", path: "/expert/approve-expert", token: "admin" },
  { method: "POST", path: "/report/second-opinion/REPORT", token: "admin" },
  { method: "POST", path: "/voice-notes", token: "patient" },
  { method: "PATCH", path: "/voice-notes/no-such-note", token: "admin" },
  { method: "POST", path: "/report/REPORT/observations", token: "admin" },
  { method: "PATCH", path: "/report/REPORT/observations/no-such-value", token: "admin" },
  { method: "POST", path: "/report/REPORT/observations/confirm", token: "admin" },
  { method: "POST", path: "/admin/take-overs/no-such-take-over/undo", token: "admin" },
  { method: "POST", path: "/admin/take-overs/no-such-take-over/clear", token: "admin" },
  { method: "POST", path: "/take-over/not-me/unknown-not-me-link-0000000000" },
  { method: "POST", path: "/centres/no-such-centre/held-items/no-such-item/hand-over", token: "admin" },
  { method: "POST", path: "/centre/patients/no-such-patient/slip", token: "admin" },
  // "Call me" (decision 0080): the person's own profile.
  { method: "PUT", path: "/patients/PATIENT/notice", token: "patient" },
  // The code that proves her number for calls (decision 0102).
  { method: "PUT", path: "/patients/PATIENT/notice/proof", token: "patient" },
];

const counts = async () => {
  const db = await openTestDb(server.dataDir);
  try {
    const ns: number[] = [];
    for (const t of ["users", "reports", "sessions", "profiles"])
      ns.push((await db.get<{ n: number }>(`select count(*) n from ${t}`))!.n);
    return ns.join(",");
  } finally {
    await db.close();
  }
};

describe("bad-input sweep over /api/v1", () => {
  it("never answers 5xx, always the JSON error shape, and stores nothing", async () => {
    const before = await counts();
    const failures: string[] = [];
    for (const ep of jsonEndpoints) {
      for (const b of hostileBodies) {
        const path = ep.path.replace("REPORT", reportId).replace("PATIENT", patientId);
        const res = await api.raw(ep.method, path, b.body, ep.token ? tok[ep.token] : undefined, {
          "Content-Type": b.type ?? "application/json",
        });
        const label = `${ep.method} ${ep.path} with ${b.name}: ${res.status}`;
        if (res.status >= 500) failures.push(label);
        if (res.status < 400) failures.push(`${label} (accepted)`);
        if (
          !res.headers.get("content-type")?.includes("application/json") ||
          res.body.success !== false ||
          typeof res.body.message !== "string"
        ) {
          failures.push(`${label} (not the error shape)`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(await counts()).toBe(before);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it("take-over ids and not-me tokens that are junk: 404 with the JSON error shape, never 5xx", async () => {
    const junk = ["%00", "%E2%80%AE", "x".repeat(5000), "'%20OR%201=1%20--", "..%2F..%2Fetc", "%F0%9F%99%82"];
    const failures: string[] = [];
    for (const id of junk) {
      for (const [method, path, token] of [
        ["POST", `/admin/take-overs/${id}/undo`, "admin"],
        ["POST", `/admin/take-overs/${id}/clear`, "admin"],
        ["GET", `/take-over/not-me/${id}`, undefined],
        ["POST", `/take-over/not-me/${id}`, undefined],
      ] as const) {
        const res = await api.raw(method, path, method === "POST" ? "{}" : undefined, token && tok[token], {
          "Content-Type": "application/json",
        });
        const label = `${method} ${path.slice(0, 60)}: ${res.status}`;
        if (res.status >= 500 || res.status < 400) failures.push(label);
        if (res.body?.success !== false || typeof res.body?.message !== "string")
          failures.push(`${label} (not the error shape)`);
      }
    }
    expect(failures).toEqual([]);
  });

  it("list endpoints answer junk page queries with 200 or the JSON error shape, never 5xx", async () => {
    const lists: { path: string; token: string }[] = [
      { path: "/report/get-pending-reports", token: "admin" },
      { path: "/report/get-all-reviewed-reports", token: "admin" },
      { path: "/expert/get-pending-expert", token: "admin" },
      { path: "/admin/get-contact-messages", token: "admin" },
      { path: "/admin/get-callback-requests", token: "admin" },
      { path: "/admin/get-sms-messages", token: "admin" },
      { path: "/admin/take-overs", token: "admin" },
    ];
    const queries = [
      "page=-1",
      "page=abc",
      "page=1e400",
      "pageSize=100000",
      "page=%00",
      "page=1&page=2",
      "pageSize=0.5",
      "status=%00",
      "status=all&status=review",
      `status=${"x".repeat(5000)}`,
    ];
    const failures: string[] = [];
    for (const l of lists) {
      for (const q of queries) {
        const res = await api.raw("GET", `${l.path}?${q}`, undefined, tok[l.token]);
        const label = `GET ${l.path}?${q}: ${res.status}`;
        if (res.status >= 500) failures.push(label);
        if (!res.headers.get("content-type")?.includes("application/json"))
          failures.push(`${label} (not JSON)`);
        if (res.status >= 400 && (res.body.success !== false || typeof res.body.message !== "string")) {
          failures.push(`${label} (not the error shape)`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it("uploads: spoofed types, oversize, empty and traversal names never 5xx and store nothing bad", async () => {
    const files = async () => (await storedKeys(server)).length;
    const before = await files();
    const cases = [
      { name: "x.pdf", data: Buffer.from("<!doctype html><html><body onload=alert(1)>"), expect: 415 },
      {
        name: "setup.pdf",
        data: Buffer.concat([Buffer.from([0x4d, 0x5a, 0x90, 0x00]), Buffer.alloc(512)]),
        expect: 415,
      },
      {
        name: "elf.pdf",
        data: Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46]), Buffer.alloc(512)]),
        expect: 415,
      },
      { name: "big.pdf", data: Buffer.concat([samplePdf(), Buffer.alloc(2 * 1024 * 1024)]), expect: 413 },
      { name: "zero.pdf", data: Buffer.alloc(0), expect: 400 },
    ];
    for (const c of cases) {
      const res = await api.call(
        "POST",
        "/report/upload-report",
        uploadForm({ reportType: "ECG", phoneNumber: "9876543210" }, { name: c.name, data: c.data }),
        tok.patient,
      );
      expect(res.status, c.name).toBe(c.expect);
      expect(res.body.success).toBe(false);
    }
    const garbage = await api.raw(
      "POST",
      "/report/upload-report",
      "--x\r\nnot really multipart",
      tok.patient,
      { "Content-Type": "multipart/form-data; boundary=x" },
    );
    expect(garbage.status).toBeLessThan(500);
    const noBoundary = await api.raw("POST", "/report/upload-report", "abc", tok.patient, {
      "Content-Type": "multipart/form-data",
    });
    expect(noBoundary.status).toBeLessThan(500);
    const json = await api.raw("POST", "/report/upload-report", "{}", tok.patient, {
      "Content-Type": "application/json",
    });
    expect(json.status).toBe(400);
    expect(await files()).toBe(before);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it("multipart cut off, malformed or oversized: 400/413 with the JSON error shape, nothing stored", async () => {
    const files = async () => (await storedKeys(server)).length;
    const before = await files();
    const boundary = "----cb-test-boundary";
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="reportType"\r\n\r\nECG\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="phoneNumber"\r\n\r\n9876543210\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="report"; filename="r.pdf"\r\n` +
        `Content-Type: application/pdf\r\n\r\n`,
    );
    const whole = Buffer.concat([head, samplePdf(), Buffer.from(`\r\n--${boundary}--\r\n`)]);
    const post = (
      path: string,
      body: Buffer | ReturnType<typeof zeros>,
      headers: Record<string, string> = {},
    ) =>
      raw(`${server.url}/api/v1${path}`, {
        method: path.includes("picture") ? "PUT" : "POST",
        headers: {
          authorization: `Bearer ${tok.patient}`,
          "content-type": `multipart/form-data; boundary=${boundary}`,
          ...headers,
        },
        body,
      });
    const cases: { name: string; path?: string; body: Buffer | ReturnType<typeof zeros>; status: number }[] =
      [
        { name: "cut off inside the file", body: whole.subarray(0, head.length + 200), status: 400 },
        {
          name: "cut off before the closing boundary",
          body: whole.subarray(0, whole.length - 8),
          status: 400,
        },
        { name: "only a preamble", body: Buffer.from("no parts here at all"), status: 400 },
        {
          name: "a part without headers",
          body: Buffer.from(`--${boundary}\r\n\r\n\r\n--${boundary}--`),
          status: 400,
        },
        { name: "50 MB streamed (limit 1 MB)", body: Buffer.concat([head]), status: 413 },
        {
          name: "picture cut off",
          path: "/profile/update-display-picture",
          body: whole.subarray(0, head.length + 50),
          status: 400,
        },
      ];
    for (const c of cases) {
      const streamed = c.name.startsWith("50 MB");
      // The 50 MB body is still being written when the server answers 413 and closes: the client's
      // write can then fail (EPIPE) before it reads the answer. Send it again then (at most 3 times).
      const cut = (err: unknown) =>
        ["EPIPE", "ECONNRESET"].includes(String((err as NodeJS.ErrnoException).code));
      const res = await withRetries(streamed ? 3 : 1, cut, () =>
        post(c.path ?? "/report/upload-report", streamed ? zeros(50 * 1024 * 1024) : c.body),
      );
      expect(res.status, c.name).toBe(c.status);
      expect(res.headers["content-type"], c.name).toMatch(/application\/json/);
      const parsed = JSON.parse(res.body.toString());
      expect(parsed.success, c.name).toBe(false);
      expect(typeof parsed.message, c.name).toBe("string");
    }
    // A declared length over the limit is refused before a byte of it is read.
    const declared = await raw(`${server.url}/api/v1/report/upload-report`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${tok.patient}`,
        "content-type": `multipart/form-data; boundary=${boundary}`,
        "content-length": String(50 * 1024 * 1024),
      },
      body: whole,
      timeoutMs: 10_000,
    }).catch((e: Error) => e);
    expect(declared instanceof Error ? declared.message : declared.status).toSatisfy(
      (v: unknown) => v === 413 || v === "socket hang up",
    );
    expect(await files()).toBe(before);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it("stored text comes back as text, never as HTML", async () => {
    const r = await api.call(
      "POST",
      "/report/upload-report",
      uploadForm(
        { reportType: "ECG", phoneNumber: "9876543210", description: "<img src=x onerror=alert(1)>" },
        { name: "<b>x</b>.pdf", data: samplePdf() },
      ),
      tok.patient,
    );
    expect(r.status).toBe(201);
    const b = new Browserish(server.url);
    await b.post("/login", { email: "p@bad.test", password: "Sturdy-pass-2026" });
    const page = await b.fetch(`/dashboard/previous-report/${r.body.data.patient._id}`);
    const html = await page.text();
    expect(html).not.toContain("<img src=x onerror=alert(1)>");
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
  });
});

describe("bad input on the screens", () => {
  it("form actions answer junk with form errors, never 5xx", async () => {
    const b = new Browserish(server.url);
    const posts: [string, Record<string, string>][] = [
      ["/signup", { accountType: "Admin", email: huge.slice(0, 100000), password: odd }],
      ["/login", { email: odd, password: huge.slice(0, 100000) }],
      ["/forgot-password", { email: "\u0000" }],
      ["/contact-us", { name: odd, email: odd, message: huge }],
      ["/?index", { name: odd, countryCode: "'; drop table users", phoneNumber: odd }],
      ["/verify-email", { code: odd }],
      ["/update-password/not-a-token", { password: odd, confirmPassword: odd }],
      ["/take-over/not-me/unknown-not-me-link-0000000000", { intent: odd }],
      [`/take-over/not-me/${"x".repeat(5000)}`, {}],
    ];
    for (const [path, fields] of posts) {
      const res = await b.post(path, fields);
      expect(res.status, path).toBeLessThan(500);
      expect(res.status, path).not.toBe(200);
    }
    const wrongType = await b.fetch("/login", {
      method: "POST",
      body: "{}",
      headers: { "Content-Type": "application/json", Origin: server.url },
    });
    expect(wrongType.status).toBeLessThan(500);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});
