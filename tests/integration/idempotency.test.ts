import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi, strongPassword } from "../helpers/api";
import { webmOpus } from "../helpers/audio";
import { openTestDb, type TestDb } from "../helpers/db";
import { samplePdf, uploadForm } from "../helpers/files";
import { Browserish, pageText, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/*
 * `Idempotency-Key` on every create an offline item can call (decision 0062),
 * over HTTP against the built app (SQLite, and PostgreSQL + S3 with TEST_BACKEND=pg-s3). For each:
 * without a key as before; the same key and body → the first answer replayed and one record
 * (counted through the API); the same key with another body → 422; two at once with one key →
 * one record; another account's same key → its own record.
 */
let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let api: ReturnType<typeof apiClient>;
let db: TestDb;
const tok: Record<string, string> = {};
const ids: Record<string, string> = {};
const web: Record<string, Browserish> = {};
const CENTRE = "c00000000000000000000idem";
const ADMIN = { email: "admin@idem.test", password: "Admin-pass-2026" };

type Who = "a" | "b";
type Case = {
  name: string;
  /** Sends body variant `v` as account `who`, with `key` (or none). */
  send(who: Who, v: string, key?: string): Promise<Response>;
  /** How many records `who` has, through the API. */
  count(who: Who): Promise<number>;
  /** The success status. */
  ok: number;
  /** Fields a replay reads again under today's permissions (the rest of the answer is the ids kept). */
  rereads?: string[];
};

const auth = (who: Who, prefix: string) => tok[prefix + who.toUpperCase()];
const withKey = (key?: string, token?: string): Record<string, string> => ({
  ...(key !== undefined ? { "Idempotency-Key": key } : {}),
  ...(token ? { Authorization: `Bearer ${token}` } : {}),
});
const post = (
  path: string,
  body: BodyInit,
  token: string,
  key?: string,
  headers: Record<string, string> = {},
) =>
  fetch(`${server.url}/api/v1${path}`, {
    method: "POST",
    body,
    headers: { ...withKey(key, token), ...headers },
  });
const json = (path: string, body: unknown, token: string, key?: string) =>
  post(path, JSON.stringify(body), token, key, { "Content-Type": "application/json" });
const listed = async (path: string, token: string) => {
  const r = await api.raw("GET", path as never, undefined, token);
  expect(r.status, path).toBe(200);
  return r.body;
};
/** A refusal's message: the API's JSON, or the screen's page text. */
const messageOf = async (r: Response) => {
  const text = await r.text();
  if (/json/.test(r.headers.get("Content-Type") ?? "")) return JSON.parse(text).message;
  return pageText(text);
};
const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
const pdf = (v: string) => Buffer.concat([samplePdf(), Buffer.from(`\n% ${v}\n`)]);
const reportFields = (v: string) => ({
  reportType: "Blood Test",
  phoneNumber: "9876543210",
  countryCode: "+91",
  description: `Variant ${v}`,
});
const reportCount = async (who: Who) =>
  (
    await listed(
      `/report/get-report-by-patientId/${ids["patient" + who.toUpperCase()]}?pageSize=100`,
      auth(who, "patient"),
    )
  ).pagination.total as number;

const cases: Case[] = [
  {
    name: "centre patient registration (multipart)",
    ok: 201,
    rereads: ["firstName", "lastName", "shortId", "birthYear"],
    send: (who, v, key) =>
      post(
        "/centre/patients",
        uploadForm({
          firstName: `Kamla${v}`,
          lastName: "Devi",
          sex: "female",
          age: "72",
          locality: "Rampur",
          preferredLanguage: "hi",
          phoneOwner: "none",
          consent: "granted",
          consentMethod: "verbal",
        }),
        auth(who, "hw"),
        key,
      ),
    // Both workers are of one centre: its queue, filtered to each worker's names.
    count: async (who) =>
      (await listed(`/centre/patients?pageSize=100`, auth(who, "hw"))).data.filter(
        (p: { firstName: string }) => p.firstName.endsWith(`-${who}`),
      ).length,
  },
  {
    name: "report upload (multipart)",
    ok: 201,
    send: (who, v, key) =>
      post(
        "/report/upload-report",
        uploadForm(reportFields(v), { name: "lab.pdf", data: pdf(v), type: "application/pdf" }),
        auth(who, "patient"),
        key,
      ),
    count: reportCount,
  },
  {
    name: "report upload (the screen's form)",
    ok: 302,
    send: (who, v, key) =>
      web[who].fetch("/dashboard/upload-report", {
        method: "POST",
        body: uploadForm(
          { ...reportFields(v), consent: "on" },
          { name: "lab.pdf", data: pdf(v), type: "application/pdf" },
        ),
        headers: { ...withKey(key), Origin: server.url, "Sec-Fetch-Site": "same-origin" },
      }),
    count: reportCount,
  },
  {
    name: "resumable upload creation (tus POST, with the whole file)",
    ok: 201,
    send: (who, v, key) =>
      post("/uploads", new Uint8Array(pdf(v)), auth(who, "patient"), key, {
        "Tus-Resumable": "1.0.0",
        "Upload-Length": String(pdf(v).length),
        "Upload-Metadata": Object.entries({ ...reportFields(v), consent: "on", filename: "lab.pdf" })
          .map(([k, x]) => `${k} ${b64(x)}`)
          .join(","),
        "Content-Type": "application/offset+octet-stream",
      }),
    count: reportCount,
  },
  {
    name: "voice notes",
    ok: 201,
    send: (who, v, key) => {
      const form = uploadForm(
        { kind: "description", language: v.startsWith("two") ? "en" : "hi" },
        { name: "voice.webm", data: webmOpus(1), type: "audio/webm", field: "audio" },
      );
      form.append("reportId", ids["report" + who.toUpperCase()]);
      return post("/voice-notes", form, auth(who, "patient"), key);
    },
    count: async (who) =>
      (await listed(`/voice-notes?reportId=${ids["report" + who.toUpperCase()]}`, auth(who, "patient"))).data
        .length,
  },
  {
    name: "follow-up questions",
    ok: 201,
    send: (who, v, key) =>
      json(
        `/report/follow-up/${ids["report" + who.toUpperCase()]}`,
        { question: `Is it serious? ${v}` },
        auth(who, "patient"),
        key,
      ),
    count: async (who) => {
      const list = await listed(
        `/report/get-report-by-patientId/${ids["patient" + who.toUpperCase()]}?pageSize=100`,
        auth(who, "patient"),
      );
      const report = list.data.find((r: { _id: string }) => r._id === ids["report" + who.toUpperCase()]);
      return 20 - report.followUpsLeft;
    },
  },
  {
    name: "family members",
    ok: 201,
    rereads: ["firstName"],
    send: (who, v, key) =>
      json(
        "/family/members",
        {
          firstName: `Meena${v}`,
          sex: "female",
          birthYear: 1990,
          relationship: "daughter",
          preferredLanguage: "hi",
          memberConsent: true,
        },
        auth(who, "patient"),
        key,
      ),
    count: async (who) => (await listed("/family/members", auth(who, "patient"))).data.length,
  },
];

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    RATE_LIMIT_DISABLED: "1",
    FOLLOWUP_MAX: "20",
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
  });
  api = apiClient(server.url);
  db = await openTestDb(server.dataDir, { write: true });
  const now = db.time(Date.now());
  await db.run(
    "INSERT INTO centres (id, name, kind, district, state, pin_code, created_at, updated_at) VALUES (?, 'HWC Rampur', 'hwc', 'Sitapur', 'Uttar Pradesh', '261001', ?, ?)",
    CENTRE,
    now,
    now,
  );
  const accounts = [
    ["patientA", "Patient"],
    ["patientB", "Patient"],
    ["hwA", "Patient"],
    ["hwB", "Patient"],
    ["expert", "Expert"],
  ] as const;
  for (const [k, type] of accounts) {
    const r = await signupViaApi(api, smtp, codeFrom, {
      email: `${k.toLowerCase()}@idem.test`,
      accountType: type,
      firstName: k,
      lastName: "Idem",
    });
    tok[k] = r.token;
    ids[k] = r.user._id;
  }
  for (const k of ["hwA", "hwB"]) {
    await db.run("DELETE FROM patients WHERE id = ?", ids[k]);
    await db.run(
      "UPDATE users SET account_type = 'HealthWorker', approved = ?, notify = 'email' WHERE id = ?",
      db.kind === "sqlite" ? 1 : true,
      ids[k],
    );
    await db.run(
      "INSERT INTO health_workers (user_id, centre_id, role, worker_id, updated_at) VALUES (?, ?, 'cho', ?, ?)",
      ids[k],
      CENTRE,
      `CHO-${k}`,
      db.time(Date.now()),
    );
  }
  const admin = (await api.post("/auth/login", ADMIN)).body.token;
  expect((await api.post("/expert/approve-expert", { expertId: ids.expert }, admin)).status).toBe(200);
  // A reviewed report each, for voice notes and follow-up questions.
  for (const who of ["A", "B"]) {
    const r = await post(
      "/report/upload-report",
      uploadForm(reportFields(`base-${who}`), {
        name: "lab.pdf",
        data: samplePdf(),
        type: "application/pdf",
      }),
      tok[`patient${who}`],
    );
    expect(r.status).toBe(201);
    ids[`report${who}`] = (await r.json()).data._id;
    expect((await api.post(`/report/claim/${ids[`report${who}`]}`, {}, tok.expert)).status).toBe(200);
    expect(
      (await api.post(`/report/add-review/${ids[`report${who}`]}`, { review: "Looks normal" }, tok.expert))
        .status,
    ).toBe(200);
    const b = new Browserish(server.url);
    expect(
      (await b.post("/login", { email: `patient${who.toLowerCase()}@idem.test`, password: strongPassword }))
        .status,
    ).toBe(302);
    web[who.toLowerCase()] = b;
  }
});
afterAll(async () => {
  await db?.close();
  await server?.stop();
  await smtp?.close();
});

describe.each(cases)("Idempotency-Key: $name", (c) => {
  it("once per key and account: replayed, refused for another body, one record for two at once", async () => {
    const tag = c.name.replace(/\W+/g, "-");
    const start = { a: await c.count("a"), b: await c.count("b") };

    // No key: as before, every request its own record.
    expect((await c.send("a", "plain-a")).status).toBe(c.ok);
    expect(await c.count("a")).toBe(start.a + 1);

    // The same key and body: the first answer again, one record.
    const key = `k-${tag}`;
    const first = await c.send("a", "one-a", key);
    expect(first.status).toBe(c.ok);
    const firstBody = await first.text();
    const again = await c.send("a", "one-a", key);
    expect(again.status).toBe(c.ok);
    // The same answer: a JSON answer's message and record (read again where the route can,
    // decision 0074), or a screen's redirect and a tus creation's headers.
    const againBody = await again.text();
    if (firstBody.startsWith("{")) {
      const [was, is] = [JSON.parse(firstBody), JSON.parse(againBody)];
      expect(is.message).toBe(was.message);
      expect(is.data._id ?? is.data.id).toBe(was.data._id ?? was.data.id);
      if (c.rereads) for (const f of c.rereads) expect(is.data[f], f).toEqual(was.data[f]);
    } else expect(againBody).toBe(firstBody);
    expect(again.headers.get("Location")).toBe(first.headers.get("Location"));
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await c.count("a")).toBe(start.a + 2);

    // The same key with another body: refused, nothing made.
    const other = await c.send("a", "two-a", key);
    expect(other.status).toBe(422);
    expect(await messageOf(other)).toContain(
      "This Idempotency-Key was already used for a different request; send the same request again or use a new key",
    );
    expect(await c.count("a")).toBe(start.a + 2);

    // Two at once with one key: one record; the other gets the same answer or 409 with Retry-After.
    const both = await Promise.all([c.send("a", "three-a", `${key}-2`), c.send("a", "three-a", `${key}-2`)]);
    const statuses = both.map((r) => r.status);
    for (const s of statuses) expect([c.ok, 409]).toContain(s);
    expect(statuses).toContain(c.ok);
    for (const r of both) if (r.status === 409) expect(r.headers.get("Retry-After")).toBe("1");
    expect(await c.count("a")).toBe(start.a + 3);

    // Another account's same key means nothing for it: its own record.
    const theirs = await c.send("b", "one-b", key);
    expect(theirs.status).toBe(c.ok);
    expect(await c.count("b")).toBe(start.b + 1);
  });
});

describe("Idempotency-Key itself", () => {
  it("must be 1 to 255 printable ASCII characters (400, in the request's language), making nothing", async () => {
    const family = cases.find((c) => c.name === "family members")!;
    const before = await family.count("a");
    for (const bad of ["", "x".repeat(256), "tab\there"]) {
      const r = await family.send("a", "bad", bad);
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect((await r.json()).message).toBe("Idempotency-Key must be 1 to 255 printable ASCII characters");
    }
    const hi = await fetch(`${server.url}/api/v1/family/members`, {
      method: "POST",
      body: "{}",
      headers: { ...withKey("", tok.patientA), "Content-Type": "application/json", "Accept-Language": "hi" },
    });
    expect((await hi.json()).message).toBe(
      "Idempotency-Key में 1 से 255 तक छपने योग्य ASCII अक्षर होने चाहिए",
    );
    expect(await family.count("a")).toBe(before);
  });

  it("a refused request frees its key: the corrected request with the same key is made", async () => {
    const r = await json("/family/members", { firstName: "Asha", sex: "female" }, tok.patientA, "fix-me");
    expect(r.status).toBe(400);
    const again = await json(
      "/family/members",
      {
        firstName: "Asha",
        sex: "female",
        birthYear: 1995,
        relationship: "daughter",
        preferredLanguage: "hi",
        memberConsent: true,
      },
      tok.patientA,
      "fix-me",
    );
    expect(again.status).toBe(201);
  });
});

/**
 * Starts a keyed multipart upload whose body arrives slowly: the first `firstBytes` at once, the
 * rest never (until `end`). Resolves with the answer if one comes before `waitMs`, else null.
 */
function slowUpload(path: string, token: string, key: string, firstBytes: number, waitMs: number) {
  const boundary = "----slow" + key;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="reportType"\r\n\r\nBlood Test\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="report"; filename="big.pdf"\r\n` +
      `Content-Type: application/pdf\r\n\r\n%PDF-1.4\n`,
  );
  const url = new URL(`/api/v1${path}`, server.url);
  const req = httpRequest(url, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${token}`,
      "Idempotency-Key": key,
      "Content-Type": `multipart/form-data; boundary=${boundary}`,
      "Content-Length": String(9 * 1024 * 1024),
    },
  });
  req.on("error", () => {});
  req.write(Buffer.concat([head, Buffer.alloc(firstBytes - head.length, 0x20)]));
  const answer = new Promise<{ status: number; headers: Record<string, unknown>; body: string } | null>(
    (resolve) => {
      const timer = setTimeout(() => resolve(null), waitMs);
      req.on("response", (res) => {
        let body = "";
        res.on("data", (d) => (body += d));
        res.on("end", () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
      });
    },
  );
  return { answer, end: () => req.destroy() };
}

describe("what a key keeps, and when a body is read (decision 0074)", () => {
  it("the kept answer holds the record's id, no name or phone; a replay is read again under today's rights", async () => {
    const key = "kept-small";
    const form = () =>
      uploadForm({
        firstName: "Phoolmati",
        lastName: "Kushwaha",
        sex: "female",
        age: "61",
        locality: "Rampur",
        preferredLanguage: "hi",
        phoneOwner: "self",
        phone: "9812345670",
        countryCode: "+91",
        consent: "granted",
        consentMethod: "verbal",
      });
    const first = await post("/centre/patients", form(), tok.hwA, key);
    expect(first.status, await first.clone().text()).toBe(201);
    const made = (await first.json()).data;
    const row = await db.get<{ body: string; fingerprint: string }>(
      "SELECT body, fingerprint FROM idempotency_keys WHERE key = ?",
      key,
    );
    expect(row!.body).toContain(made._id);
    for (const secret of ["Phoolmati", "Kushwaha", "9812345670", made.shortId]) {
      expect(row!.body, secret).not.toContain(secret);
    }
    expect(row!.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    // The same worker moved to another centre: the replay is refused, and names nobody.
    const elsewhere = "c0000000000000000000idem2";
    const now = db.time(Date.now());
    await db.run(
      "INSERT INTO centres (id, name, kind, district, state, pin_code, created_at, updated_at) VALUES (?, 'PHC Elsewhere', 'phc', 'Sitapur', 'Uttar Pradesh', '261001', ?, ?)",
      elsewhere,
      now,
      now,
    );
    await db.run("UPDATE health_workers SET centre_id = ? WHERE user_id = ?", elsewhere, ids.hwA);
    try {
      const again = await post("/centre/patients", form(), tok.hwA, key);
      const text = await again.text();
      expect(again.status, text).toBeGreaterThanOrEqual(400);
      expect(text).not.toContain("Phoolmati");
    } finally {
      await db.run("UPDATE health_workers SET centre_id = ? WHERE user_id = ?", CENTRE, ids.hwA);
    }
    const back = await post("/centre/patients", form(), tok.hwA, key);
    expect(back.status).toBe(201);
    expect((await back.json()).data.firstName).toBe("Phoolmati");
  });

  it("who may call comes first: an expert's keyed upload is refused before its body arrives", async () => {
    const slow = slowUpload("/report/upload-report", tok.expert, "expert-big", 256 * 1024, 5000);
    try {
      const answer = await slow.answer;
      // The old build read all 9 MB before it looked at who was sending: no answer in 5 s.
      expect(answer, "an answer before the body was sent").not.toBeNull();
      expect(answer!.status).toBe(403);
    } finally {
      slow.end();
    }
  });

  it("one account has at most two keyed bodies arriving at once; the third is told to wait", async () => {
    const a = slowUpload("/report/upload-report", tok.patientA, "slow-1", 64 * 1024, 800);
    const b = slowUpload("/report/upload-report", tok.patientA, "slow-2", 64 * 1024, 800);
    try {
      expect(await a.answer, server.output().slice(-3000)).toBeNull(); // still arriving
      expect(await b.answer).toBeNull();
      const third = await json("/family/members", { firstName: "Wait" }, tok.patientA, "third").catch((e) => {
        throw new Error(server.output().slice(-3000), { cause: e });
      });
      expect(third.status).toBe(429);
      expect(third.headers.get("Retry-After")).toBe("5");
      // Another account is not held up by hers.
      const theirs = await json("/family/members", { firstName: "Other" }, tok.patientB, "theirs");
      expect(theirs.status).toBe(400);
    } finally {
      a.end();
      b.end();
    }
    // Once they are gone, her keys work again.
    let status = 0;
    for (let i = 0; i < 50 && status !== 400; i++) {
      status = (await json("/family/members", { firstName: "Again" }, tok.patientA, `again-${i}`)).status;
      if (status !== 400) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(400);
  });
});
