import { readdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi, strongPassword } from "../helpers/api";
import { openTestDb } from "../helpers/db";
import { samplePdf, samplePng, uploadForm } from "../helpers/files";
import { Browserish, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/**
 * What each kind of visitor may see and do beyond plain authorization: masking for experts
 * awaiting approval, colleague-only expert lists, cross-site refusals, caching and framing
 * headers on private responses, file names, and the admin's inbox of public messages.
 */

let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let api: ReturnType<typeof apiClient>;
const tok: Record<string, string> = {};
const ids: Record<string, string> = {};
const browsers: Record<string, Browserish> = {};

const DESCRIPTION = "Chest pain since May, father had angina";
const FILE_NAME = "ravi-kumar-ecg-2026.pdf";
const ODD_NAME = "lab=1;ver=2 (final).pdf";

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    RATE_LIMIT_DISABLED: "1",
    ADMIN_EMAIL: "admin@p.test",
    ADMIN_PASSWORD: "Admin-pass-123",
  });
  api = apiClient(server.url);
  for (const [k, type, first] of [
    ["patient", "Patient", "Ravi"],
    ["newbie", "Expert", "Nina"],
    ["expert", "Expert", "Esha"],
  ] as const) {
    const r = await signupViaApi(api, smtp, codeFrom, {
      email: `${k}@p.test`,
      accountType: type,
      firstName: first,
      lastName: "Kumar",
    });
    tok[k] = r.token;
    ids[k] = r.user._id;
  }
  tok.admin = (
    await api.post("/auth/login", { email: "admin@p.test", password: "Admin-pass-123" })
  ).body.token;
  expect((await api.post("/expert/approve-expert", { expertId: ids.expert }, tok.admin)).status).toBe(200);
  const profile = await api.put(
    "/profile/update-profile",
    {
      firstName: "Esha",
      lastName: "Kumar",
      dateOfBirth: "1980-04-17",
      gender: "Female",
      contactNumber: "91234567890",
      about: "Cardiologist, 15 years of ECG reading",
    },
    tok.expert,
  );
  expect(profile.status).toBe(200);
  const up = await api.call(
    "POST",
    "/report/upload-report",
    uploadForm(
      { reportType: "ECG", phoneNumber: "9876543210", description: DESCRIPTION },
      { name: FILE_NAME, data: samplePdf(), type: "application/pdf" },
    ),
    tok.patient,
  );
  expect(up.status).toBe(201);
  ids.report = up.body.data._id;
  for (const [k, password] of [
    ["patient", strongPassword],
    ["newbie", strongPassword],
    ["expert", strongPassword],
    ["admin", "Admin-pass-123"],
  ] as const) {
    const b = new Browserish(server.url);
    const res = await b.post("/login", { email: `${k}@p.test`, password });
    expect(res.status, `login ${k}`).toBe(302);
    browsers[k] = b;
  }
});
afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

const fileOpens = async (reportId: string) => {
  const db = await openTestDb(server.dataDir);
  try {
    return (await db.get<{ n: number }>(
      "SELECT count(*) AS n FROM audit_events WHERE action = 'report.file_open' AND subject_id = ?",
      reportId,
    ))!.n;
  } finally {
    await db.close();
  }
};

describe("pending reports for experts awaiting approval", () => {
  it("API: hide everything that identifies or describes the patient", async () => {
    const r = await api.get("/report/get-pending-reports", tok.newbie);
    expect(r.status).toBe(200);
    const rep = r.body.data.find((x: { _id: string }) => x._id === ids.report);
    expect(rep).toMatchObject({
      reportType: "ECG",
      status: "Pending",
      description: null,
      fileName: "******",
      phoneNumber: "**********",
      patient: { _id: "", firstName: "******", lastName: "", email: "" },
    });
    const text = JSON.stringify(r.body);
    for (const secret of [DESCRIPTION, FILE_NAME, ids.patient, "Ravi", "patient@p.test", "9876543210"]) {
      expect(text).not.toContain(secret);
    }
  });

  it("API: approved experts and admins see the report in full; patients are refused", async () => {
    for (const who of ["expert", "admin"]) {
      const r = await api.get("/report/get-pending-reports", tok[who]);
      const rep = r.body.data.find((x: { _id: string }) => x._id === ids.report);
      expect(rep, who).toMatchObject({
        description: DESCRIPTION,
        fileName: FILE_NAME,
        phoneNumber: "9876543210",
        patient: { _id: ids.patient, firstName: "Ravi", email: "patient@p.test" },
      });
    }
    expect((await api.get("/report/get-pending-reports", tok.patient)).status).toBe(403);
    const own = await api.get(`/report/get-report-by-patientId/${ids.patient}`, tok.patient);
    expect(own.body.data[0]).toMatchObject({ description: DESCRIPTION, fileName: FILE_NAME });
  });

  it("screen: the pending list shows none of it either", async () => {
    const res = await browsers.newbie.fetch("/dashboard/pending-report");
    expect(res.status).toBe(200);
    const html = await res.text();
    for (const secret of [DESCRIPTION, FILE_NAME, ids.patient, "patient@p.test", "9876543210"]) {
      expect(html).not.toContain(secret);
    }
    const full = await (await browsers.expert.fetch("/dashboard/pending-report")).text();
    expect(full).toContain("Ravi");
  });
});

describe("approved experts as colleagues see them", () => {
  const privateBits = ["expert@p.test", "1980-04-17", "Female", "91234567890"];

  it("API: experts get name, picture and about, not e-mail, phone, gender or birth date", async () => {
    for (const who of ["newbie", "expert"]) {
      const r = await api.get("/expert/get-approved-expert", tok[who]);
      expect(r.status, who).toBe(200);
      const esha = r.body.data.find((u: { _id: string }) => u._id === ids.expert);
      expect(esha, who).toMatchObject({
        firstName: "Esha",
        lastName: "Kumar",
        email: "",
        contactNumber: "",
        additionalDetails: {
          about: "Cardiologist, 15 years of ECG reading",
          gender: null,
          dateOfBirth: null,
        },
      });
      expect(esha).toHaveProperty("image");
      for (const bit of privateBits) expect(JSON.stringify(r.body), `${who} ${bit}`).not.toContain(bit);
    }
  });

  it("API: admins keep the full record; patients are refused", async () => {
    const r = await api.get("/expert/get-approved-expert", tok.admin);
    const esha = r.body.data.find((u: { _id: string }) => u._id === ids.expert);
    expect(esha).toMatchObject({
      email: "expert@p.test",
      additionalDetails: { gender: "Female", dateOfBirth: "1980-04-17", contactNumber: "91234567890" },
    });
    expect((await api.get("/expert/get-approved-expert", tok.patient)).status).toBe(403);
  });

  it("screen: experts see the colleague card without contact details; admins with them", async () => {
    const html = await (await browsers.newbie.fetch("/dashboard/approved-expert")).text();
    expect(html).toContain("Esha Kumar");
    expect(html).toContain("Cardiologist, 15 years of ECG reading");
    for (const bit of privateBits) expect(html).not.toContain(bit);
    const admin = await (await browsers.admin.fetch("/dashboard/approved-expert")).text();
    expect(admin).toContain("expert@p.test");
  });
});

describe("cross-site requests", () => {
  const localeOf = async (userId: string) => {
    const db = await openTestDb(server.dataDir);
    try {
      return (await db.get<{ locale: string }>("SELECT locale FROM users WHERE id = ?", userId))!.locale;
    } finally {
      await db.close();
    }
  };

  it("/set-language refuses a post from another site (also a sibling subdomain)", async () => {
    const b = browsers.patient;
    for (const site of ["cross-site", "same-site"]) {
      const res = await b.fetch("/set-language", {
        method: "POST",
        body: new URLSearchParams({ lng: "ta", redirectTo: "/" }),
        headers: { "Content-Type": "application/x-www-form-urlencoded", "Sec-Fetch-Site": site },
      });
      expect(res.status, site).toBe(403);
      expect(await localeOf(ids.patient), site).toBe("en");
    }
    const ok = await b.post("/set-language", { lng: "hi", redirectTo: "/" });
    expect(ok.status).toBe(302);
    expect(await localeOf(ids.patient)).toBe("hi");
    await b.post("/set-language", { lng: "en", redirectTo: "/" });
  });

  it("a report file opened by another site with the cookie is refused and not audited", async () => {
    const url = `/api/v1/report/${ids.report}/file`;
    const before = await fileOpens(ids.report);
    const cross = await browsers.patient.fetch(url, { headers: { "Sec-Fetch-Site": "cross-site" } });
    expect(cross.status).toBe(403);
    const foreignReferer = await browsers.patient.fetch(url, {
      headers: { Referer: "https://evil.example/page" },
    });
    expect(foreignReferer.status).toBe(403);
    expect((await foreignReferer.json()).success).toBe(false);
    expect(await fileOpens(ids.report)).toBe(before);

    for (const site of ["same-origin", "none"]) {
      const ok = await browsers.patient.fetch(url, { headers: { "Sec-Fetch-Site": site } });
      expect(ok.status, site).toBe(200);
      await ok.arrayBuffer();
    }
    const ownReferer = await browsers.patient.fetch(url, {
      headers: { Referer: `${server.url}/dashboard/previous-report/${ids.patient}` },
    });
    expect(ownReferer.status).toBe(200);
    await ownReferer.arrayBuffer();
    expect(await fileOpens(ids.report)).toBe(before + 3);

    // API clients with a bearer token are not browsers: unchanged.
    const bearer = await fetch(server.url + url, {
      headers: { Authorization: `Bearer ${tok.patient}`, "Sec-Fetch-Site": "cross-site" },
    });
    expect(bearer.status).toBe(200);
    await bearer.arrayBuffer();
    expect(await fileOpens(ids.report)).toBe(before + 4);
  });
});

describe("private responses", () => {
  it("every page rendered for a signed-in user is no-store; public pages for strangers are not", async () => {
    for (const p of ["/dashboard/home", "/dashboard/my-profile", "/dashboard/settings", "/", "/about-us"]) {
      const res = await browsers.patient.fetch(p);
      expect(res.status, p).toBe(200);
      expect(res.headers.get("Cache-Control"), p).toBe("no-store");
      await res.text();
    }
    const admin = await browsers.admin.fetch("/dashboard/messages");
    expect(admin.headers.get("Cache-Control")).toBe("no-store");
    const data = await browsers.patient.fetch("/dashboard/home.data");
    expect(data.headers.get("Cache-Control")).toBe("no-store");
    const anon = await fetch(`${server.url}/about-us`);
    expect(anon.headers.get("Cache-Control") ?? "").not.toContain("no-store");
  });

  it("report files and display pictures may not be framed", async () => {
    const png = await api.call(
      "POST",
      "/report/upload-report",
      uploadForm({ reportType: "X-Ray", phoneNumber: "9876543210" }, { name: "x.png", data: samplePng() }),
      tok.patient,
    );
    expect(png.status).toBe(201);
    for (const [id, sandboxed] of [
      [ids.report, false],
      [png.body.data._id, true],
    ] as const) {
      const res = await fetch(`${server.url}/api/v1/report/${id}/file`, {
        headers: { Authorization: `Bearer ${tok.patient}` },
      });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      // Our own Add Review page frames the report beside the form; no other site may.
      expect(res.headers.get("X-Frame-Options")).toBe("SAMEORIGIN");
      const csp = res.headers.get("Content-Security-Policy") ?? "";
      expect(csp).toContain("frame-ancestors 'self'");
      expect(csp.includes("sandbox")).toBe(sandboxed);
    }

    const form = new FormData();
    form.append("displayPicture", new Blob([new Uint8Array(samplePng())], { type: "image/png" }), "me.png");
    const pic = await api.call("PUT", "/profile/update-display-picture", form, tok.patient);
    expect(pic.status).toBe(200);
    const avatar = await browsers.patient.fetch(pic.body.data.image);
    expect(avatar.status).toBe(200);
    await avatar.arrayBuffer();
    expect(avatar.headers.get("X-Frame-Options")).toBe("DENY");
    expect(avatar.headers.get("Content-Security-Policy")).toContain("frame-ancestors 'none'");
    expect(avatar.headers.get("Content-Security-Policy")).toContain("sandbox");
  });
});

describe("file names with = and ;", () => {
  const expectDisposition = (header: string | null) => {
    expect(header).toContain(`filename*=UTF-8''lab%3D1%3Bver%3D2%20%28final%29.pdf`);
    expect(header).toContain(`filename="${ODD_NAME}"`);
  };

  it("API: the upload keeps the name and the download carries it, encoded", async () => {
    const r = await api.call(
      "POST",
      "/report/upload-report",
      uploadForm(
        { reportType: "ECG", phoneNumber: "9876543210" },
        { name: ODD_NAME, data: samplePdf(), type: "application/pdf" },
      ),
      tok.patient,
    );
    expect(r.status).toBe(201);
    expect(r.body.data.fileName).toBe(ODD_NAME);
    const file = await fetch(`${server.url}/api/v1/report/${r.body.data._id}/file`, {
      headers: { Authorization: `Bearer ${tok.patient}` },
    });
    expect(file.status).toBe(200);
    await file.arrayBuffer();
    expectDisposition(file.headers.get("Content-Disposition"));
  });

  it("screen: without a country code or consent the form says so on those fields and keeps no file", async () => {
    const stored = () => readdirSync(server.uploadsDir, { recursive: true }).length;
    const before = stored();
    const form = uploadForm(
      { reportType: "MRI", phoneNumber: "9876543210" },
      { name: "no-consent.pdf", data: samplePdf("no consent"), type: "application/pdf" },
    );
    const res = await browsers.patient.fetch("/dashboard/upload-report", {
      method: "POST",
      body: form,
      headers: { Origin: server.url, "Sec-Fetch-Site": "same-origin" },
    });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain("Country code is required");
    expect(html).toContain("You must agree before submitting.");
    expect(stored()).toBe(before);
  });

  it("screen: the upload form accepts it too (no JavaScript)", async () => {
    const form = uploadForm(
      { reportType: "MRI", phoneNumber: "9876543210", countryCode: "+91", consent: "on" },
      { name: ODD_NAME, data: samplePdf(), type: "application/pdf" },
    );
    const res = await browsers.patient.fetch("/dashboard/upload-report", {
      method: "POST",
      body: form,
      headers: { Origin: server.url, "Sec-Fetch-Site": "same-origin" },
    });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/report-submitted");
    const list = await api.get(`/report/get-report-by-patientId/${ids.patient}`, tok.patient);
    const mri = list.body.data.find((x: { reportType: string }) => x.reportType === "MRI");
    expect(mri.fileName).toBe(ODD_NAME);
    const file = await browsers.patient.fetch(`/api/v1/report/${mri._id}/file`, {
      headers: { "Sec-Fetch-Site": "same-origin" },
    });
    expect(file.status).toBe(200);
    await file.arrayBuffer();
    expectDisposition(file.headers.get("Content-Disposition"));
  });
});

describe("public messages for admins", () => {
  it("admins read Contact Us messages and callback requests (API, paginated)", async () => {
    const visitor = new Browserish(server.url);
    for (const n of [1, 2]) {
      const res = await visitor.post("/contact-us", {
        name: `Visitor ${n}`,
        email: `visitor${n}@example.com`,
        message: `Question number ${n}`,
      });
      expect(res.status).toBe(302);
    }
    const cb = await visitor.post("/?index", {
      name: "Caller",
      countryCode: "+91",
      phoneNumber: "9988776655",
      message: "Call after 5",
    });
    expect(cb.status).toBe(302);

    const page1 = await api.get("/admin/get-contact-messages?pageSize=1", tok.admin);
    expect(page1.status).toBe(200);
    expect(page1.body.success).toBe(true);
    expect(page1.body.pagination).toMatchObject({ page: 1, pageSize: 1, total: 2, totalPages: 2 });
    expect(page1.body.data[0]).toMatchObject({
      name: "Visitor 2",
      email: "visitor2@example.com",
      message: "Question number 2",
      userId: null,
    });
    const page2 = await api.get("/admin/get-contact-messages?pageSize=1&page=2", tok.admin);
    expect(page2.body.data[0].name).toBe("Visitor 1");
    const calls = await api.get("/admin/get-callback-requests", tok.admin);
    expect(calls.body.data[0]).toMatchObject({
      name: "Caller",
      countryCode: "+91",
      phoneNumber: "9988776655",
      message: "Call after 5",
    });
    for (const who of ["patient", "newbie", "expert"]) {
      expect((await api.get("/admin/get-contact-messages", tok[who])).status, who).toBe(403);
      expect((await api.get("/admin/get-callback-requests", tok[who])).status, who).toBe(403);
    }
    expect((await api.get("/admin/get-contact-messages")).status).toBe(401);
  });

  it("screen: /dashboard/messages lists both kinds for admins, linked from their sidebar", async () => {
    const home = await (await browsers.admin.fetch("/dashboard/home")).text();
    expect(home).toContain('href="/dashboard/messages"');
    const html = await (await browsers.admin.fetch("/dashboard/messages")).text();
    expect(html).toContain("Question number 1");
    expect(html).toContain("visitor2@example.com");
    const calls = await (await browsers.admin.fetch("/dashboard/messages?kind=callback")).text();
    expect(calls).toContain("Caller");
    expect(calls).toContain("9988776655");
    expect(calls).not.toContain("Question number 1");
    const paged = await (await browsers.admin.fetch("/dashboard/messages?pageSize=1&page=2")).text();
    expect(paged).toContain("Question number 1");
    expect(paged).not.toContain("Question number 2");
    for (const who of ["patient", "newbie", "expert"]) {
      const res = await browsers[who].fetch("/dashboard/messages");
      expect(res.status, who).toBe(404);
      expect(await res.text()).not.toContain("Question number");
    }
    const stranger = await new Browserish(server.url).fetch("/dashboard/messages");
    expect(stranger.status).toBe(302);
    expect(stranger.headers.get("Location")).toMatch(/^\/login/);
    const patientHome = await (await browsers.patient.fetch("/dashboard/home")).text();
    expect(patientHome).not.toContain('href="/dashboard/messages"');
  });
});
