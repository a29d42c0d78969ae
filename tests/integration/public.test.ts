import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { onPostgres } from "../helpers/backends";
import { openTestDb } from "../helpers/db";
import { Browserish, startServer, type TestServer } from "../helpers/server";

let server: TestServer;
beforeAll(async () => {
  server = await startServer({}, { fresh: true }); // an empty folder: the app migrates it itself
});
afterAll(async () => {
  await server?.stop();
});

const count = async (table: string) => {
  const db = await openTestDb(server.dataDir);
  try {
    return (await db.get<{ n: number }>(`select count(*) as n from ${table}`))!.n;
  } finally {
    await db.close();
  }
};

describe("public site over HTTP", () => {
  it("answers /healthz once the database answers", async () => {
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok", database: "ok", storage: "ok", disk: "ok" });
  });

  it("starts with zero configuration: migrations applied, secrets generated with mode 0600", async () => {
    expect(await count("users")).toBe(0);
    expect(await count("reports")).toBe(0);
    // Zero configuration is SQLite and a local folder; with PostgreSQL or a bucket the secrets must
    // be given (every node shares them) and none are generated.
    for (const f of onPostgres ? [] : ["session-secret", "encryption-key"]) {
      const p = path.join(server.dataDir, "secrets", f);
      expect(existsSync(p)).toBe(true);
      expect(statSync(p).mode & 0o777).toBe(0o600);
    }
    const db = await openTestDb(server.dataDir);
    if (db.kind === "sqlite") expect(await db.get("PRAGMA journal_mode")).toEqual({ journal_mode: "wal" });
    await db.close();
  });

  it("serves every public page in English by default", async () => {
    for (const [p, text] of [
      ["/", "Submit Report"],
      ["/about-us", "About Us"],
      ["/contact-us", "Mon-Fri 9:00 AM-6:00 PM"],
    ] as const) {
      const res = await fetch(server.url + p);
      expect(res.status, p).toBe(200);
      const html = await res.text();
      expect(html).toContain('<html lang="en"');
      expect(html).toContain(text);
      expect(html).toContain("STAY IN TOUCH");
      expect(html).toContain("© 2025 CareBridge. All rights reserved.");
      expect(html).toMatch(/rel="noopener noreferrer"/);
    }
  });

  it("answers unknown routes with the spec's 404 page and status", async () => {
    const res = await fetch(`${server.url}/no/such/page`);
    expect(res.status).toBe(404);
    expect(await res.text()).toContain("Error - 404 the Page you are look is not found");
  });

  it("honours Accept-Language and the language cookie", async () => {
    const hi = await fetch(`${server.url}/about-us`, { headers: { "Accept-Language": "hi-IN,hi;q=0.9" } });
    const html = await hi.text();
    expect(html).toContain('<html lang="hi"');
    expect(html).toContain("हमारे बारे में");

    const b = new Browserish(server.url);
    const set = await b.post("/set-language", { lng: "hi", redirectTo: "/contact-us" });
    expect(set.status).toBe(302);
    expect(set.headers.get("Location")).toBe("/contact-us");
    const page = await (await b.fetch("/contact-us")).text();
    expect(page).toContain('<html lang="hi"');
    expect(page).toContain("संपर्क करें");
    // An open redirect is not possible through the switcher.
    const evil = await b.post("/set-language", { lng: "en", redirectTo: "//evil.example/" });
    expect(evil.headers.get("Location")).toBe("/");
  });

  it("sends signed-out visitors from Submit Report to /login with the spec's toast", async () => {
    const b = new Browserish(server.url);
    const res = await b.fetch("/dashboard/upload-report");
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toMatch(/^\/login\?redirectTo=%2Fdashboard%2Fupload-report/);
    const login = await b.follow(res);
    expect(await login.text()).toContain("Please login first to upload report");
  });

  it("stores a valid contact message and acknowledges it (no JavaScript)", async () => {
    const b = new Browserish(server.url);
    const before = await count("contact_messages");
    const res = await b.post("/contact-us", {
      name: "Asha",
      email: "Asha@Example.com",
      message: "Hello <b>there</b>",
    });
    expect(res.status).toBe(302);
    const page = await b.follow(res);
    expect(await page.text()).toContain("Thank you for reaching out!");
    expect(await count("contact_messages")).toBe(before + 1);
    const db = await openTestDb(server.dataDir);
    const row = (await db.get<{ email: string; message: string }>(
      "select * from contact_messages order by created_at desc limit 1",
    ))!;
    await db.close();
    expect(row.email).toBe("asha@example.com");
    expect(row.message).toBe("Hello <b>there</b>");
  });

  it("rejects an invalid contact message with field errors and stores nothing", async () => {
    const b = new Browserish(server.url);
    const before = await count("contact_messages");
    const empty = await b.post("/contact-us", { name: "", email: "nope", message: "" });
    expect(empty.status).toBe(400);
    const html = await empty.text();
    expect(html).toContain("Please enter your name");
    expect(html).toContain("Please enter a valid email");
    const huge = await b.post("/contact-us", { name: "A", email: "a@b.co", message: "x".repeat(6000) });
    expect(huge.status).toBe(400);
    expect(await count("contact_messages")).toBe(before);
  });

  it("refuses a form post from another origin", async () => {
    const before = await count("contact_messages");
    const res = await fetch(`${server.url}/contact-us`, {
      method: "POST",
      body: new URLSearchParams({ name: "A", email: "a@b.co", message: "hi" }),
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        Origin: "https://evil.example",
        "Sec-Fetch-Site": "cross-site",
      },
      redirect: "manual",
    });
    // Remix's own origin/host check refuses it before our guard (see docs/decisions/0003).
    expect(res.status).toBeGreaterThanOrEqual(400);
    const sameHostCrossSite = await fetch(`${server.url}/contact-us`, {
      method: "POST",
      body: new URLSearchParams({ name: "A", email: "a@b.co", message: "hi" }),
      headers: { "Content-Type": "application/x-www-form-urlencoded", "Sec-Fetch-Site": "cross-site" },
      redirect: "manual",
    });
    expect(sameHostCrossSite.status).toBe(403);
    expect(await count("contact_messages")).toBe(before);
  });

  it("stores a callback request from the home page", async () => {
    const b = new Browserish(server.url);
    const before = await count("callback_requests");
    const bad = await b.post("/?index", { name: "Ravi", countryCode: "+91", phoneNumber: "12ab" });
    expect(bad.status).toBe(400);
    const res = await b.post("/?index", {
      name: "Ravi",
      countryCode: "+91",
      phoneNumber: "9876543210",
      message: "Please call",
    });
    expect(res.status).toBe(302);
    expect(await (await b.follow(res)).text()).toContain("Thank you for reaching out!");
    expect(await count("callback_requests")).toBe(before + 1);
  });

  it("sends security headers on pages", async () => {
    const res = await fetch(server.url + "/");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(res.headers.get("content-security-policy")).not.toContain("'unsafe-inline' 'nonce");
  });
});
