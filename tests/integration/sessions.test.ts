import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi, strongPassword } from "../helpers/api";
import { openTestDb } from "../helpers/db";
import { Browserish, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let api: ReturnType<typeof apiClient>;
beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    RATE_LIMIT_DISABLED: "1",
    ADMIN_EMAIL: "admin@s.test",
    ADMIN_PASSWORD: "Admin-pass-123",
  });
  api = apiClient(server.url);
});
afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

const login = async (email: string, password: string, ua: string) => {
  const b = new Browserish(server.url);
  const res = await b.fetch("/login", {
    method: "POST",
    body: new URLSearchParams({ email, password }),
    headers: { "Content-Type": "application/x-www-form-urlencoded", "User-Agent": ua, Origin: server.url },
  });
  expect(res.status).toBe(302);
  return b;
};

describe("session management", () => {
  it("lists sessions and API tokens in Settings and revokes one or all others", async () => {
    const { token } = await signupViaApi(api, smtp, codeFrom, { email: "many@s.test" });
    const phone = await login("many@s.test", strongPassword, "Mozilla/5.0 (Linux; Android 10) PhoneBrowser");
    const laptop = await login("many@s.test", strongPassword, "Mozilla/5.0 (X11; Linux) LaptopBrowser");
    const html = await (await laptop.fetch("/dashboard/settings")).text();
    expect(html).toContain("PhoneBrowser");
    expect(html).toContain("LaptopBrowser");
    expect(html).toContain("API token");
    expect(html).toContain("This device");

    const db = await openTestDb(server.dataDir);
    const phoneSession = (await db.get<{ id: string }>(
      "select id from sessions where user_agent like '%PhoneBrowser%'",
    ))!;
    await db.close();
    const revoke = await laptop.post("/dashboard/settings", {
      intent: "revoke-session",
      sessionId: phoneSession.id,
    });
    expect(revoke.status).toBe(302);
    expect((await phone.fetch("/dashboard/home")).headers.get("Location")).toMatch(/^\/login/);
    expect((await api.get("/profile/get-user-details", token)).status).toBe(200);

    const all = await laptop.post("/dashboard/settings", { intent: "revoke-others" });
    expect(all.status).toBe(302);
    expect((await api.get("/profile/get-user-details", token)).status).toBe(401);
    expect((await laptop.fetch("/dashboard/home")).status).toBe(200);
  });

  it("another account's session id cannot be revoked", async () => {
    await signupViaApi(api, smtp, codeFrom, { email: "victim@s.test" });
    const victim = await login("victim@s.test", strongPassword, "VictimBrowser");
    await signupViaApi(api, smtp, codeFrom, { email: "attacker@s.test" });
    const attacker = await login("attacker@s.test", strongPassword, "AttackerBrowser");
    const db = await openTestDb(server.dataDir);
    const s = (await db.get<{ id: string }>("select id from sessions where user_agent = 'VictimBrowser'"))!;
    await db.close();
    await attacker.post("/dashboard/settings", { intent: "revoke-session", sessionId: s.id });
    expect((await victim.fetch("/dashboard/home")).status).toBe(200);
  });

  it("an admin suspends an account: its sessions end and login is refused until lifted", async () => {
    const { token, user } = await signupViaApi(api, smtp, codeFrom, { email: "bad@s.test" });
    const browser = await login("bad@s.test", strongPassword, "B");
    const admin = await login("admin@s.test", "Admin-pass-123", "Admin");
    expect(await (await admin.fetch("/dashboard/users")).text()).toContain("bad@s.test");
    const res = await admin.post("/dashboard/users", { intent: "suspend", userId: user._id });
    expect(res.status).toBe(302);
    expect((await api.get("/profile/get-user-details", token)).status).toBe(401);
    expect((await browser.fetch("/dashboard/home")).status).toBe(302);
    const refused = await api.post("/auth/login", { email: "bad@s.test", password: strongPassword });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe("This account is suspended. Please contact support.");
    const screen = await new Browserish(server.url).post("/login", {
      email: "bad@s.test",
      password: strongPassword,
    });
    expect(await screen.text()).toContain("This account is suspended");
    await admin.post("/dashboard/users", { intent: "reinstate", userId: user._id });
    expect((await api.post("/auth/login", { email: "bad@s.test", password: strongPassword })).status).toBe(
      200,
    );
  });
});
