import { expect, test, type APIRequestContext } from "@playwright/test";
import { readFileSync } from "node:fs";
import path from "node:path";
import { ADMIN, logIn, newUser, personContext, readOtp, signUp } from "./fixtures";
import { pastTheEdge, shot, shotTo, SHOTS_ON } from "./helpers";

/**
 * A facility step's referral (decision 0114), on a 360 px phone: an expert refers a patient of a
 * centre to the district hospital; the hospital's desk opens /referral/{code}, gives her year of
 * birth, sees the least it needs and marks her seen with a note; the centre's health worker sees
 * "seen" on her worklist of next steps.
 */
test.describe.configure({ mode: "serial" });

const w = { code: "", workerEmail: "", workerPassword: "Village-pass-2026" };

async function token(api: APIRequestContext, email: string, password: string) {
  const res = await api.post("/api/v1/auth/login", { data: { email, password } });
  expect(res.status()).toBe(200);
  return (await res.json()).token as string;
}

test("an expert's facility step reaches the hospital's desk and the centre's worklist", async ({
  browser,
}) => {
  const info = test.info();
  const ctx = await personContext(browser, info);
  const page = await ctx.newPage();
  const api = page.request;
  const auth = (t: string) => ({ Authorization: `Bearer ${t}` });
  const admin = await token(api, ADMIN.email, ADMIN.password);
  const tag = Math.random().toString(36).slice(2, 7);
  const centre = await api.post("/api/v1/centres", {
    headers: auth(admin),
    data: {
      name: `HWC Sinnar ${tag}`,
      kind: "hwc",
      district: "Nashik",
      state: "Maharashtra",
      pinCode: "422103",
    },
  });
  expect(centre.status()).toBe(201);
  const centreId = (await centre.json()).data._id;

  w.workerEmail = `worker-${tag}-${Date.now().toString(36)}@example.test`;
  expect(
    (
      await api.post("/api/v1/auth/send-otp", { data: { email: w.workerEmail, checkUserPresent: true } })
    ).status(),
  ).toBe(200);
  const signup = await api.post("/api/v1/auth/signup", {
    data: {
      accountType: "HealthWorker",
      firstName: "Sunita",
      lastName: "Jadhav",
      email: w.workerEmail,
      contactNumber: `9${String(Math.floor(Math.random() * 1e9)).padStart(9, "0")}`,
      password: w.workerPassword,
      confirmPassword: w.workerPassword,
      otp: await readOtp(w.workerEmail),
      centreId,
      workerRole: "asha",
      workerId: `ASHA-${tag}`,
    },
  });
  expect(signup.status(), await signup.text()).toBe(201);
  const workerId = (await signup.json()).data._id;
  expect(
    (await api.post(`/api/v1/health-workers/${workerId}/approve`, { headers: auth(admin) })).status(),
  ).toBe(200);
  const worker = await token(api, w.workerEmail, w.workerPassword);

  const registered = await api.post("/api/v1/centre/patients", {
    headers: auth(worker),
    multipart: {
      firstName: "Kamla",
      lastName: "Pawar",
      sex: "female",
      birthYear: "1961",
      locality: "Sinnar",
      preferredLanguage: "hi",
      phoneOwner: "none",
      consent: "granted",
      consentMethod: "verbal",
    },
  });
  expect(registered.status(), await registered.text()).toBe(201);
  const patientId = (await registered.json()).data._id;
  const up = await api.post("/api/v1/report/upload-report", {
    headers: auth(worker),
    multipart: {
      reportType: "ECG",
      phoneNumber: "9876543210",
      patientId,
      report: {
        name: "ecg.pdf",
        mimeType: "application/pdf",
        buffer: readFileSync(path.join("tests", "fixtures", "sample-report.pdf")),
      },
    },
  });
  expect(up.status(), await up.text()).toBe(201);
  const reportId = (await up.json()).data._id;

  const expertUser = newUser("Expert", info, "Meera", `Iyer ${tag}`);
  await signUp(page, expertUser);
  const expert = await token(api, expertUser.email, expertUser.password);
  const me = await api.get("/api/v1/profile/get-user-details", { headers: auth(expert) });
  const expertId = (await me.json()).data._id;
  expect(
    (await api.post("/api/v1/expert/approve-expert", { headers: auth(admin), data: { expertId } })).status(),
  ).toBe(200);
  expect((await api.post(`/api/v1/report/claim/${reportId}`, { headers: auth(expert) })).status()).toBe(200);
  const reviewed = await api.post(`/api/v1/report/add-review/${reportId}`, {
    headers: auth(expert),
    data: {
      review: "ST changes in the ECG; needs a cardiologist's examination.",
      nextSteps: [
        { kind: "facility", facility: "District Hospital Nashik", urgency: "week", reason: "Chest pain" },
      ],
    },
  });
  expect(reviewed.status(), await reviewed.text()).toBe(200);
  const list = await api.get("/api/v1/centre/steps?when=week", { headers: auth(worker) });
  const step = (await list.json()).data.find((s: { reportId: string }) => s.reportId === reportId);
  w.code = step.referral.code;

  // A desk whose phone runs no script (or taps before the page's script has run): the form is a
  // plain post, which must carry the page's origin, and the wrong year gets its answer.
  const plain = await (await personContext(browser, info, { javaScriptEnabled: false })).newPage();
  await plain.goto(`/referral/${w.code}`);
  await plain.getByLabel("Patient's year of birth").fill("1962");
  await plain.getByRole("button", { name: "Show the referral" }).click();
  await expect(plain.getByTestId("referral-error")).toContainText("No referral matches");
  await plain.context().close();

  // The hospital's desk, on a phone, with no account.
  const desk = await (await personContext(browser, info)).newPage();
  await desk.goto(`/referral/${w.code}`);
  await expect(desk.getByRole("heading", { level: 1, name: "Referral" })).toBeVisible();
  await expect(desk.getByText("Chest pain")).toHaveCount(0);
  await shot(desk, info, "referral-ask");
  await shotTo(desk, "/tmp/shots-referral/referral-ask-360-en.png");
  await desk.getByLabel("Patient's year of birth").fill("1962");
  await desk.getByRole("button", { name: "Show the referral" }).click();
  await expect(desk.getByTestId("referral-error")).toContainText("No referral matches");
  await desk.getByLabel("Patient's year of birth").fill("1961");
  await desk.getByRole("button", { name: "Show the referral" }).click();
  await expect(desk.getByTestId("referral-details")).toContainText("Chest pain");
  await expect(desk.getByTestId("referral-details")).toContainText("District Hospital Nashik");
  await expect(desk.getByText("Kamla")).toHaveCount(0);
  expect(await pastTheEdge(desk)).toBe("");
  await shotTo(desk, "/tmp/shots-referral/referral-open-360-en.png");
  await desk.getByLabel(/Note for her doctor/).fill("Admitted to ward 3");
  await desk.getByRole("button", { name: "Mark as seen" }).click();
  await expect(desk.getByTestId("referral-seen")).toContainText("Admitted to ward 3");
  await shotTo(desk, "/tmp/shots-referral/referral-seen-360-en.png");

  // The centre's worker sees it on her worklist.
  const wp = await (await personContext(browser, info)).newPage();
  await logIn(wp, w.workerEmail, w.workerPassword);
  await wp.goto("/dashboard/centre/steps");
  await expect(wp.getByRole("heading", { level: 1, name: "Next steps" })).toBeVisible();
  const row = wp.getByTestId("worklist-row").filter({ hasText: "District Hospital Nashik" });
  await expect(row.getByTestId("worklist-seen")).toContainText("Admitted to ward 3");
  expect(await pastTheEdge(wp)).toBe("");
  await shotTo(wp, "/tmp/shots-referral/worklist-360-en.png");
  // Recorded from the worklist: she went.
  await row.getByLabel("How it ended").selectOption("visited");
  await row.getByRole("button", { name: "Save" }).click();
  await expect(wp.getByTestId("worklist-empty")).toBeVisible();
  await wp.getByTestId("worklist-tab-done").click();
  await expect(wp.getByTestId("worklist-row").filter({ hasText: "District Hospital Nashik" })).toContainText(
    "Visited",
  );

  // For people to look at (SHOTS=1): both screens at 360 and 1280 px, in English and Hindi.
  if (!SHOTS_ON) return;
  test.setTimeout(240_000);
  const lng = (l: string) => encodeURIComponent(Buffer.from(JSON.stringify(l)).toString("base64"));
  const baseURL = info.project.use.baseURL!;
  for (const width of [360, 1280])
    for (const l of ["en", "hi"]) {
      const desk2 = await browser.newContext({ baseURL, viewport: { width, height: 800 } });
      await desk2.addCookies([{ name: "lng", value: lng(l), url: baseURL }]);
      const d = await desk2.newPage();
      await d.goto(`/referral/${w.code}`);
      await d.locator("#referral-year").fill("1961");
      await d.getByTestId("referral-check").locator("button").click();
      await expect(d.getByTestId("referral-details")).toBeVisible();
      await shotTo(d, `/tmp/shots-referral/referral-${width}-${l}.png`);
      const wc = await browser.newContext({ baseURL, viewport: { width, height: 800 } });
      const wpage = await wc.newPage();
      await logIn(wpage, w.workerEmail, w.workerPassword);
      await wc.addCookies([{ name: "lng", value: lng(l), url: baseURL }]);
      await wpage.goto("/dashboard/centre/steps?when=done");
      await shotTo(wpage, `/tmp/shots-referral/worklist-${width}-${l}.png`);
    }
});
