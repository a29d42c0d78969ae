import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi, strongPassword } from "../helpers/api";
import { samplePdf, uploadForm } from "../helpers/files";
import { Browserish, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/**
 * Every screen is valid HTML for the W3C validator (vnu, the Nu Html Checker): as each role, in a
 * normal and a form-failure state, and the public pages in all four languages. The pages are saved
 * to a folder and vnu runs once over all of them (a JVM start costs seconds; one per page would
 * cost minutes).
 */
const VNU = String(createRequire(import.meta.url)("vnu-jar"));
const ADMIN = { email: "admin@valid-html.test", password: "Admin-pass-123" };
let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
const dir = mkdtempSync(path.join(os.tmpdir(), "carebridge-vnu-"));
const saved = new Map<string, string>();
const browsers: Record<string, Browserish> = {};
let reportId = "";

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    RATE_LIMIT_DISABLED: "1",
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
  });
  const api = apiClient(server.url);
  const admin = (await api.post("/auth/login", ADMIN)).body.token as string;
  const patient = await signupViaApi(api, smtp, codeFrom, { email: "patient@valid-html.test" });
  const expert = await signupViaApi(api, smtp, codeFrom, {
    email: "expert@valid-html.test",
    accountType: "Expert",
  });
  expect((await api.post("/expert/approve-expert", { expertId: expert.user._id }, admin)).status).toBe(200);
  const centre = await api.post(
    "/centres",
    { name: "PHC Bagalur", kind: "hwc", district: "Hosur", state: "Tamil Nadu", pinCode: "635109" },
    admin,
  );
  const worker = await signupViaApi(api, smtp, codeFrom, {
    email: "worker@valid-html.test",
    extra: {
      accountType: "HealthWorker",
      centreId: centre.body.data._id,
      workerRole: "cho",
      workerId: "CHO-1",
    } as never,
  });
  expect((await api.raw("POST", `/health-workers/${worker.user._id}/approve`, undefined, admin)).status).toBe(
    200,
  );
  const report = await api.call(
    "POST",
    "/report/upload-report",
    uploadForm(
      {
        reportType: "Blood Test",
        phoneNumber: "9876543210",
        countryCode: "+91",
        description: "Fasting sugar",
      },
      { name: "lab.pdf", data: samplePdf(), type: "application/pdf" },
    ) as never,
    patient.token,
  );
  expect(report.status).toBe(201);
  reportId = report.body.data._id;
  const logIn = async (role: string, email: string, password = strongPassword) => {
    const b = new Browserish(server.url);
    expect((await b.post("/login", { email, password })).status, `${role} logs in`).toBe(302);
    browsers[role] = b;
  };
  await logIn("patient", "patient@valid-html.test");
  await logIn("expert", "expert@valid-html.test");
  await logIn("admin", ADMIN.email, ADMIN.password);
  await logIn("worker", "worker@valid-html.test");
});
afterAll(async () => {
  await server?.stop();
  await smtp?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Saves one answer's HTML for the validator, named after who asked for what. */
async function save(name: string, res: Response, status = 200) {
  expect(res.status, name).toBe(status);
  expect(res.headers.get("Content-Type"), name).toMatch(/^text\/html/);
  const file = path.join(dir, `${name.replace(/[^A-Za-z0-9-]+/g, "_")}.html`);
  writeFileSync(file, await res.text());
  saved.set(file, name);
}

const PUBLIC = [
  "/",
  "/login",
  "/signup",
  "/about-us",
  "/contact-us",
  "/forgot-password",
  "/login-code",
  "/referral/R-2222-3333",
];
const SCREENS: Record<string, string[]> = {
  patient: [
    "/dashboard",
    "/dashboard/upload-report",
    "/dashboard/my-data",
    "/dashboard/settings",
    "/dashboard/family",
    "/dashboard/two-step",
    "/dashboard/share/:report",
  ],
  expert: [
    "/dashboard",
    "/dashboard/pending-report",
    "/dashboard/previous-reviewed-report",
    "/dashboard/follow-ups",
    "/dashboard/add-review/:report",
    "/dashboard/settings",
  ],
  admin: [
    "/dashboard",
    "/dashboard/users",
    "/dashboard/pending-expert",
    "/dashboard/approved-expert",
    "/dashboard/audit-log",
    "/dashboard/messages",
    "/dashboard/rights-requests",
    "/dashboard/take-overs",
    "/dashboard/turnaround",
    "/dashboard/centres",
    "/dashboard/two-step",
  ],
  worker: [
    "/dashboard",
    "/dashboard/centre",
    "/dashboard/centre/register",
    "/dashboard/centre/steps",
    "/dashboard/my-data",
  ],
};

describe("valid HTML (vnu)", () => {
  it("every screen, as every role and in every language, has no validator errors", async () => {
    for (const p of PUBLIC) await save(`out${p}`, await fetch(server.url + p));
    for (const lng of ["hi", "bn", "ta"])
      for (const p of ["/", "/login", "/signup", "/contact-us"])
        await save(`out-${lng}${p}`, await fetch(server.url + p, { headers: { "Accept-Language": lng } }));
    await save("out-not-found", await fetch(`${server.url}/no-such-page`), 404);
    // Form failures: the form comes back with messages on its fields and above it.
    const visitor = new Browserish(server.url);
    await save(
      "out-login-failed",
      await visitor.post("/login", { email: "x@valid-html.test", password: "wrong" }),
      401,
    );
    await save("out-signup-failed", await visitor.post("/signup", { email: "not-an-address" }), 400);
    await save("out-contact-failed", await visitor.post("/contact-us", { name: "" }), 400);

    for (const [role, screens] of Object.entries(SCREENS))
      for (const screen of screens) {
        const p = screen.replace(":report", reportId);
        await save(`${role}${screen}`, await browsers[role].follow(await browsers[role].fetch(p)));
      }
    await save(
      "patient-missing-report",
      await browsers.patient.fetch("/dashboard/share/no-such-report"),
      404,
    );
    await save(
      "patient-hi-upload",
      await browsers.patient.fetch("/dashboard/upload-report", { headers: { "Accept-Language": "hi" } }),
    );

    const files = [...saved.keys()];
    const run = promisify(execFile);
    const out = await run("java", ["-jar", VNU, "--errors-only", "--format", "json", ...files], {
      maxBuffer: 64 * 1024 * 1024,
    }).then(
      (r) => r.stderr || r.stdout,
      // vnu exits 1 when it found errors; its report is on stderr either way.
      (err: { stderr?: string; stdout?: string }) => err.stderr || err.stdout || String(err),
    );
    const messages = (
      JSON.parse(out) as { messages: { url: string; message: string; lastLine?: number; extract?: string }[] }
    ).messages;
    const errors = messages.map(
      (m) =>
        `${saved.get(decodeURIComponent(m.url.replace(/^file:/, ""))) ?? m.url}:${m.lastLine ?? "?"}: ${m.message}` +
        (m.extract ? `\n    ${m.extract.trim().slice(0, 160)}` : ""),
    );
    console.log(`vnu checked ${files.length} pages: ${errors.length} error(s)`);
    expect(errors, errors.join("\n")).toEqual([]);
  }, 300_000);
});
