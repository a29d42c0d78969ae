import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi } from "../helpers/api";
import { openTestDb } from "../helpers/db";
import { samplePdf, uploadForm } from "../helpers/files";
import { Browserish, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/*
 * The clinic's clock on a server left at UTC (decision 0092): the built app runs with TZ=UTC and
 * CLINIC_TIME_ZONE unset (India). A patient who asked for "a call, in the evening" gets her opinion
 * call at India's evening (17:00 IST, 11:30 UTC), not at 17:00 UTC (22:30 in India). The Service
 * screen says whose time it shows, and its turnaround chart has an axis of real figures (an opinion
 * given in seconds: seconds, not 0.0 / 0.0 / 0 hours). BACKUP_AT at India's hour on the same kind
 * of server: tests/integration/backup-screens.test.ts.
 */

const ADMIN = { email: "admin@clinic-time.test", password: "Admin-pass-123" };
const IST = 330 * 60_000;
let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    TZ: "UTC",
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    SMTP_URL: smtp.url,
    RATE_LIMIT_DISABLED: "1",
  });
}, 90_000);
afterAll(async () => {
  await server?.stop();
  await smtp?.stop();
});

/** The first 17:00 in India at or after `at`, or `at` itself when India's clock is between 17:00 and 20:00. */
function indiaEvening(at: number): number {
  const india = at + IST;
  const day = Math.floor(india / 86_400_000) * 86_400_000;
  const hour = (india - day) / 3_600_000;
  if (hour >= 17 && hour < 20) return at;
  return day + (hour >= 20 ? 86_400_000 : 0) + 17 * 3_600_000 - IST;
}

describe("a server at UTC keeps the clinic's hours", () => {
  it("an evening call comes in India's evening; the Service screen's times and axis say what they are", async () => {
    const api = apiClient(server.url);
    const adminToken = (await api.post("/auth/login", ADMIN)).body.token as string;
    const expert = await signupViaApi(api, smtp, codeFrom, {
      email: "dr@clinic-time.test",
      accountType: "Expert",
    });
    expect((await api.post("/expert/approve-expert", { expertId: expert.user._id }, adminToken)).status).toBe(
      200,
    );
    const patient = await signupViaApi(api, smtp, codeFrom, { email: "kamla@clinic-time.test" });
    // Her mobile number (as a sign-up by phone gives it), then "a call, in the evening".
    const db = await openTestDb(server.dataDir, { write: true });
    try {
      await db.run("update users set phone = ? where id = ?", "+919812345678", patient.user._id);
    } finally {
      await db.close();
    }
    const chosen = await api.raw(
      "PUT",
      `/patients/${patient.user._id}/notice`,
      { noticeBy: "call", callWindow: "evening" } as never,
      patient.token,
    );
    expect(chosen.status, JSON.stringify(chosen.body)).toBe(200);

    const report = await api.call(
      "POST",
      "/report/upload-report",
      uploadForm(
        { reportType: "Blood Test", phoneNumber: "9812345678" },
        { name: "cbc.pdf", data: samplePdf("cbc") },
      ),
      patient.token,
    );
    expect(report.status).toBe(201);
    const reportId = report.body.data._id as string;
    expect((await api.post(`/report/claim/${reportId}`, {}, expert.token)).status).toBe(200);
    const reviewed = Date.now();
    expect(
      (await api.post(`/report/add-review/${reportId}`, { review: "Normal counts" }, expert.token)).status,
    ).toBe(200);

    const read = await openTestDb(server.dataDir);
    try {
      const call = await read.get<{ next_attempt_at: number | Date; created_at: number | Date }>(
        "select next_attempt_at, created_at from phone_calls where purpose = 'opinion-ready'",
      );
      expect(call, "an opinion call is queued").toBeTruthy();
      const queuedAt = new Date(call!.created_at).getTime();
      expect(queuedAt).toBeGreaterThanOrEqual(reviewed - 1000);
      const due = new Date(call!.next_attempt_at).getTime();
      const evening = indiaEvening(queuedAt);
      // Inside India's evening it is due at once (the queue's clock read a moment apart); else at 17:00 IST.
      if (evening === queuedAt) expect(Math.abs(due - queuedAt)).toBeLessThan(5_000);
      else expect(new Date(due).toISOString()).toBe(new Date(evening).toISOString());
    } finally {
      await read.close();
    }

    const admin = new Browserish(server.url);
    expect((await admin.post("/login", ADMIN)).status).toBe(302);
    const html = await (await admin.fetch("/dashboard/service")).text();
    expect(html).toContain("Times are the clinic&#x27;s: India Standard Time");
    // The turnaround chart's axis: the opinion took seconds, and the axis says so in figures.
    const chart = /data-testid="chart-turnaround"[\s\S]*?<\/svg>/.exec(html)![0];
    const labels = [...chart.matchAll(/<text[^>]*text-anchor="end"[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
    expect(labels).toHaveLength(3);
    expect(labels[0]).toBe("0");
    expect(new Set(labels).size, labels.join(" / ")).toBe(3);
    expect(labels.every((l) => l === "0" || Number(l) > 0)).toBe(true);
    expect(chart).toContain("seconds");
  }, 120_000);
});
