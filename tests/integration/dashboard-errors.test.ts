import { afterAll, beforeAll, describe, expect, it } from "vitest";
import hi from "~/i18n/locales/hi";
import { apiClient, signupViaApi, strongPassword } from "../helpers/api";
import { Browserish, pageText, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/**
 * A dashboard screen whose loader fails (here: a report or patient that is not there, 404) is
 * answered by the dashboard layout's ErrorBoundary: the error where the screen would be, with the
 * status, and the dashboard (header, sidebar) still around it. Outside the dashboard the root's
 * boundary answers with the same message as the whole page.
 */
let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let patient: Browserish;
let admin: Browserish;
let patientId = "";
const NOT_FOUND = "Error - 404 the Page you are look is not found";
const UNKNOWN_REPORT = "0123456789abcdef01234567";

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    RATE_LIMIT_DISABLED: "1",
    ADMIN_EMAIL: "admin@de.test",
    ADMIN_PASSWORD: "Admin-pass-123",
  });
  const api = apiClient(server.url);
  patientId = (await signupViaApi(api, smtp, codeFrom, { email: "patient@de.test" })).user._id;
  patient = new Browserish(server.url);
  expect((await patient.post("/login", { email: "patient@de.test", password: strongPassword })).status).toBe(
    302,
  );
  admin = new Browserish(server.url);
  expect((await admin.post("/login", { email: "admin@de.test", password: "Admin-pass-123" })).status).toBe(
    302,
  );
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

/** The error inside the dashboard: status, message, the way back, and the sidebar around it. */
function expectInsideDashboard(html: string, sidebar: string) {
  expect(html).toContain('data-testid="route-error"');
  expect(html).toContain('data-status="404"');
  expect(html).toContain(`aria-label="${sidebar}"`);
  expect(html).toContain('href="/dashboard/my-profile"');
  expect(html).toContain('href="/dashboard/settings"');
  expect(html).toContain('<a href="/dashboard/home" class="btn-primary');
  // One main landmark: the dashboard's, holding the error.
  expect(html.split("<main").length - 1).toBe(1);
  expect(html).toMatch(/<main[^>]*>[\s\S]*data-testid="route-error"[\s\S]*<\/main>/);
}

describe("a failing dashboard screen keeps the dashboard around it", () => {
  it("a patient's share screen for an unknown report: 404 inside the dashboard (English)", async () => {
    const res = await patient.fetch(`/dashboard/share/${UNKNOWN_REPORT}`);
    expect(res.status).toBe(404);
    const html = await res.text();
    expect(html).toContain('<html lang="en"');
    expectInsideDashboard(html, "Dashboard navigation");
    const body = pageText(html);
    expect(body).toContain(NOT_FOUND);
    expect(body).toContain("Go to your dashboard");
    // The patient's own links in the sidebar.
    expect(html).toContain(`href="/dashboard/previous-report/${patientId}"`);
  });

  it("the same in Hindi", async () => {
    const res = await patient.inLanguage("hi").fetch(`/dashboard/share/${UNKNOWN_REPORT}`);
    expect(res.status).toBe(404);
    const html = await res.text();
    expect(html).toContain('<html lang="hi"');
    expectInsideDashboard(html, hi.dashboard.sidebar);
    const body = pageText(html);
    expect(body).toContain(hi.errors.notFound);
    expect(body).toContain(hi.reports.goToDashboardHome);
    expect(body).toContain(hi.dashboard.myProfile);
    expect(body).not.toContain(NOT_FOUND);
  });

  it("an admin at an unknown patient's reports: 404 inside the admin's dashboard", async () => {
    const res = await admin.fetch("/dashboard/previous-report/no-such-patient");
    expect(res.status).toBe(404);
    const html = await res.text();
    expectInsideDashboard(html, "Dashboard navigation");
    expect(pageText(html)).toContain(NOT_FOUND);
    expect(html).toContain('href="/dashboard/pending-expert"');
  });

  it("outside the dashboard the root answers with the same message as the whole page", async () => {
    const res = await patient.fetch("/no/such/page");
    expect(res.status).toBe(404);
    const html = await res.text();
    expect(html).toContain('data-testid="route-error"');
    expect(pageText(html)).toContain(NOT_FOUND);
    expect(html).toContain('<a href="/" class="btn-primary');
    expect(html).not.toContain('aria-label="Dashboard navigation"');
  });
});

describe("a refused dashboard form comes back as a toast on the screen it came from", () => {
  it("approving an expert who is not there: the screen's lead-in, then the refusal", async () => {
    const res = await admin.post("/dashboard/pending-expert", { expertId: UNKNOWN_REPORT });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/dashboard/pending-expert");
    const html = await (await admin.follow(res)).text();
    expect(html).toContain("Approval failed: Expert not found");
  });

  it("reassigning follow-ups without an expert: the field's own error, not the form's", async () => {
    const res = await admin.post("/dashboard/previous-reviewed-reports?page=2", {
      reportId: UNKNOWN_REPORT,
      expertId: "",
    });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/dashboard/previous-reviewed-reports?page=2");
    const html = await (await admin.follow(res)).text();
    expect(html).toContain("Expert id is required");
    expect(html).not.toContain("Could not reassign the follow-ups");
  });
});
