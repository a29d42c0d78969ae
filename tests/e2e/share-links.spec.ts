import { expect, test, type Page } from "@playwright/test";
import { ADMIN, newUser, patientWithReport, personContext, readOtp } from "./fixtures";
import { shot } from "./helpers";

/**
 * Sharing links, once per project (desktop 1280 px, phone 360 px): a patient shares a
 * reviewed report with a doctor, with a passcode → the doctor opens it in a fresh browser without
 * an account (on the phone without JavaScript) → the patient sees the open in the report's access
 * trail and revokes the link → the doctor's reload is refused.
 */

test.describe.configure({ mode: "serial" });

/** An approved expert writes the opinion through the API (the review screens have their own spec). */
async function reviewThroughApi(page: Page, reportId: string) {
  const info = test.info();
  const expert = newUser("Expert", info, "Meera", "Iyer");
  const request = page.request;
  expect(
    (
      await request.post("/api/v1/auth/send-otp", { data: { email: expert.email, checkUserPresent: true } })
    ).status(),
  ).toBe(200);
  const otp = await readOtp(expert.email);
  const signup = await request.post("/api/v1/auth/signup", {
    data: {
      accountType: "Expert",
      firstName: expert.firstName,
      lastName: expert.lastName,
      email: expert.email,
      contactNumber: expert.phone,
      password: expert.password,
      confirmPassword: expert.password,
      otp,
      specialties: ["Pathology"],
      registrationNumber: "KMC-7788",
      registrationCouncil: "Karnataka Medical Council",
      yearsOfPractice: 11,
    },
  });
  expect(signup.status()).toBe(201);
  const expertId = (await signup.json()).data._id as string;
  const admin = (await (await request.post("/api/v1/auth/login", { data: ADMIN })).json()).token as string;
  const approved = await request.post("/api/v1/expert/approve-expert", {
    data: { expertId },
    headers: { Authorization: `Bearer ${admin}` },
  });
  expect(approved.status()).toBe(200);
  const token = (
    await (
      await request.post("/api/v1/auth/login", { data: { email: expert.email, password: expert.password } })
    ).json()
  ).token as string;
  const review = await request.post(`/api/v1/report/add-review/${reportId}`, {
    data: {
      review: "Mild anaemia; otherwise normal.",
      findings: "Haemoglobin 10.9 g/dL.",
      recommendations: "Iron-rich food; repeat in 8 weeks.",
    },
    headers: { Authorization: `Bearer ${token}` },
  });
  expect(review.status()).toBe(200);
}

// The doctor's page runs with JavaScript and without it (a cheap phone's data saver), one project.
for (const javaScript of [true, false]) {
  test(`a patient shares a reviewed report with a doctor, who opens it without an account (${javaScript ? "with" : "without"} JavaScript); revoked, it is refused`, async ({
    browser,
  }, info) => {
    test.setTimeout(120_000);
    const { page, report } = await patientWithReport(browser, info);
    await reviewThroughApi(page, report._id);

    // The patient's report card → "Share with a doctor".
    await page.goto(`/dashboard/previous-report/${report.patient._id}`);
    const card = page.locator(`#report-${report._id}`);
    await card.getByRole("link", { name: /Share with a doctor/ }).click();
    await expect(page).toHaveURL(new RegExp(`/dashboard/share/${report._id}$`));
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Share with a doctor");
    await shot(page, info, "share-screen");

    await page.getByLabel(/Who is it for\?/).fill("Dr. Rao, PHC Hosur");
    await expect(page.getByLabel("The report file")).toBeChecked();
    await expect(page.getByLabel("The expert's opinion")).toBeChecked();
    await expect(page.getByLabel(/Link works for/)).toHaveValue("7");
    await page.getByLabel(/^Passcode/).fill("482913");
    await page.getByRole("button", { name: "Create link" }).click();
    const created = page.getByTestId("new-link");
    await expect(created).toContainText("Your link is ready");
    await expect(created).toContainText("Tell the doctor the passcode separately.");
    const url = await page.getByTestId("new-link-url").inputValue();
    expect(url).toMatch(/\/s\/[A-Za-z0-9_-]{43}$/);
    await created.getByRole("button", { name: "Copy link" }).click();
    await expect(created.getByRole("status")).toHaveText(/Link copied|Could not copy/);
    await expect(page.getByTestId("share-link").first()).toContainText("Dr. Rao, PHC Hosur");
    await expect(page.getByTestId("share-link").first()).toContainText("Opens: 0");
    await shot(page, info, "share-screen-created");
    // The passcode field was cleared; nothing of it stays in the page.
    await expect(page.getByLabel(/^Passcode/)).toHaveValue("");

    // The doctor: a fresh browser, no account.
    const doctorContext = await personContext(browser, info, { javaScriptEnabled: javaScript });
    const doctor = await doctorContext.newPage();
    const landing = await doctor.goto(url);
    expect(landing!.status()).toBe(200);
    expect(landing!.headers()["x-robots-tag"]).toContain("noindex");
    // The landing page holds the Open form: referrers stay on our own origin (a form posted under
    // "no-referrer" would carry `Origin: null` and be refused as cross-site).
    expect(landing!.headers()["referrer-policy"]).toBe("same-origin");
    await expect(doctor.getByRole("heading", { level: 1 })).toHaveText(
      "A medical report was shared with you",
    );
    await expect(doctor.locator("main")).not.toContainText("Asha");
    await shot(doctor, info, "shared-landing");
    await doctor.getByLabel("Passcode").fill("000000");
    await doctor.getByRole("button", { name: "Open the report" }).click();
    await expect(doctor.getByTestId("share-open-error")).toContainText("Tries left before the link locks: 4");
    await doctor.getByLabel("Passcode").fill("482913");
    await doctor.getByRole("button", { name: "Open the report" }).click();
    await expect(doctor.getByRole("heading", { level: 1 })).toHaveText("Medical report of Asha Verma");
    await expect(doctor.getByTestId("opinion")).toContainText("Mild anaemia; otherwise normal.");
    await expect(doctor.getByTestId("signed-by")).toContainText("KMC-7788");
    await expect(doctor.locator("main")).not.toContainText("Fasting sugar");
    await shot(doctor, info, "shared-report");
    expect(await doctor.locator('meta[name="referrer"]').getAttribute("content")).toBe("no-referrer");
    const file = await doctor.request.get(`${url}/file`, { maxRedirects: 0 });
    expect(file.status()).toBe(200);
    expect(file.headers()["content-type"]).toBe("application/pdf");
    const letter = await doctor.request.get(`${url}/letter.pdf`, { maxRedirects: 0 });
    expect(letter.status()).toBe(200);
    expect((await letter.body()).subarray(0, 5).toString()).toBe("%PDF-");

    // The patient sees the open in the report's access trail, then revokes the link.
    await page.goto(`/dashboard/previous-report/${report.patient._id}`);
    await expect(card.getByTestId("file-views")).toContainText(
      "Opened via your link for Dr. Rao, PHC Hosur on",
    );
    await shot(page, info, "report-card-trail");
    await card.getByRole("link", { name: /Share with a doctor/ }).click();
    const item = page.getByTestId("share-link").first();
    await expect(item).toContainText("Opens: 1");
    await item.getByRole("link", { name: /Revoke/ }).click();
    await expect(item.getByRole("alertdialog")).toContainText("Revoke this link?");
    await shot(page, info, "share-screen-revoke");
    await item.getByRole("button", { name: "Revoke link" }).click();
    await expect(page.getByTestId("toaster")).toContainText("The link was revoked");
    await expect(page.getByTestId("share-link").first()).toHaveAttribute("data-status", "revoked");

    // The doctor's reload is refused.
    const reload = await doctor.reload();
    expect(reload!.status()).toBe(410);
    await expect(doctor.getByTestId("share-refusal")).toHaveText(
      "The patient has stopped sharing this report.",
    );
    await shot(doctor, info, "shared-revoked");
    expect((await doctor.request.get(`${url}/file`, { maxRedirects: 0 })).status()).toBe(410);
    await doctorContext.close();

    // The same screens in Tamil and Hindi (the longest strings), for a look at 360 px.
    for (const lng of ["ta", "hi"]) {
      const value = encodeURIComponent(Buffer.from(JSON.stringify(lng)).toString("base64"));
      await page.context().addCookies([{ name: "lng", value, url: info.project.use.baseURL! }]);
      await page.goto(`/dashboard/share/${report._id}`);
      await expect(page.locator("html")).toHaveAttribute("lang", lng);
      await shot(page, info, `share-screen-${lng}`);
    }
  });
}
