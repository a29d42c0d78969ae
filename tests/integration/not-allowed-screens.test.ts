import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi, strongPassword } from "../helpers/api";
import { samplePdf, uploadForm } from "../helpers/files";
import { Browserish, pageText, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";
import { withoutPageStrings } from "../helpers/html";

/**
 * A signed-in account on a dashboard screen that is not for its type sees the dashboard with
 * the reason (status 403), never the not-found page: the spec's "Only experts can add reviews"
 * for patients and admins at Add Review; "Only patients can upload reports" for experts and
 * admins; experts (and other patients) at someone's previous reports. Admins see any patient's reports.
 */
let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
const b: Record<"patient" | "other" | "expert" | "admin", Browserish> = {} as never;
const ids: Record<string, string> = {};
const NOT_FOUND = "Error - 404 the Page you are look is not found";

const text = pageText;

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    RATE_LIMIT_DISABLED: "1",
    ADMIN_EMAIL: "admin@na.test",
    ADMIN_PASSWORD: "Admin-pass-123",
  });
  const api = apiClient(server.url);
  for (const [role, email, type] of [
    ["patient", "patient@na.test", "Patient"],
    ["other", "other@na.test", "Patient"],
    ["expert", "expert@na.test", "Expert"],
  ] as const) {
    const r = await signupViaApi(api, smtp, codeFrom, { email, accountType: type });
    ids[role] = r.user._id;
    ids[`${role}Token`] = r.token;
  }
  const admin = await api.post("/auth/login", { email: "admin@na.test", password: "Admin-pass-123" });
  await api.post("/expert/approve-expert", { expertId: ids.expert }, admin.body.token);
  const up = await api.call(
    "POST",
    "/report/upload-report",
    uploadForm({ reportType: "ECG", phoneNumber: "9876543210" }, { name: "a.pdf", data: samplePdf() }),
    ids.patientToken,
  );
  ids.report = up.body.data._id;
  for (const [role, email] of [
    ["patient", "patient@na.test"],
    ["other", "other@na.test"],
    ["expert", "expert@na.test"],
    ["admin", "admin@na.test"],
  ] as const) {
    b[role] = new Browserish(server.url);
    const res = await b[role].post("/login", {
      email,
      password: role === "admin" ? "Admin-pass-123" : strongPassword,
    });
    expect(res.status, `login ${role}`).toBe(302);
  }
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

/** The page inside the dashboard (its sidebar and the screen's heading), with the message. */
async function expectNotAllowed(
  who: keyof typeof b,
  path: string,
  heading: string,
  message: string,
  lang = "en",
) {
  const res = await b[who].fetch(path);
  expect(res.status, `${who} ${path}`).toBe(403);
  const html = await res.text();
  const body = text(html);
  expect(html).toContain(`lang="${lang}"`);
  expect(body).toContain(message);
  expect(body).not.toContain(NOT_FOUND);
  expect(html).toMatch(new RegExp(`<h1[^>]*>${heading}</h1>`));
  expect(html).toContain('data-testid="not-allowed"');
  // The dashboard shell: its navigation with the account's own links.
  expect(html).toContain('href="/dashboard/my-profile"');
  return html;
}

describe("Add Review is for experts", () => {
  it("a patient sees 'Only experts can add reviews' inside the dashboard (403)", async () => {
    const html = await expectNotAllowed(
      "patient",
      `/dashboard/add-review/${ids.report}`,
      "Add Review",
      "Only experts can add reviews",
    );
    expect(html).toContain(`href="/dashboard/previous-report/${ids.patient}"`);
    expect(html).not.toContain('name="review"');
  });

  it("an admin sees it too, and the form is not there", async () => {
    const html = await expectNotAllowed(
      "admin",
      `/dashboard/add-review/${ids.report}`,
      "Add Review",
      "Only experts can add reviews",
    );
    expect(html).toContain('href="/dashboard/pending-expert"');
    expect(html).not.toContain('name="review"');
  });

  it("an admin posting a review is refused with the same message, and nothing is saved", async () => {
    const res = await b.admin.post(`/dashboard/add-review/${ids.report}`, { review: "Looks fine." });
    expect(res.status).toBe(403);
    expect(text(await res.text())).toContain("Only experts can add reviews");
    // The expert first starts the review (a claim), then the opinion form is there.
    const page = await b.expert.fetch(`/dashboard/add-review/${ids.report}`);
    expect(page.status).toBe(200);
    const before = await page.text();
    expect(before).toContain('value="claim"');
    expect(before).not.toContain('name="review"');
    const claimed = await b.expert.post(`/dashboard/add-review/${ids.report}`, { intent: "claim" });
    expect(claimed.status).toBe(302);
    expect(await (await b.expert.follow(claimed)).text()).toContain('name="review"');
  });

  it("the message is translated (Hindi)", async () => {
    const hi = b.admin.inLanguage("hi");
    const res = await hi.fetch(`/dashboard/add-review/${ids.report}`);
    expect(res.status).toBe(403);
    const body = text(await res.text());
    expect(body).toContain("केवल विशेषज्ञ ही समीक्षा जोड़ सकते हैं");
    expect(body).not.toContain("Only experts can add reviews");
  });
});

describe("Upload Report is for patients", () => {
  it.each(["expert", "admin"] as const)("%s sees 'Only patients can upload reports' (403)", async (who) => {
    const html = await expectNotAllowed(
      who,
      "/dashboard/upload-report",
      "Upload Medical Report",
      "Only patients can upload reports",
    );
    expect(html).not.toContain('type="file"');
  });

  it("an admin posting the form is refused before the file is read (403), nothing is stored", async () => {
    const res = await b.admin.fetch("/dashboard/upload-report", {
      method: "POST",
      body: uploadForm(
        { reportType: "MRI", phoneNumber: "9876543210", countryCode: "+91", consent: "on" },
        { name: "x.pdf", data: samplePdf() },
      ),
      headers: { Origin: server.url, "Sec-Fetch-Site": "same-origin" },
    });
    expect(res.status).toBe(403);
    expect(text(await res.text())).toContain("Only patients can upload reports");
    const mine = await apiClient(server.url).get(
      `/report/get-report-by-patientId/${ids.patient}`,
      ids.patientToken,
    );
    expect(mine.body.data.every((r: { reportType: string }) => r.reportType !== "MRI")).toBe(true);
  });

  it("a patient still gets the form", async () => {
    const res = await b.patient.fetch("/dashboard/upload-report");
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('type="file"');
  });
});

describe("Previous reports: the patient and admins", () => {
  it("an expert sees why not, inside the dashboard (403)", async () => {
    await expectNotAllowed(
      "expert",
      `/dashboard/previous-report/${ids.patient}`,
      "Previous Medical Reports",
      "Only the patient and admins can see these reports",
    );
  });

  it("another patient is told they can only see their own, with a link to them", async () => {
    const html = await expectNotAllowed(
      "other",
      `/dashboard/previous-report/${ids.patient}`,
      "Previous Medical Reports",
      "You can only see your own reports",
    );
    expect(html).toContain(`href="/dashboard/previous-report/${ids.other}"`);
    expect(withoutPageStrings(html)).not.toContain("ECG");
    // The same answer for an id that does not exist: nothing is revealed.
    const unknown = await b.other.fetch("/dashboard/previous-report/no-such-patient");
    expect(unknown.status).toBe(403);
  });

  it("an admin sees the patient's reports", async () => {
    const res = await b.admin.fetch(`/dashboard/previous-report/${ids.patient}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('data-testid="report-card"');
    expect(html).not.toContain('data-testid="not-allowed"');
    // An admin at an unknown patient id gets the not-found page.
    expect((await b.admin.fetch("/dashboard/previous-report/no-such-patient")).status).toBe(404);
  });
});

describe("Pending reports render one layout for every width", () => {
  it("each row is in the page once (a table at sm+ and cards below, by CSS alone)", async () => {
    const res = await b.expert.fetch("/dashboard/pending-report");
    expect(res.status).toBe(200);
    const html = await res.text();
    const count = (s: string) => html.split(s).length - 1;
    // "Start review" (claim) before the review; "Continue review" once the expert holds it.
    expect(
      count(`name="reportId" value="${ids.report}"`) + count(`href="/dashboard/add-review/${ids.report}"`),
    ).toBe(1);
    expect(count('href="tel:')).toBe(1);
    expect(count("<table")).toBe(1);
    expect(count('data-testid="pending-reports"')).toBe(1);
    // The card look below 640 px comes from the same cells (their column names as labels).
    expect(html).toContain('data-label="Patient Name"');
  });
});

describe("The dashboard sidebar is rendered once", () => {
  it("one navigation serves the phone menu and the desktop sidebar", async () => {
    const html = await (await b.patient.fetch("/dashboard/home")).text();
    expect(html.split('aria-label="Dashboard navigation"').length - 1).toBe(1);
    const logout = html.match(/<a[^>]*href="\/logout"/g) ?? [];
    expect(logout).toHaveLength(2); // the header's account menu and the one sidebar
  });
});
