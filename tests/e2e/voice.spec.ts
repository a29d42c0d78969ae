import { expect, test, type Page } from "@playwright/test";
import { CHROMIUM_PATH } from "../helpers/chromium";
import { axeAtBothWidths } from "./axe";
import { ADMIN, hydrated, logIn, newUser, patientWithReport, personContext, signUp } from "./fixtures";
import { shot } from "./helpers";

/**
 * Voice notes both ways (decision 0037), recorded in the page by Chromium's fake microphone:
 * the patient records a spoken description (timer, pause, resume, listen, send), the expert
 * plays it, writes what they heard, records a spoken explanation and writes the required
 * opinion, the patient plays the explanation and asks a question by voice. axe on each screen;
 * the patient's list at 360 px in all four languages.
 */
test.use({
  launchOptions: {
    executablePath: CHROMIUM_PATH,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--use-fake-device-for-media-stream",
      "--use-fake-ui-for-media-stream",
    ],
  },
});
test.describe.configure({ mode: "serial" });

async function micContext(...args: Parameters<typeof personContext>) {
  const ctx = await personContext(...args);
  await ctx.grantPermissions(["microphone"]);
  return ctx;
}

/** Records about `seconds` in the form at `form`, pausing once, and checks the timer and the preview. */
async function record(page: Page, form: ReturnType<Page["locator"]>, seconds: number) {
  await form.getByTestId("voice-record").click();
  const timer = form.getByTestId("voice-timer");
  await expect(timer).toBeVisible();
  await expect(timer).toContainText(/0:01 of 2:00/);
  await form.getByTestId("voice-pause").click();
  await expect(form).toContainText("Paused");
  await form.getByTestId("voice-resume").click();
  await expect(timer).toContainText(new RegExp(`0:0${seconds} of 2:00`));
  await form.getByTestId("voice-stop").click();
  const preview = form.getByTestId("voice-preview");
  await expect(preview).toBeVisible();
  // Listen before sending: the recording plays in the page.
  const length = await preview.evaluate(
    (a: HTMLAudioElement) =>
      new Promise<number>((resolve) => {
        if (a.readyState >= 1) resolve(a.duration);
        else a.addEventListener("loadedmetadata", () => resolve(a.duration), { once: true });
      }),
  );
  expect(length).toBeGreaterThan(0);
  // The recording went into the form's file input, which sends it like a chosen file.
  expect(await form.getByTestId("voice-file").evaluate((i: HTMLInputElement) => i.files?.length)).toBe(1);
}

/** Loads a player's audio (it loads nothing by itself: preload="none") and answers its duration. */
function loadedDuration(page: Page, testId = "voice-player", index = 0) {
  return page
    .getByTestId(testId)
    .nth(index)
    .locator("audio")
    .evaluate(
      (a: HTMLAudioElement) =>
        new Promise<number>((resolve, reject) => {
          a.addEventListener("loadedmetadata", () => resolve(a.duration), { once: true });
          a.addEventListener("error", () => reject(new Error(`audio error ${a.error?.code}`)), {
            once: true,
          });
          a.preload = "auto";
          a.load();
        }),
    );
}

async function axeClean(page: Page) {
  const result = await axeAtBothWidths(page);
  expect(result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(" ")}`)).toEqual([]);
}

test("a spoken description, a spoken explanation beside the written opinion, a spoken question", async ({
  browser,
}, info) => {
  test.setTimeout(180_000);
  const { page: patient, report, user } = await patientWithReport(browser, info, "Blood Test");
  await patient.context().grantPermissions(["microphone"]);
  const list = `/dashboard/previous-report/${report.patient._id}`;

  // The patient records a description in the page.
  await patient.goto(list);
  await hydrated(patient);
  await patient.getByTestId("voice-add-description").locator("summary").click();
  const describe = patient.getByTestId("voice-form-description");
  await expect(describe.getByTestId("voice-recorder")).toBeVisible();
  await record(patient, describe, 3);
  await shot(patient, info, "voice-recorded");
  await describe.getByTestId("voice-send").click();
  await expect(patient.getByTestId("toaster")).toContainText("Your voice note was added.");
  await expect(patient.getByTestId("voice-note")).toHaveCount(1);
  await expect(patient.getByTestId("voice-note").first()).toContainText(/Length: 0:0[3-4]/);
  await axeClean(patient);

  // An approved expert claims it, plays the note, writes what they heard and records an explanation.
  const expert = {
    ...newUser("Expert", info, "Kavya", "Rao"),
    specialties: ["Pathology"],
    registrationNumber: "KMC-40123",
  };
  const epage = await (await micContext(browser, info)).newPage();
  await signUp(epage, expert);
  const admin = await patient.request.post("/api/v1/auth/login", {
    data: { email: ADMIN.email, password: ADMIN.password },
  });
  const adminToken = (await admin.json()).token;
  const users = await patient.request.get("/api/v1/expert/get-pending-expert", {
    headers: { Authorization: `Bearer ${adminToken}` },
  });
  const pending = ((await users.json()).data as { _id: string; email: string }[]).find(
    (u) => u.email === expert.email,
  );
  expect(pending).toBeTruthy();
  const approved = await patient.request.post("/api/v1/expert/approve-expert", {
    headers: { Authorization: `Bearer ${adminToken}` },
    data: { expertId: pending!._id },
  });
  expect(approved.status()).toBe(200);
  await logIn(epage, expert.email, expert.password);
  await epage.goto(`/dashboard/add-review/${report._id}`);
  await hydrated(epage);
  await epage.getByTestId("claim-panel").getByRole("button").first().click();
  await expect(epage.getByLabel(/^Summary/)).toBeVisible();
  await expect(epage.getByTestId("voice-note")).toHaveCount(1);
  expect(await loadedDuration(epage)).toBeGreaterThan(2);
  await epage.getByLabel("What I heard").fill("Tired for two weeks, worse after meals.");
  await epage.getByRole("button", { name: "Save note" }).click();
  await expect(epage.getByTestId("toaster")).toContainText("Your note was saved.");
  const explain = epage.getByTestId("voice-form-explanation");
  await expect(explain).toContainText("Your written opinion is still required");
  await record(epage, explain, 2);
  await explain.getByTestId("voice-send").click();
  await expect(epage.getByTestId("toaster")).toContainText("Your voice note was added.");
  await expect(epage.getByTestId("voice-note")).toHaveCount(2);
  await axeClean(epage);
  await shot(epage, info, "voice-add-review");
  // The written opinion stays required: the spoken one only goes beside it.
  await epage.getByLabel(/^Summary/).fill("Your sugar is slightly high; nothing urgent.");
  await epage.getByRole("button", { name: "Submit Review" }).click();
  await expect(epage.getByText(/Review (added|submitted)/i).first()).toBeVisible();

  // The patient hears the explanation beside the written opinion and asks a question by voice.
  await patient.goto(list);
  await hydrated(patient);
  const explanation = patient.locator('[data-testid="voice-player"][data-kind="explanation"]');
  await expect(explanation).toHaveCount(1);
  const d = await explanation.locator("audio").evaluate(
    (a: HTMLAudioElement) =>
      new Promise<number>((resolve) => {
        a.addEventListener("loadedmetadata", () => resolve(a.duration), { once: true });
        a.preload = "auto";
        a.load();
      }),
  );
  expect(d).toBeGreaterThan(0);
  await expect(patient.getByText("Tired for two weeks, worse after meals.")).toBeVisible();
  await patient.getByTestId("voice-ask").locator("summary").click();
  const ask = patient.getByTestId("voice-form-question");
  await record(patient, ask, 2);
  await ask.getByTestId("voice-send").click();
  await expect(patient.getByTestId("toaster")).toContainText("Your voice note was added.");
  await expect(patient.locator('[data-testid="voice-player"][data-kind="question"]')).toHaveCount(1);
  await axeClean(patient);

  // The expert sees the spoken question on the report.
  await epage.goto(`/dashboard/add-review/${report._id}`);
  await expect(epage.locator('[data-testid="voice-player"][data-kind="question"]')).toHaveCount(1);

  // The patient's list in every language, at the project's width.
  for (const lng of ["en", "hi", "bn", "ta"]) {
    const value = encodeURIComponent(Buffer.from(JSON.stringify(lng)).toString("base64"));
    await patient.context().addCookies([{ name: "lng", value, url: info.project.use.baseURL! }]);
    await patient.goto(list);
    await patient.getByTestId("voice-add-description").locator("summary").click();
    await axeClean(patient);
    // Nothing of the voice notes wider than the screen (named, when something is).
    const wide = await patient.evaluate(() =>
      [...document.querySelectorAll('main [id^="voice-"] *')]
        .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
        .map((e) => `${e.tagName}.${e.className}`.slice(0, 80)),
    );
    expect(wide).toEqual([]);
    await shot(patient, info, `voice-list-${lng}`);
  }
  void user;
});
