import { createHash, randomBytes } from "node:crypto";
import { request as httpRequest } from "node:http";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi, strongPassword, type ApiBody } from "../helpers/api";
import { openTestDb, type TestDb } from "../helpers/db";
import { checkBundle } from "../helpers/fhir-validate";
import { samplePdf, uploadForm } from "../helpers/files";
import { raw, type RawResponse } from "../helpers/raw";
import { Browserish, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";
import { pageModules, withoutPageStrings } from "../helpers/html";

/*
 * Sharing links over HTTP against the built app, with rate limits ON (as in
 * production): the patient creates, lists and revokes links through /api/v1 and the screens; a
 * doctor without an account opens them at /s/<token> (landing → POST open → page, file, letter);
 * every way a link stops working is refused with its own message and status; strangers and other
 * accounts get nothing. Each "doctor" is its own client address (127.0.0.x), so its budgets are its own.
 */

const ADMIN = { email: "admin@share.test", password: "Admin-pass-2026" };
let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let api: ReturnType<typeof apiClient>;
let db: TestDb;
const tok: Record<string, string> = {};
const ids: Record<string, string> = {};
const OPINION = {
  review: "Mild anaemia; otherwise normal.",
  findings: "Haemoglobin 10.9 g/dL, low.",
  recommendations: "Iron-rich food; repeat the test in 8 weeks.",
};
const SECRET_DESCRIPTION = "Private note about my fasting sugar";
const OTHER_DESCRIPTION = "Another report nobody was given";

async function signup(
  key: string,
  accountType: "Patient" | "Expert",
  firstName: string,
  extra?: Partial<ApiBody<"post", "/auth/signup">>,
) {
  const r = await signupViaApi(api, smtp, codeFrom, {
    email: `${key}@share.test`,
    accountType,
    firstName,
    lastName: "Kumari",
    extra,
  });
  tok[key] = r.token;
  ids[key] = r.user._id;
}

const upload = async (token: string, fields: Record<string, string>) => {
  const res = await api.call(
    "POST",
    "/report/upload-report",
    uploadForm(
      { phoneNumber: "9123456780", countryCode: "+91", ...fields },
      { name: "blood.pdf", data: samplePdf(), type: "application/pdf" },
    ),
    token,
  );
  expect(res.status).toBe(201);
  return res.body.data._id as string;
};

const createLink = (body: ApiBody<"post", "/report/share-links">, token = tok.patient) =>
  api.post("/report/share-links", body, token);

const tokenOf = (url: string) => /\/s\/([A-Za-z0-9_-]{43})$/.exec(url)![1];
const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

let nextAddress = 10;
/** A doctor's browser: its own address (127.0.0.x) and cookies; forms post like a browser without JavaScript. */
class Doctor {
  cookies = new Map<string, string>();
  constructor(public address = `127.0.0.${nextAddress++}`) {}
  async request(
    path: string,
    init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
  ) {
    const headers: Record<string, string> = { ...init.headers };
    if (this.cookies.size) headers.Cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    let body: string | undefined;
    if (init.form) {
      body = new URLSearchParams(init.form).toString();
      headers["Content-Type"] = "application/x-www-form-urlencoded";
      headers.Origin ??= server.url;
      headers["Sec-Fetch-Site"] ??= "same-origin";
    }
    const res = await raw(server.url + path, {
      method: init.method ?? (init.form ? "POST" : "GET"),
      headers,
      body,
      localAddress: this.address,
    });
    const set = res.headers["set-cookie"];
    for (const c of Array.isArray(set) ? set : set ? [set] : []) {
      const [pair] = c.split(";");
      const i = pair.indexOf("=");
      if (/Max-Age=0/i.test(c)) this.cookies.delete(pair.slice(0, i));
      else this.cookies.set(pair.slice(0, i), pair.slice(i + 1));
    }
    return res;
  }
  get(path: string, headers?: Record<string, string>) {
    return this.request(path, { headers });
  }
  open(token: string, passcode?: string) {
    return this.request(`/s/${token}`, { form: passcode === undefined ? {} : { passcode } });
  }
}

const text = (r: RawResponse) => r.body.toString("utf8");
const header = (r: RawResponse, name: string) => {
  const v = r.headers[name.toLowerCase()];
  return Array.isArray(v) ? v.join(", ") : (v ?? "");
};

/** The cookie holding a browser's open of the link of `token`. */
const grantCookieName = (token: string) => `cb_share_${sha256(token).slice(0, 16)}`;

/** The share pages' headers: the landing page (with the Open form) keeps referrers on our own origin only. */
function expectShareHeaders(r: RawResponse, referrer: "no-referrer" | "same-origin" = "no-referrer") {
  expect(header(r, "x-robots-tag")).toContain("noindex");
  expect(header(r, "cache-control")).toContain("no-store");
  expect(header(r, "referrer-policy")).toBe(referrer);
  expect(header(r, "x-content-type-options")).toBe("nosniff");
  expect(header(r, "x-frame-options")).toBe("DENY");
}

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
  });
  api = apiClient(server.url);
  db = await openTestDb(server.dataDir, { write: true });
  tok.admin = (await api.post("/auth/login", ADMIN)).body.token;
  await signup("patient", "Patient", "Asha");
  await signup("other", "Patient", "Ravi");
  await signup("expert", "Expert", "Meera", {
    specialties: ["Pathology"],
    registrationNumber: "KMC-4242",
    registrationCouncil: "Karnataka Medical Council",
    yearsOfPractice: 9,
  });
  await signup("unapproved", "Expert", "Nila");
  expect((await api.post("/expert/approve-expert", { expertId: ids.expert }, tok.admin)).status).toBe(200);
  ids.reviewed = await upload(tok.patient, { reportType: "Blood Test", description: SECRET_DESCRIPTION });
  ids.pending = await upload(tok.patient, { reportType: "X-Ray", description: OTHER_DESCRIPTION });
  ids.othersReport = await upload(tok.other, { reportType: "ECG" });
  const review = await api.post(`/report/add-review/${ids.reviewed}`, OPINION, tok.expert);
  expect(review.status).toBe(200);
}, 120_000);

afterAll(async () => {
  if (process.env.SHOW_SERVER) console.log(server?.output().slice(-12000));
  await db?.close();
  await server?.stop();
  await smtp?.close();
});

describe("creating, listing and revoking through /api/v1", () => {
  it("creates a link (201): the URL once, a long random token stored only as its hash, a hashed passcode", async () => {
    const before = Date.now();
    const res = await createLink({ reportId: ids.reviewed, label: "Dr. Rao, PHC Hosur", passcode: "482913" });
    expect(res.status).toBe(201);
    const link = res.body.data;
    expect(link.url).toMatch(new RegExp(`^${server.url}/s/[A-Za-z0-9_-]{43}$`));
    expect(link).toMatchObject({
      reportId: ids.reviewed,
      reportType: "Blood Test",
      label: "Dr. Rao, PHC Hosur",
      includeFile: true,
      includeOpinion: true,
      includeLetter: true,
      passcode: true,
      maxOpens: null,
      opens: 0,
      status: "active",
      revokedAt: null,
    });
    const days = (Date.parse(link.expiresAt) - before) / 86_400_000;
    expect(days).toBeGreaterThan(6.99);
    expect(days).toBeLessThan(7.01);
    expect(JSON.stringify(res.body)).not.toMatch(/tokenHash|passcodeHash|482913/);
    const token = tokenOf(link.url);
    expect(Buffer.from(token, "base64url")).toHaveLength(32);
    const row = await db.get("SELECT * FROM share_links WHERE id = ?", link._id);
    expect(row!.token_hash).toBe(sha256(token));
    expect(JSON.stringify(row)).not.toContain(token);
    expect(row!.passcode_hash).toMatch(/^\$argon2id\$/);
    ids.passcodeLink = link._id;
    tok.passcodeLink = token;
    // Two links never share a token.
    const again = await createLink({ reportId: ids.reviewed });
    expect(tokenOf(again.body.data.url)).not.toBe(token);
    tok.plain = tokenOf(again.body.data.url);
    ids.plain = again.body.data._id;
  });

  it("refuses bad input with a message per field and creates nothing", async () => {
    const count = async () => (await db.get("SELECT count(*) AS n FROM share_links"))!.n as number;
    const n = await count();
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ reportId: ids.reviewed, expiresInDays: 31 }, "expiresInDays", /1 to 30 days/],
      [{ reportId: ids.reviewed, expiresInDays: 0 }, "expiresInDays", /1 to 30 days/],
      [{ reportId: ids.reviewed, expiresInDays: "soon" }, "expiresInDays", /1 to 30 days/],
      [{ reportId: ids.reviewed, passcode: "1234" }, "passcode", /at least 6/],
      [{ reportId: ids.reviewed, passcode: "x".repeat(41) }, "passcode", /at most 40/],
      [{ reportId: ids.reviewed, label: "x".repeat(81) }, "label", /80 characters/],
      [{ reportId: ids.reviewed, maxOpens: 0 }, "maxOpens", /1 to 100/],
      [{ reportId: ids.reviewed, maxOpens: 2.5 }, "maxOpens", /1 to 100/],
      [
        { reportId: ids.reviewed, includeFile: false, includeOpinion: false, includeLetter: false },
        "includeFile",
        /at least one/,
      ],
      [{ reportId: ids.reviewed, includeFile: "yes" }, "includeFile", /true or false/],
      [{}, "reportId", /./],
    ];
    for (const [body, field, message] of cases) {
      const res = await api.raw("POST", "/report/share-links", body, tok.patient);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.success).toBe(false);
      expect(res.body.errors[field][0], field).toMatch(message);
    }
    // A report not reviewed yet: the opinion alone is not there to share.
    const pendingOnly = await createLink({ reportId: ids.pending, includeFile: false });
    expect(pendingOnly.status).toBe(400);
    expect(pendingOnly.body.message).toMatch(/not been reviewed yet/);
    expect((await createLink({ reportId: "nope" })).status).toBe(404);
    // Cut-off or mislabelled bodies.
    const cut = await api.raw("POST", "/report/share-links", '{"reportId": "ab', tok.patient);
    expect(cut.status).toBe(400);
    const form = await api.raw("POST", "/report/share-links", "reportId=x", tok.patient, {
      "Content-Type": "application/x-www-form-urlencoded",
    });
    expect(form.status).toBe(400);
    expect(await count()).toBe(n);
  });

  it("only the owning patient creates, lists and revokes: others get 401/403/404", async () => {
    for (const who of ["other", "expert", "unapproved", "admin"]) {
      const res = await createLink({ reportId: ids.reviewed }, tok[who]);
      expect(res.status, who).toBe(403);
      const revoke = await api.del(`/report/share-links/${ids.plain}`, undefined, tok[who]);
      expect(revoke.status, who).toBe(403);
    }
    expect((await createLink({ reportId: ids.reviewed }, "")).status).toBe(401);
    expect((await api.del(`/report/share-links/${ids.plain}`)).status).toBe(401);
    expect((await api.get("/report/share-links")).status).toBe(401);
    expect((await api.get("/report/share-links", tok.expert)).status).toBe(403);
    expect((await api.get("/report/share-links", tok.admin)).status).toBe(403);
    // Another patient's list holds only their own links; their own report cannot be shared by us.
    const others = await api.get("/report/share-links", tok.other);
    expect(others.status).toBe(200);
    expect(others.body.data).toEqual([]);
    expect((await createLink({ reportId: ids.othersReport })).status).toBe(403);
    expect(
      (await api.del("/report/share-links/000000000000000000000000", undefined, tok.patient)).status,
    ).toBe(404);
    expect((await api.raw("PUT", `/report/share-links/${ids.plain}`, {}, tok.patient)).status).toBe(405);
    const row = await db.get("SELECT revoked_at FROM share_links WHERE id = ?", ids.plain);
    expect(row!.revoked_at).toBeNull();
  });

  it("lists the patient's own links, newest first, never with a URL; ?reportId narrows", async () => {
    const res = await api.get("/report/share-links?pageSize=100", tok.patient);
    expect(res.status).toBe(200);
    expect(res.body.data.map((l: { _id: string }) => l._id)).toEqual(
      expect.arrayContaining([ids.passcodeLink, ids.plain]),
    );
    expect(res.body.data[0]._id).toBe(ids.plain);
    expect(JSON.stringify(res.body)).not.toMatch(/\/s\/|url/);
    expect(res.body.pagination).toMatchObject({ page: 1, pageSize: 100 });
    const none = await api.get(`/report/share-links?reportId=${ids.pending}`, tok.patient);
    expect(none.body.data).toEqual([]);
    expect((await api.get("/report/share-links?pageSize=500", tok.patient)).status).toBe(400);
  });
});

describe("the doctor's page", () => {
  it("a landing page first (nothing of the patient), then POST opens it, counted once; file and letter follow", async () => {
    const doctor = new Doctor();
    const landing = await doctor.get(`/s/${tok.plain}`);
    expect(landing.status).toBe(200);
    expectShareHeaders(landing, "same-origin");
    const html = text(landing);
    expect(html).toContain("A medical report was shared with you");
    expect(html).toContain('<meta name="robots" content="noindex, nofollow"');
    expect(html).toContain('<meta name="referrer" content="same-origin"');
    // The patient's name (the page's strings hold the key `roleAsha`, the ASHA worker's role, which is not hers).
    expect(html).not.toMatch(/\bAsha\b/);
    expect(html).not.toContain("Mild anaemia");
    expect(html).not.toContain('name="passcode"');

    // The file before opening: sent to the page.
    const early = await doctor.get(`/s/${tok.plain}/file`);
    expect(early.status).toBe(303);
    expect(header(early, "location")).toBe(`/s/${tok.plain}`);

    const opened = await doctor.open(tok.plain);
    expect(opened.status).toBe(303);
    expect(header(opened, "location")).toBe(`/s/${tok.plain}`);
    const cookie = header(opened, "set-cookie");
    expect(cookie).toMatch(
      new RegExp(`^${grantCookieName(tok.plain)}=[^;]+; Path=/s; Max-Age=3600; HttpOnly; SameSite=Lax`),
    );

    const page = await doctor.get(`/s/${tok.plain}`);
    expect(page.status).toBe(200);
    expectShareHeaders(page);
    const view = text(page);
    expect(view).toContain("Medical report of Asha Kumari");
    for (const part of Object.values(OPINION)) expect(view).toContain(part);
    expect(view).toContain("KMC-4242");
    expect(view).toContain(`/s/${tok.plain}/file`);
    expect(view).toContain(`/s/${tok.plain}/letter.pdf`);
    expect(view).toContain('<meta name="referrer" content="no-referrer"');
    // Nothing else of the patient: no e-mail, phone, description, other reports.
    for (const leak of [
      "patient@share.test",
      "9876543210",
      "9123456780",
      SECRET_DESCRIPTION,
      OTHER_DESCRIPTION,
      ids.pending,
      ids.patient,
      "X-Ray",
    ]) {
      expect(withoutPageStrings(view), leak).not.toContain(leak);
    }

    const file = await doctor.get(`/s/${tok.plain}/file`);
    expect(file.status).toBe(200);
    expect(header(file, "content-type")).toBe("application/pdf");
    expect(file.body.equals(samplePdf())).toBe(true);
    expectShareHeaders(file);
    const letter = await doctor.get(`/s/${tok.plain}/letter.pdf`);
    expect(letter.status).toBe(200);
    expect(header(letter, "content-type")).toBe("application/pdf");
    expect(letter.body.subarray(0, 5).toString()).toBe("%PDF-");
    expect(header(letter, "content-disposition")).toMatch(/^attachment;/);
    expectShareHeaders(letter);

    // Reloading the page and fetching again does not count another open.
    await doctor.get(`/s/${tok.plain}`);
    await doctor.get(`/s/${tok.plain}/file`);
    const row = await db.get("SELECT opens, last_opened_at FROM share_links WHERE id = ?", ids.plain);
    expect(row!.opens).toBe(1);
    expect(row!.last_opened_at).not.toBeNull();
    // A second POST from the same browser (a reload of the form's answer) is not a second open.
    expect((await doctor.open(tok.plain)).status).toBe(303);
    expect((await db.get("SELECT opens FROM share_links WHERE id = ?", ids.plain))!.opens).toBe(1);
    // A forged grant cookie opens nothing.
    const forger = new Doctor();
    forger.cookies.set(grantCookieName(tok.plain), `${Date.now() + 600_000}.${"A".repeat(43)}`);
    expect((await forger.get(`/s/${tok.plain}/file`)).status).toBe(303);
    // Another link's grant does not open this one.
    const other = new Doctor();
    other.cookies.set(grantCookieName(tok.passcodeLink), doctor.cookies.get(grantCookieName(tok.plain))!);
    expect((await other.get(`/s/${tok.passcodeLink}/file`)).status).toBe(303);
  });

  it("data requests of the page (JavaScript navigation) are not stored either; a doctor hanging up mid-file harms nothing", async () => {
    const doctor = new Doctor();
    await doctor.open(tok.plain);
    const dataReq = await doctor.get(`/s/${tok.plain}.data`);
    expect(dataReq.status).toBe(200);
    expect(header(dataReq, "cache-control")).toContain("no-store");
    expect(text(dataReq)).toContain(OPINION.review);
    expect((await new Doctor().get(`/s/${tok.plain}.data`)).body.toString()).not.toContain(OPINION.review);

    const big = Buffer.concat([samplePdf(), Buffer.alloc(3_000_000, 0x20)]);
    const bigReport = await api.call(
      "POST",
      "/report/upload-report",
      uploadForm(
        { reportType: "MRI", phoneNumber: "9123456780" },
        { name: "big.pdf", data: big, type: "application/pdf" },
      ),
      tok.patient,
    );
    const link = await createLink({
      reportId: bigReport.body.data._id,
      includeOpinion: false,
      includeLetter: false,
    });
    const token = tokenOf(link.body.data.url);
    const reader = new Doctor();
    await reader.open(token);
    const cookie = [...reader.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    for (let i = 0; i < 5; i++) {
      const status = await new Promise<number>((resolve) => {
        const u = new URL(`${server.url}/s/${token}/file`);
        const req = httpRequest(
          { host: u.hostname, port: u.port, path: u.pathname, headers: { Cookie: cookie }, agent: false },
          (res) => {
            resolve(res.statusCode ?? 0);
            res.destroy();
          },
        );
        req.on("error", () => resolve(-1));
        req.end();
      });
      expect(status).toBe(200);
    }
    await new Promise((r) => setTimeout(r, 300));
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await reader.get(`/s/${token}/file`)).body.length).toBe(big.length);
  });

  it("the doctor's first visit loads at most 150 KB of gzip JavaScript (a cheap phone on a slow link)", async () => {
    const html = text(await new Doctor().get(`/s/${tok.passcodeLink}`));
    const urls = new Set(pageModules(html));
    let total = 0;
    for (const u of urls)
      total += gzipSync(Buffer.from(await (await fetch(server.url + u)).arrayBuffer()), { level: 9 }).length;
    expect(urls.size).toBeGreaterThan(2);
    expect(total).toBeLessThanOrEqual(150 * 1024);
  });

  it("the open is in the audit trail without an actor and the patient's access trail shows it", async () => {
    const events = await db.all(
      "SELECT actor_id, action, subject_id, detail FROM audit_events WHERE action LIKE 'share.%' ORDER BY created_at",
    );
    const open = events.find((e) => e.action === "share.open")!;
    expect(open.actor_id).toBeNull();
    expect(open.subject_id).toBe(ids.reviewed);
    expect(JSON.parse(open.detail).linkId).toBe(ids.plain);
    expect(events.map((e) => e.action)).toEqual(
      expect.arrayContaining(["share.create", "share.open", "share.file_open", "share.letter_open"]),
    );
    const all = JSON.stringify(await db.all("SELECT * FROM audit_events"));
    expect(all).not.toContain(tok.plain);
    expect(all).not.toContain(tok.passcodeLink);

    const mine = await api.get(`/report/get-report-by-patientId/${ids.patient}`, tok.patient);
    const report = mine.body.data.find((r: { _id: string }) => r._id === ids.reviewed);
    // Two doctors opened it so far (the tests above); newest first.
    expect(report.linkOpens).toHaveLength(2);
    expect(report.linkOpens[0]).toMatchObject({ linkId: ids.plain, label: "" });
    expect(Date.parse(report.linkOpens[0].at)).toBeGreaterThanOrEqual(Date.parse(report.linkOpens[1].at));

    const patient = new Browserish(server.url);
    expect(
      (await patient.post("/login", { email: "patient@share.test", password: strongPassword })).status,
    ).toBe(302);
    const screen = await patient.fetch(`/dashboard/previous-report/${ids.patient}`);
    expect(await screen.text()).toContain("Opened via your link on");
  });

  it("a passcode: asked for on the page (POST), wrong ones say how many tries are left, local digits count", async () => {
    const doctor = new Doctor();
    const landing = text(await doctor.get(`/s/${tok.passcodeLink}`));
    expect(landing).toContain('name="passcode"');
    expect(landing).toContain("The patient gave you a passcode separately");
    const none = await doctor.open(tok.passcodeLink, "");
    expect(none.status).toBe(401);
    expect(text(none)).toContain("Enter the passcode the patient gave you.");
    const wrong = await doctor.open(tok.passcodeLink, "111111");
    expect(wrong.status).toBe(401);
    expectShareHeaders(wrong, "same-origin");
    expect(text(wrong)).toContain("Tries left before the link locks: 4");
    expect(header(wrong, "set-cookie")).not.toContain(grantCookieName(tok.passcodeLink));
    // The right passcode typed in Devanagari digits.
    const right = await doctor.open(tok.passcodeLink, " ४८२९१३ ");
    expect(right.status).toBe(303);
    const page = await doctor.get(`/s/${tok.passcodeLink}`);
    expect(text(page)).toContain("Medical report of Asha Kumari");
    const row = await db.get(
      "SELECT opens, passcode_failures FROM share_links WHERE id = ?",
      ids.passcodeLink,
    );
    expect(row).toMatchObject({ opens: 1, passcode_failures: 1 });
    // The passcode never appears in a URL: the form posts to the page itself.
    expect(landing).toMatch(/<form method="post"/);
  });

  it("five wrong passcodes lock the link for good, even for the right one; the patient sees it locked", async () => {
    const link = await createLink({ reportId: ids.reviewed, passcode: "246810" });
    const token = tokenOf(link.body.data.url);
    const guesser = new Doctor();
    const answers: number[] = [];
    for (let i = 0; i < 5; i++) answers.push((await guesser.open(token, `00000${i}`)).status);
    expect(answers).toEqual([401, 401, 401, 401, 410]);
    const locked = await new Doctor().open(token, "246810");
    expect(locked.status).toBe(410);
    expect(text(locked)).toContain("locked after too many wrong passcodes");
    expect((await new Doctor().get(`/s/${token}`)).status).toBe(410);
    const list = await api.get(`/report/share-links?reportId=${ids.reviewed}&pageSize=100`, tok.patient);
    expect(list.body.data.find((l: { _id: string }) => l._id === link.body.data._id).status).toBe("locked");
  });

  it("guesses sent all at once cannot pass the link's five tries", async () => {
    const link = await createLink({ reportId: ids.reviewed, passcode: "135791" });
    const token = tokenOf(link.body.data.url);
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => new Doctor().open(token, `99999${i % 10}`)),
    );
    expect(results.every((r) => r.status === 401 || r.status === 410)).toBe(true);
    const row = await db.get("SELECT passcode_failures FROM share_links WHERE id = ?", link.body.data._id);
    expect(row!.passcode_failures).toBe(5);
    const checked = await db.all(
      "SELECT id FROM audit_events WHERE action = 'share.passcode_fail' AND detail LIKE ?",
      `%${link.body.data._id}%`,
    );
    expect(checked.length).toBe(5);
  });
});

describe("links that stop working", () => {
  it("an expired link is refused (410), also in a browser that opened it before", async () => {
    const link = await createLink({ reportId: ids.reviewed, expiresInDays: 1 });
    const token = tokenOf(link.body.data.url);
    const doctor = new Doctor();
    expect((await doctor.open(token)).status).toBe(303);
    await db.run(
      "UPDATE share_links SET expires_at = ? WHERE id = ?",
      db.time(Date.now() - 1000),
      link.body.data._id,
    );
    for (const path of [`/s/${token}`, `/s/${token}/file`, `/s/${token}/letter.pdf`]) {
      const res = await doctor.get(path);
      expect(res.status, path).toBe(410);
      expectShareHeaders(res);
      expect(text(res), path).toContain("This link has expired.");
    }
    expect((await new Doctor().open(token)).status).toBe(410);
    const list = await api.get(`/report/share-links?reportId=${ids.reviewed}&pageSize=100`, tok.patient);
    expect(list.body.data.find((l: { _id: string }) => l._id === link.body.data._id).status).toBe("expired");
  });

  it("revoking stops an open page at once; revoking again answers the same and is recorded once", async () => {
    const link = await createLink({ reportId: ids.reviewed, label: "Dr. Sen" });
    const token = tokenOf(link.body.data.url);
    const doctor = new Doctor();
    expect((await doctor.open(token)).status).toBe(303);
    expect((await doctor.get(`/s/${token}`)).status).toBe(200);
    const revoke = await api.del(`/report/share-links/${link.body.data._id}`, undefined, tok.patient);
    expect(revoke.status).toBe(200);
    expect(revoke.body.data.status).toBe("revoked");
    const again = await api.del(`/report/share-links/${link.body.data._id}`, undefined, tok.patient);
    expect(again.status).toBe(200);
    expect(again.body.data.revokedAt).toBe(revoke.body.data.revokedAt);
    const events = await db.all(
      "SELECT id FROM audit_events WHERE action = 'share.revoke' AND detail LIKE ?",
      `%${link.body.data._id}%`,
    );
    expect(events).toHaveLength(1);
    for (const path of [`/s/${token}`, `/s/${token}/file`, `/s/${token}/letter.pdf`]) {
      const res = await doctor.get(path);
      expect(res.status, path).toBe(410);
      expect(text(res)).toContain("The patient has stopped sharing this report.");
    }
    expect((await doctor.open(token)).status).toBe(410);
  });

  it("a limit on opens: the third doctor is refused, the first can still reload what they opened", async () => {
    const link = await createLink({ reportId: ids.reviewed, maxOpens: 2 });
    const token = tokenOf(link.body.data.url);
    const [a, b, c] = [new Doctor(), new Doctor(), new Doctor()];
    expect((await a.open(token)).status).toBe(303);
    expect((await b.open(token)).status).toBe(303);
    const refused = await c.open(token);
    expect(refused.status).toBe(410);
    expect(text(refused)).toContain("opened as many times as the patient allowed");
    expect((await c.get(`/s/${token}`)).status).toBe(410);
    expect((await a.get(`/s/${token}`)).status).toBe(200);
    expect((await a.get(`/s/${token}/file`)).status).toBe(200);
    const list = await api.get(`/report/share-links?reportId=${ids.reviewed}&pageSize=100`, tok.patient);
    expect(list.body.data.find((l: { _id: string }) => l._id === link.body.data._id)).toMatchObject({
      status: "used_up",
      opens: 2,
      maxOpens: 2,
    });
  });

  it("simultaneous opens of a link allowing one: exactly one succeeds", async () => {
    for (let round = 0; round < 3; round++) {
      const link = await createLink({ reportId: ids.reviewed, maxOpens: 1 });
      const token = tokenOf(link.body.data.url);
      const results = await Promise.all(Array.from({ length: 4 }, () => new Doctor().open(token)));
      expect(results.map((r) => r.status).sort()).toEqual([303, 410, 410, 410]);
      const row = await db.get("SELECT opens FROM share_links WHERE id = ?", link.body.data._id);
      expect(row!.opens).toBe(1);
    }
  });

  it("deleting the report removes its links", async () => {
    const reportId = await upload(tok.patient, { reportType: "Urine Test" });
    const link = await createLink({ reportId });
    const token = tokenOf(link.body.data.url);
    expect((await api.del("/report/delete-report", { reportId }, tok.patient)).status).toBe(200);
    expect(await db.get("SELECT id FROM share_links WHERE report_id = ?", reportId)).toBeUndefined();
    expect((await new Doctor().get(`/s/${token}`)).status).toBe(404);
  });

  it("deleting the account removes its links", async () => {
    const leaver = await signupViaApi(api, smtp, codeFrom, { email: "leaver@share.test", firstName: "Lata" });
    const reportId = await upload(leaver.token, { reportType: "ECG" });
    const link = await createLink({ reportId }, leaver.token);
    expect(link.status).toBe(201);
    const token = tokenOf(link.body.data.url);
    expect(
      (await api.del("/profile/delete-profile", { password: strongPassword, immediate: true }, leaver.token))
        .status,
    ).toBe(200);
    expect(await db.get("SELECT id FROM share_links WHERE id = ?", link.body.data._id)).toBeUndefined();
    expect((await new Doctor().get(`/s/${token}`)).status).toBe(404);
  });

  it("while an admin has the owner's account suspended, the link opens nothing", async () => {
    const paused = await signupViaApi(api, smtp, codeFrom, { email: "paused@share.test", firstName: "Uma" });
    const reportId = await upload(paused.token, { reportType: "ECG" });
    const token = tokenOf((await createLink({ reportId }, paused.token)).body.data.url);
    const doctor = new Doctor();
    expect((await doctor.open(token)).status).toBe(303);
    const admin = new Browserish(server.url);
    expect((await admin.post("/login", ADMIN)).status).toBe(302);
    const suspend = (intent: string) =>
      admin.post(`/dashboard/users`, { intent, userId: paused.user._id as string });
    expect((await suspend("suspend")).status).toBe(302);
    const refused = await doctor.get(`/s/${token}`);
    expect(refused.status).toBe(410);
    expect(text(refused)).toContain("This link cannot be opened at the moment.");
    expect((await doctor.get(`/s/${token}/file`)).status).toBe(410);
    expect((await suspend("reinstate")).status).toBe(302);
    expect((await doctor.get(`/s/${token}`)).status).toBe(200);
  });

  it("a report not reviewed yet: the file now, the opinion 'not ready yet', no letter", async () => {
    const link = await createLink({ reportId: ids.pending });
    expect(link.status).toBe(201);
    const token = tokenOf(link.body.data.url);
    const doctor = new Doctor();
    await doctor.open(token);
    const page = text(await doctor.get(`/s/${token}`));
    expect(page).toContain("The expert&#x27;s opinion is not ready yet");
    expect(page).not.toContain("letter.pdf");
    expect((await doctor.get(`/s/${token}/file`)).status).toBe(200);
    expect((await doctor.get(`/s/${token}/letter.pdf`)).status).toBe(404);
    // A link with only the file shows no opinion section and no letter.
    const fileOnly = await createLink({
      reportId: ids.reviewed,
      includeOpinion: false,
      includeLetter: false,
    });
    const t2 = tokenOf(fileOnly.body.data.url);
    await doctor.open(t2);
    const view = text(await doctor.get(`/s/${t2}`));
    expect(view).not.toContain(OPINION.review);
    expect((await doctor.get(`/s/${t2}/letter.pdf`)).status).toBe(404);
  });
});

describe("strangers", () => {
  it("guessed tokens get 404 and the address is then rate-limited; a spoofed X-Forwarded-For changes nothing", async () => {
    const stranger = new Doctor("127.0.0.200");
    const shapes = ["short", "%00", "x".repeat(2000), "..%2F..%2Fetc", randomBytes(32).toString("base64url")];
    for (const s of shapes) {
      const res = await stranger.get(`/s/${s}`);
      expect(res.status, s.slice(0, 20)).toBe(404);
      expectShareHeaders(res);
      expect(text(res)).toContain("This link does not exist");
    }
    let status = 404;
    let n = shapes.length;
    for (; n < 40 && status === 404; n++) {
      status = (
        await stranger.get(`/s/${randomBytes(32).toString("base64url")}`, {
          "X-Forwarded-For": `10.0.0.${n}`,
        })
      ).status;
    }
    expect(status).toBe(429);
    expect(n).toBe(31);
    const limited = await stranger.get(`/s/${tok.plain}/file`);
    expect(limited.status).toBe(429);
    expect(Number(header(limited, "retry-after"))).toBeGreaterThan(0);
    expect((await stranger.open(tok.plain)).status).toBe(429);
    // Another address is not affected.
    expect((await new Doctor().get(`/s/${tok.plain}`)).status).toBe(200);
  });

  it("a form post from another site is refused", async () => {
    const res = await new Doctor().request(`/s/${tok.plain}`, {
      form: {},
      headers: { Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site" },
    });
    expect(res.status).toBe(403);
  });
});

describe("a family member's report (profiles, decision 0030)", () => {
  it("the manager shares his child's report; the doctor's page names the child; the child's links are his to list and revoke", async () => {
    // A child without a login whom Ravi manages; a report of hers (the family screens make these).
    const child = randomBytes(12).toString("hex");
    const now = db.time(Date.now());
    await db.run(
      "INSERT INTO patients (id, first_name, last_name, sex, birth_year, birth_year_estimated, locality, locale, phone_owner, phone_relationship, created_at, updated_at) VALUES (?, 'Anu', 'Rao', 'female', 2016, ?, 'Sinnar', 'hi', 'none', '', ?, ?)",
      child,
      db.kind === "postgres" ? false : 0,
      now,
      now,
    );
    await db.run(
      "INSERT INTO patient_managers (patient_id, manager_id, relationship, created_at) VALUES (?, ?, 'daughter', ?)",
      child,
      ids.other,
      now,
    );
    const report = await upload(tok.other, { reportType: "Blood Test" });
    await db.run("UPDATE reports SET patient_id = ? WHERE id = ?", child, report);

    const made = await createLink({ reportId: report, label: "Dr Joshi" }, tok.other);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const stored = await db.get("SELECT patient_id FROM share_links WHERE id = ?", made.body.data._id);
    expect(stored?.patient_id).toBe(child);
    // Nobody else shares or revokes it.
    expect((await createLink({ reportId: report }, tok.patient)).status).toBe(403);
    expect((await api.del(`/report/share-links/${made.body.data._id}`, undefined, tok.patient)).status).toBe(
      403,
    );

    const doctor = new Doctor();
    expect((await doctor.open(tokenOf(made.body.data.url))).status).toBe(303);
    const page = await doctor.get(`/s/${tokenOf(made.body.data.url)}`);
    expect(page.status).toBe(200);
    expect(text(page)).toContain("Anu Rao");
    expect(text(page)).not.toContain("Ravi");
    expect((await doctor.get(`/s/${tokenOf(made.body.data.url)}/file`)).status).toBe(200);

    const listed = await api.get("/report/share-links", tok.other);
    expect(listed.body.data.map((l: { _id: string }) => l._id)).toContain(made.body.data._id);
    expect((await api.del(`/report/share-links/${made.body.data._id}`, undefined, tok.other)).status).toBe(
      200,
    );
    expect((await doctor.get(`/s/${tokenOf(made.body.data.url)}`)).status).toBe(410);
  });
});

describe("the screens, without JavaScript", () => {
  let patient: Browserish;
  beforeAll(async () => {
    patient = new Browserish(server.url);
    expect(
      (await patient.post("/login", { email: "patient@share.test", password: strongPassword })).status,
    ).toBe(302);
  });

  it("the report card offers 'Share with a doctor' to its patient only", async () => {
    const mine = await (await patient.fetch(`/dashboard/previous-report/${ids.patient}`)).text();
    expect(mine).toContain(`href="/dashboard/share/${ids.reviewed}"`);
    // The access trail names the doctor the patient made the link for.
    expect(mine).toContain("Opened via your link for Dr. Rao, PHC Hosur on");
    const admin = new Browserish(server.url);
    await admin.post("/login", ADMIN);
    const theirs = await (await admin.fetch(`/dashboard/previous-report/${ids.patient}`)).text();
    expect(theirs).not.toContain("/dashboard/share/");
  });

  it("creates a link: shown once, passcode never echoed; bad input keeps the form and says why", async () => {
    const page = await patient.fetch(`/dashboard/share/${ids.reviewed}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Make a new link");
    expect(html).toContain("Your links for this report");

    const bad = await patient.post(`/dashboard/share/${ids.reviewed}`, {
      intent: "create",
      label: "Dr. Iyer",
      includeFile: "on",
      expiresInDays: "45",
      passcode: "775533",
    });
    expect(bad.status).toBe(400);
    const badHtml = await bad.text();
    expect(badHtml).toContain("Choose from 1 to 30 days");
    expect(badHtml).toContain('value="Dr. Iyer"');
    expect(badHtml).not.toContain("775533");

    const before = (await db.get("SELECT count(*) AS n FROM share_links"))!.n;
    const res = await patient.post(`/dashboard/share/${ids.reviewed}`, {
      intent: "create",
      label: "Dr. Iyer",
      includeFile: "on",
      includeOpinion: "on",
      expiresInDays: "3",
      passcode: "775533",
      maxOpens: "2",
    });
    expect(res.status).toBe(201);
    const created = await res.text();
    const url = new RegExp(`${server.url}/s/([A-Za-z0-9_-]{43})`).exec(created);
    expect(url).not.toBeNull();
    expect(created).not.toContain("775533");
    expect((await db.get("SELECT count(*) AS n FROM share_links"))!.n).toBe(before + 1);
    const row = await db.get("SELECT * FROM share_links WHERE token_hash = ?", sha256(url![1]));
    expect(row).toMatchObject({ label: "Dr. Iyer", max_opens: 2 });
    expect(Boolean(row!.include_letter)).toBe(false);
    ids.screenLink = row!.id;
    // Shown once: the page loaded again lists the link but not its address.
    const later = await (await patient.fetch(`/dashboard/share/${ids.reviewed}`)).text();
    expect(later).toContain("Dr. Iyer");
    expect(later).not.toContain(url![1]);
  });

  it("revokes with a confirm step; another patient cannot", async () => {
    const other = new Browserish(server.url);
    await other.post("/login", { email: "other@share.test", password: strongPassword });
    expect((await other.fetch(`/dashboard/share/${ids.reviewed}`)).status).toBe(404);
    const sneaky = await other.post(`/dashboard/share/${ids.othersReport}`, {
      intent: "revoke",
      linkId: ids.screenLink,
    });
    expect(sneaky.status).toBe(302);
    expect(
      (await db.get("SELECT revoked_at FROM share_links WHERE id = ?", ids.screenLink))!.revoked_at,
    ).toBeNull();

    const confirm = await (
      await patient.fetch(`/dashboard/share/${ids.reviewed}?revoke=${ids.screenLink}`)
    ).text();
    expect(confirm).toContain("Revoke this link?");
    const res = await patient.post(`/dashboard/share/${ids.reviewed}`, {
      intent: "revoke",
      linkId: ids.screenLink,
    });
    expect(res.status).toBe(302);
    const after = await patient.follow(res);
    const html = await after.text();
    expect(html).toContain("The link was revoked");
    expect(
      (await db.get("SELECT revoked_at FROM share_links WHERE id = ?", ids.screenLink))!.revoked_at,
    ).not.toBeNull();
    // A cross-site form post is refused.
    const cross = await patient.fetch(`/dashboard/share/${ids.reviewed}`, {
      method: "POST",
      body: new URLSearchParams({ intent: "revoke", linkId: ids.plain }),
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "https://evil.example" },
    });
    expect(cross.status).toBe(403);
  });

  it("experts and admins are told the screen is for patients; unknown reports are not found", async () => {
    const expert = new Browserish(server.url);
    await expert.post("/login", { email: "expert@share.test", password: strongPassword });
    const res = await expert.fetch(`/dashboard/share/${ids.reviewed}`);
    expect(res.status).toBe(403);
    expect(await res.text()).toContain("Only patients can share their reports");
    expect((await patient.fetch("/dashboard/share/nope")).status).toBe(404);
    const anon = await new Browserish(server.url).fetch(`/dashboard/share/${ids.reviewed}`);
    expect(anon.status).toBe(302);
  });
});

describe("the patient's FHIR export lists opens through sharing links", () => {
  it("an AuditEvent per file and letter opened through a link, agent named by the link's label, no actor", async () => {
    const label = "Dr. Rao, PHC Hosur";
    const made = await createLink({ reportId: ids.reviewed, label });
    expect(made.status).toBe(201);
    const token = tokenOf(made.body.data.url);
    const doctor = new Doctor();
    expect((await doctor.open(token)).status).toBe(303);
    expect((await doctor.get(`/s/${token}/file`)).status).toBe(200);
    expect((await doctor.get(`/s/${token}/letter.pdf`)).status).toBe(200);

    const res = await raw(`${server.url}/api/v1/fhir/Patient/${ids.patient}/$everything`, {
      headers: { authorization: `Bearer ${tok.patient}` },
    });
    expect(res.status).toBe(200);
    const bundle = JSON.parse(res.body.toString("utf8"));
    const check = checkBundle(bundle);
    expect(check.errors, JSON.stringify(check.errors, null, 2)).toEqual([]);
    const viaLink = bundle.entry
      .map((e: { resource: any }) => e.resource)
      .filter(
        (r: any) =>
          r.resourceType === "AuditEvent" && r.agent?.[0]?.name === `via your sharing link ${label}`,
      );
    expect(viaLink.length).toBe(2);
    const targets = viaLink.map((r: any) => r.entity[0].what.type).sort();
    expect(targets).toEqual(["DiagnosticReport", "DocumentReference"]);
    for (const r of viaLink) {
      expect(r.agent).toHaveLength(1);
      expect(r.agent[0].who).toBeUndefined();
      expect(r.agent[0].role).toBeUndefined();
      expect(r.agent[0].requestor).toBe(true);
      expect(r.entity[1].what.type).toBe("Patient");
    }
  });
});
