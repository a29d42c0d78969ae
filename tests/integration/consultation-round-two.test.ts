import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi, strongPassword } from "../helpers/api";
import { openTestDb } from "../helpers/db";
import { samplePdf, uploadForm } from "../helpers/files";
import { raw } from "../helpers/raw";
import { Browserish, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";
import { withoutPageStrings } from "../helpers/html";

/*
 * The consultation as an attacker tried it, over HTTP against
 * the built app and a real database: claim hoarding, rewriting the registration on letters
 * already signed, opening other experts' files, the rejected expert's own profile, and the
 * letter's verification code in the API.
 */

const ADMIN = { email: "admin@round2.test", password: "Admin-pass-2026" };
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let server: TestServer;
let api: ReturnType<typeof apiClient>;
const tok: Record<string, string> = {};
const ids: Record<string, string> = {};

const details = (reg: string) => ({
  specialties: ["Radiology"],
  registrationNumber: reg,
  registrationCouncil: "National Medical Commission",
  yearsOfPractice: 10,
});

async function signup(
  a: ReturnType<typeof apiClient>,
  key: string,
  accountType: "Patient" | "Expert",
  extra?: Record<string, unknown>,
  domain = "round2.test",
) {
  const r = await signupViaApi(a, smtp, codeFrom, {
    email: `${key}@${domain}`,
    accountType,
    firstName: key[0].toUpperCase() + key.slice(1),
    lastName: "Test",
    extra,
  });
  tok[key] = r.token;
  ids[key] = r.user._id;
}

async function upload(a: ReturnType<typeof apiClient>, token: string, reportType = "X-Ray") {
  const r = await a.call(
    "POST",
    "/report/upload-report",
    uploadForm(
      { reportType, phoneNumber: "9876543210", countryCode: "+91" },
      { name: "r.pdf", data: samplePdf(), type: "application/pdf" },
    ),
    token,
  );
  expect(r.status).toBe(201);
  return r.body.data._id as string;
}

function pdfText(pdf: Buffer): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "cb-round2-"));
  try {
    writeFileSync(path.join(dir, "l.pdf"), pdf);
    return execFileSync("pdftotext", [path.join(dir, "l.pdf"), "-"], { encoding: "utf8" });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const letterPdf = async (reportId: string, token: string) =>
  raw(`${server.url}/api/v1/report/${reportId}/opinion.pdf`, {
    headers: { authorization: `Bearer ${token}` },
  });

const fileOf = (reportId: string, token: string) =>
  raw(`${server.url}/api/v1/report/${reportId}/file`, { headers: { authorization: `Bearer ${token}` } });

async function login(email: string, password = strongPassword) {
  const b = new Browserish(server.url);
  expect((await b.post("/login", { email, password })).status).toBe(302);
  return b;
}

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    RATE_LIMIT_DISABLED: "1",
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
  });
  api = apiClient(server.url);
  tok.admin = (await api.post("/auth/login", ADMIN)).body.token;
  await signup(api, "patient", "Patient");
  await signup(api, "other", "Patient");
  await signup(api, "ravi", "Expert", details("KMC-1001"));
  await signup(api, "mira", "Expert", details("WBMC-2002"));
  await signup(api, "noreg", "Expert", { specialties: ["Radiology"] });
  await signup(api, "kiran", "Expert", details("KMC-3003"));
  await signup(api, "lata", "Expert", details("TNMC-4004"));
  await signup(api, "gone", "Expert", details("MMC-5005"));
  await signup(api, "legacy", "Expert", { specialties: ["Radiology"] });
  for (const k of ["ravi", "mira", "kiran", "lata", "gone"]) {
    expect((await api.post("/expert/approve-expert", { expertId: ids[k] }, tok.admin)).status).toBe(200);
  }
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

describe("claims are capped per expert and renewals are limited", () => {
  it("10 claims at once by one expert on 10 pending reports: CLAIM_MAX (3) win, the rest are told why; the queue keeps moving", async () => {
    const reports: string[] = [];
    for (let i = 0; i < 10; i++) reports.push(await upload(api, tok.patient));
    const results = await Promise.all(reports.map((id) => api.post(`/report/claim/${id}`, {}, tok.ravi)));
    const won = reports.filter((_, i) => results[i].status === 200);
    expect(won).toHaveLength(3);
    for (const r of results.filter((x) => x.status !== 200)) {
      expect(r.status).toBe(409);
      expect(r.body.message).toBe(
        "You are already reviewing 3 reports. Submit or release one of them before you start another.",
      );
    }
    // Another expert takes one of the rest; the hoarder gets a fourth only after giving one back.
    const rest = reports.filter((id) => !won.includes(id));
    expect((await api.post(`/report/claim/${rest[0]}`, {}, tok.mira)).status).toBe(200);
    expect((await api.post(`/report/claim/${rest[1]}`, {}, tok.ravi)).status).toBe(409);
    expect((await api.post(`/report/release/${won[0]}`, {}, tok.ravi)).status).toBe(200);
    expect((await api.post(`/report/claim/${rest[1]}`, {}, tok.ravi)).status).toBe(200);
    ids.raviClaims = JSON.stringify([...won.slice(1), rest[1]]);
    ids.miraClaim = rest[0];
    ids.spare = JSON.stringify(rest.slice(2));
  });

  it("an expert renews their own claim at most CLAIM_RENEW_MAX (2) times; holding 3, a renewal is still allowed", async () => {
    const [id] = JSON.parse(ids.raviClaims) as string[];
    expect((await api.post(`/report/claim/${id}`, {}, tok.ravi)).status).toBe(200);
    expect((await api.post(`/report/claim/${id}`, {}, tok.ravi)).status).toBe(200);
    const third = await api.post(`/report/claim/${id}`, {}, tok.ravi);
    expect(third.status).toBe(409);
    expect(third.body.message).toMatch(/renewed this claim as often as allowed \(2 times\)/);
    // The claim itself still stands until it lapses.
    const pending = await api.get("/report/get-pending-reports?pageSize=100", tok.admin);
    expect(pending.body.data.find((r: { _id: string }) => r._id === id).claimedBy._id).toBe(ids.ravi);
  });
});

describe("a claim never becomes unclaimable, and release does not reset the renewals", () => {
  const claim = (id: string, who: string, headers?: Record<string, string>) =>
    api.post(`/report/claim/${id}`, {}, tok[who], headers);
  const release = (id: string, who: string) => api.post(`/report/release/${id}`, {}, tok[who]);
  const renewals = async (id: string) => {
    const db = await openTestDb(server.dataDir);
    try {
      return Number((await db.get("SELECT claim_renewals AS n FROM reports WHERE id = ?", id))!.n);
    } finally {
      await db.close();
    }
  };

  it("renewed to the cap and released: another expert claims it at once, with the renewals counted afresh", async () => {
    const id = await upload(api, tok.patient);
    expect((await claim(id, "kiran")).status).toBe(200);
    expect((await claim(id, "kiran")).status).toBe(200);
    expect((await claim(id, "kiran")).status).toBe(200);
    expect((await claim(id, "kiran")).status).toBe(409); // CLAIM_RENEW_MAX (2) reached
    expect((await release(id, "kiran")).status).toBe(200);
    expect(await renewals(id)).toBe(0);
    const taken = await claim(id, "lata");
    expect(taken.status).toBe(200);
    expect(taken.body.data.claimedBy._id).toBe(ids.lata);
    // Lata's own renewals start at 0: two are allowed.
    expect((await claim(id, "lata")).status).toBe(200);
    expect((await claim(id, "lata")).status).toBe(200);
    expect((await claim(id, "lata")).status).toBe(409);
    expect((await release(id, "lata")).status).toBe(200);
  });

  it("the holder of a renewed claim erases their account: the report is free for everyone else", async () => {
    const id = await upload(api, tok.patient);
    expect((await claim(id, "gone")).status).toBe(200);
    expect((await claim(id, "gone")).status).toBe(200);
    expect((await claim(id, "gone")).status).toBe(200);
    const erased = await api.del(
      "/profile/delete-profile",
      { password: strongPassword, immediate: true },
      tok.gone,
    );
    expect(erased.status).toBe(200);
    // The claim's holder is gone (claimed_by set null), its renewal count and end time remain.
    const taken = await claim(id, "kiran");
    expect(taken.status).toBe(200);
    expect(taken.body.data.claimedBy._id).toBe(ids.kiran);
    expect((await release(id, "kiran")).status).toBe(200);
  });

  it("renew to the cap, release, claim again at once: refused with a translated reason; another expert may claim, then the first again", async () => {
    const id = await upload(api, tok.patient);
    expect((await claim(id, "lata")).status).toBe(200); // Lata released the first test's report: no cool-down here
    expect((await release(id, "lata")).status).toBe(200);
    expect((await claim(id, "kiran")).status).toBe(200);
    expect((await claim(id, "kiran")).status).toBe(200);
    expect((await claim(id, "kiran")).status).toBe(200);
    expect((await release(id, "kiran")).status).toBe(200);
    const again = await claim(id, "kiran");
    expect(again.status).toBe(409);
    expect(again.body.message).toBe(
      "Your last claim on this report ended only recently. So that other experts get their chance at it, you can start it again in 120 minutes.",
    );
    const hindi = await claim(id, "kiran", { "Accept-Language": "hi" });
    expect(hindi.status).toBe(409);
    expect(hindi.body.message).toContain("120 मिनट बाद फिर शुरू कर सकते हैं");
    // The Start review button on the queue screen says the same.
    const b = await login("kiran@round2.test");
    const screen = await b.follow(
      await b.post("/dashboard/pending-report", { intent: "claim", reportId: id }),
    );
    expect(await screen.text()).toContain("you can start it again in 120 minutes");
    // Lata released it a moment ago too, but her claim was not the last one: she may take it.
    expect((await claim(id, "lata")).status).toBe(200);
    expect((await release(id, "lata")).status).toBe(200);
    // Someone else had their chance: Kiran may claim it again, renewals counted from 0.
    expect((await claim(id, "kiran")).status).toBe(200);
    expect(await renewals(id)).toBe(0);
    expect((await release(id, "kiran")).status).toBe(200);
  });

  it("a claim that lapsed: its holder waits one claim period (CLAIM_TTL_MINUTES) after it ended", async () => {
    const id = await upload(api, tok.patient);
    expect((await claim(id, "kiran")).status).toBe(200);
    expect((await claim(id, "kiran")).status).toBe(200);
    const db = await openTestDb(server.dataDir, { write: true });
    try {
      // The claim ran out a minute ago (nobody released it).
      await db.run("UPDATE reports SET claim_expires_at = ? WHERE id = ?", db.time(Date.now() - 60_000), id);
      const again = await claim(id, "kiran");
      expect(again.status).toBe(409);
      expect(again.body.message).toMatch(/you can start it again in 119 minutes/);
      // Ended more than a claim period ago: the same expert may take it, the renewals from 0.
      await db.run(
        "UPDATE reports SET claim_expires_at = ? WHERE id = ?",
        db.time(Date.now() - 121 * 60_000),
        id,
      );
      expect((await claim(id, "kiran")).status).toBe(200);
      expect(Number((await db.get("SELECT claim_renewals AS n FROM reports WHERE id = ?", id))!.n)).toBe(0);
      expect((await release(id, "kiran")).status).toBe(200);
    } finally {
      await db.close();
    }
  });
});

describe("an expert approved before the registration rule cannot sign without one", () => {
  it("claim and review (API and screen) are refused with what to do; adding the number in Settings sends them to review, then they sign", async () => {
    // Approved before approval required a registration number (as the old code let an admin do).
    const db = await openTestDb(server.dataDir, { write: true });
    try {
      await db.run(
        "UPDATE users SET approved = ? WHERE id = ?",
        db.kind === "postgres" ? true : 1,
        ids.legacy,
      );
      await db.run(
        "UPDATE expert_profiles SET approved_at = ? WHERE user_id = ?",
        db.time(Date.now()),
        ids.legacy,
      );
    } finally {
      await db.close();
    }
    const id = await upload(api, tok.patient);
    const advice =
      "Add your medical registration number in Settings before you start or submit a review: every opinion letter prints it. An admin will then check your account again.";
    const claimed = await api.post(`/report/claim/${id}`, {}, tok.legacy);
    expect(claimed.status).toBe(403);
    expect(claimed.body.message).toBe(advice);
    const signed = await api.post(`/report/add-review/${id}`, { review: "Looks normal." }, tok.legacy);
    expect(signed.status).toBe(403);
    expect(signed.body.message).toBe(advice);
    const b = await login("legacy@round2.test");
    const screen = await b.post(`/dashboard/add-review/${id}`, { review: "Looks normal." });
    expect(screen.status).toBe(403);
    expect(await screen.text()).toContain(advice);
    const still = await api.get("/report/get-pending-reports?pageSize=100", tok.admin);
    expect(still.body.data.find((r: { _id: string }) => r._id === id).status).toBe("Pending");

    // Adding the number sends them back to an admin; once approved, the letter prints it.
    const added = await api.put(
      "/profile/update-expert-details",
      { registrationNumber: "KMC-6006", registrationCouncil: "Karnataka Medical Council" },
      tok.legacy,
    );
    expect(added.body.data.approved).toBe(false);
    expect((await api.post("/expert/approve-expert", { expertId: ids.legacy }, tok.admin)).status).toBe(200);
    const ok = await api.post(`/report/add-review/${id}`, { review: "Looks normal." }, tok.legacy);
    expect(ok.status).toBe(200);
    expect(ok.body.data.expert.registrationNumber).toBe("KMC-6006");
  });
});

describe("who may open a report's file", () => {
  it("pending: any approved expert; reviewed: its reviewer, the patient and admins; other experts 403 and audited", async () => {
    const pendingId = (JSON.parse(ids.spare) as string[])[0];
    const reviewed = ids.miraClaim;
    expect(
      (await api.post(`/report/add-review/${reviewed}`, { review: "Normal chest X-ray." }, tok.mira)).status,
    ).toBe(200);
    ids.miraReviewed = reviewed;
    // Pending (claimed by nobody, or by someone else): approved experts may look before claiming.
    expect((await fileOf(pendingId, tok.mira)).status).toBe(200);
    const [raviHeld] = JSON.parse(ids.raviClaims) as string[];
    expect((await fileOf(raviHeld, tok.mira)).status).toBe(200);
    // Reviewed by Mira: Mira, the patient and admins; Ravi, the other patient and an unapproved expert not.
    expect((await fileOf(reviewed, tok.mira)).status).toBe(200);
    expect((await fileOf(reviewed, tok.patient)).status).toBe(200);
    expect((await fileOf(reviewed, tok.admin)).status).toBe(200);
    const refused = await fileOf(reviewed, tok.ravi);
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body.toString()).message).toBe(
      "This report was reviewed by another expert. Only that expert, the patient and admins can open its file.",
    );
    expect((await fileOf(reviewed, tok.other)).status).toBe(403);
    expect((await fileOf(reviewed, tok.noreg)).status).toBe(403);
    // A stranger without a session: 401, and nothing to record.
    expect((await raw(`${server.url}/api/v1/report/${reviewed}/file`)).status).toBe(401);
    const db = await openTestDb(server.dataDir);
    try {
      const events = await db.all(
        "SELECT actor_id, action FROM audit_events WHERE subject_id = ? AND action IN ('report.file_refused', 'report.file_open')",
        reviewed,
      );
      // Every refused opening by a signed-in actor is recorded: Ravi's, the unapproved expert's,
      // and the other patient's: everything else is 403, and audited.
      expect(
        events
          .filter((e) => e.action === "report.file_refused")
          .map((e) => e.actor_id)
          .sort(),
      ).toEqual([ids.ravi, ids.noreg, ids.other].sort());
      expect(events.filter((e) => e.action === "report.file_open").map((e) => e.actor_id)).not.toContain(
        ids.ravi,
      );
    } finally {
      await db.close();
    }
  });

  it("the add-review screen of another expert's reviewed report does not frame its file", async () => {
    const b = await login("ravi@round2.test");
    const page = await (await b.fetch(`/dashboard/add-review/${ids.miraReviewed}`)).text();
    expect(page).not.toContain(`src="/api/v1/report/${ids.miraReviewed}/file"`);
    expect(page).toContain("Only that expert, the patient and admins can open its file.");
    const [mine] = JSON.parse(ids.raviClaims) as string[];
    const own = await (await b.fetch(`/dashboard/add-review/${mine}`)).text();
    expect(own).toContain(`src="/api/v1/report/${mine}/file"`);
  });

  it("follow-ups reassigned to another expert: their screen and the file route agree, they may open it", async () => {
    const id = ids.miraReviewed;
    expect(
      (await api.post(`/report/reassign-follow-ups/${id}`, { expertId: ids.kiran }, tok.admin)).status,
    ).toBe(200);
    expect((await fileOf(id, tok.kiran)).status).toBe(200);
    const b = await login("kiran@round2.test");
    const page = await (await b.fetch(`/dashboard/add-review/${id}`)).text();
    expect(page).toContain(`src="/api/v1/report/${id}/file"`);
    expect(withoutPageStrings(page)).not.toContain(
      "Only that expert, the patient and admins can open its file.",
    );
    // Lata holds neither the review nor the follow-ups: refused on both, the same way.
    expect((await fileOf(id, tok.lata)).status).toBe(403);
    const lata = await login("lata@round2.test");
    expect(await (await lata.fetch(`/dashboard/add-review/${id}`)).text()).toContain(
      "Only that expert, the patient and admins can open its file.",
    );
  });

  it("a patient probing another patient's report files: 403, each attempt audited with the patient as actor", async () => {
    const theirs = (JSON.parse(ids.spare) as string[])[1];
    for (let i = 0; i < 2; i++) expect((await fileOf(theirs, tok.other)).status).toBe(403);
    const db = await openTestDb(server.dataDir);
    try {
      const refused = await db.all(
        "SELECT actor_id FROM audit_events WHERE subject_id = ? AND action = 'report.file_refused'",
        theirs,
      );
      expect(refused.map((e) => e.actor_id)).toEqual([ids.other, ids.other]);
    } finally {
      await db.close();
    }
  });
});

describe("the letter's verify code in the API", () => {
  it("a reviewed report carries letter {verifyCode, verifyUrl}; the PDF and /verify agree; a pending one has none", async () => {
    const mine = await api.get(`/report/get-report-by-patientId/${ids.patient}?pageSize=100`, tok.patient);
    const reviewed = mine.body.data.find((r: { _id: string }) => r._id === ids.miraReviewed);
    expect(reviewed.letter.verifyCode).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    expect(reviewed.letter.verifyUrl).toMatch(
      new RegExp(`^https?://[^/]+/verify/${reviewed.letter.verifyCode}$`),
    );
    const pending = mine.body.data.find((r: { status: string }) => r.status === "Pending");
    expect(pending.letter).toBeNull();
    const text = pdfText((await letterPdf(ids.miraReviewed, tok.patient)).body);
    expect(text).toContain(reviewed.letter.verifyCode);
    expect((await fetch(`${server.url}/verify/${reviewed.letter.verifyCode}`)).status).toBe(200);
    const byReviewer = await api.get("/report/get-report-by-expertId?pageSize=100", tok.mira);
    expect(byReviewer.body.data.find((r: { _id: string }) => r._id === ids.miraReviewed).letter).toEqual(
      reviewed.letter,
    );
    ids.miraCode = reviewed.letter.verifyCode;
  });
});

describe("the registration on letters is the one they were signed with", () => {
  it("an expert without a registration number cannot be approved", async () => {
    const r = await api.post("/expert/approve-expert", { expertId: ids.noreg }, tok.admin);
    expect(r.status).toBe(409);
    expect(r.body.message).toMatch(/has not given a registration number/);
    const pending = await api.get("/expert/get-pending-expert?pageSize=100", tok.admin);
    const noreg = pending.body.data.find((u: { _id: string }) => u._id === ids.noreg);
    expect(noreg.approved).toBe(false);
  });

  it("changing the registration number sends an approved expert back to review; signed letters and /verify keep the old one", async () => {
    // Ravi signs a letter with KMC-1001.
    const [id, ...others] = JSON.parse(ids.raviClaims) as string[];
    const signed = await api.post(`/report/add-review/${id}`, { review: "No fracture." }, tok.ravi);
    expect(signed.status).toBe(200);
    const code = signed.body.data.letter.verifyCode as string;
    expect(signed.body.data.expert.registrationNumber).toBe("KMC-1001");

    const changed = await api.put(
      "/profile/update-expert-details",
      { registrationNumber: "FAKE-REG-999" },
      tok.ravi,
    );
    expect(changed.status).toBe(200);
    expect(changed.body.message).toMatch(/an admin will check your account again/);
    expect(changed.body.data.approved).toBe(false);
    expect(changed.body.data.expertDetails).toMatchObject({
      registrationNumber: "FAKE-REG-999",
      approvedAt: null,
    });
    // Back in the admin's queue; no claims or reviews until approved again; the claims held are released.
    const queue = await api.get("/expert/get-pending-expert?pageSize=100", tok.admin);
    expect(queue.body.data.map((u: { _id: string }) => u._id)).toContain(ids.ravi);
    expect((await api.post(`/report/claim/${others[0]}`, {}, tok.ravi)).status).toBe(403);
    expect((await api.post(`/report/add-review/${others[0]}`, { review: "x" }, tok.ravi)).status).toBe(403);
    const pending = await api.get("/report/get-pending-reports?pageSize=100", tok.admin);
    for (const o of others) {
      expect(pending.body.data.find((r: { _id: string }) => r._id === o).claimedBy).toBeNull();
    }

    // The letter signed before, everywhere: /verify, the PDF, the API.
    const verify = await (await fetch(`${server.url}/verify/${code}`)).text();
    expect(verify).toContain("KMC-1001");
    expect(verify).not.toContain("FAKE-REG-999");
    const text = pdfText((await letterPdf(id, tok.patient)).body);
    expect(text).toContain("KMC-1001");
    expect(text).not.toContain("FAKE-REG-999");
    const list = await api.get(`/report/get-report-by-patientId/${ids.patient}?pageSize=100`, tok.patient);
    expect(list.body.data.find((r: { _id: string }) => r._id === id).expert.registrationNumber).toBe(
      "KMC-1001",
    );

    // Approved again, new letters print the new number; the old one still the old.
    expect((await api.post("/expert/approve-expert", { expertId: ids.ravi }, tok.admin)).status).toBe(200);
    expect((await api.post(`/report/claim/${others[0]}`, {}, tok.ravi)).status).toBe(200);
    const next = await api.post(`/report/add-review/${others[0]}`, { review: "Healed." }, tok.ravi);
    expect(next.body.data.expert.registrationNumber).toBe("FAKE-REG-999");
    expect(await (await fetch(`${server.url}/verify/${code}`)).text()).toContain("KMC-1001");
  });

  it("other details keep the approval; the council (here on the Settings screen) does not", async () => {
    const years = await api.put("/profile/update-expert-details", { yearsOfPractice: 11 }, tok.mira);
    expect(years.status).toBe(200);
    expect(years.body.data.approved).toBe(true);
    const same = await api.put(
      "/profile/update-expert-details",
      { registrationNumber: "WBMC-2002" },
      tok.mira,
    );
    expect(same.body.data.approved).toBe(true);
    const b = await login("mira@round2.test");
    const saved = await b.post("/dashboard/settings", {
      intent: "expert-details",
      specialties: "Radiology",
      registrationNumber: "WBMC-2002",
      registrationCouncil: "West Bengal Medical Council",
      yearsOfPractice: "11",
    });
    expect(saved.status).toBe(302);
    const me = await api.get("/profile/get-user-details", tok.mira);
    expect(me.body.data.approved).toBe(false);
    expect(me.body.data.expertDetails.registrationCouncil).toBe("West Bengal Medical Council");
    // Mira's letter still verifies with the council it was signed under.
    const verify = await (await fetch(`${server.url}/verify/${ids.miraCode}`)).text();
    expect(verify).toContain("National Medical Commission");
    expect(verify).not.toContain("West Bengal Medical Council");
  });
});

describe("a rejected expert sees why, and what to do next", () => {
  it("in get-user-details and on My Profile", async () => {
    const reason = "Registration number missing";
    expect((await api.post("/expert/reject-expert", { expertId: ids.noreg, reason }, tok.admin)).status).toBe(
      200,
    );
    const me = await api.get("/profile/get-user-details", tok.noreg);
    expect(me.status).toBe(200);
    expect(me.body.data.expertDetails).toMatchObject({ rejectionReason: reason });
    expect(Date.parse(me.body.data.expertDetails.rejectedAt)).toBeGreaterThan(0);
    const b = await login("noreg@round2.test");
    const page = await (await b.fetch("/dashboard/my-profile")).text();
    expect(page).toContain("Your expert application was not approved");
    expect(page).toContain(`not approved: ${reason}. Correct your details in Settings`);
    expect(page).toContain('href="/dashboard/settings#expert-details-heading"');
    // The dashboard's banner says so too, instead of "waiting for admin approval".
    expect(withoutPageStrings(page)).not.toContain("waiting for admin approval");
    // Correcting the details re-applies; the notice goes away.
    const fixed = await api.put(
      "/profile/update-expert-details",
      { registrationNumber: "KMC-5005", registrationCouncil: "Karnataka Medical Council" },
      tok.noreg,
    );
    expect(fixed.body.data.expertDetails.rejectionReason).toBeNull();
    expect(withoutPageStrings(await (await b.fetch("/dashboard/my-profile")).text())).not.toContain(
      "Your expert application was not approved",
    );
    expect((await api.post("/expert/approve-expert", { expertId: ids.noreg }, tok.admin)).status).toBe(200);
  });
});

describe("a claim that cannot be renewed lapses back to the queue", () => {
  let fast: TestServer;
  let fastApi: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    fast = await startServer({
      SMTP_URL: smtp.url,
      RATE_LIMIT_DISABLED: "1",
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      CLAIM_TTL_MINUTES: "0.03", // 1.8 s
      CLAIM_MAX: "1",
      CLAIM_RENEW_MAX: "1",
    });
    fastApi = apiClient(fast.url);
    tok.fastAdmin = (await fastApi.post("/auth/login", ADMIN)).body.token;
    await signup(fastApi, "fp", "Patient", undefined, "fast2.test");
    await signup(fastApi, "fe1", "Expert", details("F-1"), "fast2.test");
    await signup(fastApi, "fe2", "Expert", details("F-2"), "fast2.test");
    for (const k of ["fe1", "fe2"])
      expect((await fastApi.post("/expert/approve-expert", { expertId: ids[k] }, tok.fastAdmin)).status).toBe(
        200,
      );
  }, 120_000);
  afterAll(async () => {
    await fast?.stop();
  });

  it("CLAIM_MAX=1, CLAIM_RENEW_MAX=1: one renewal, then the claim lapses and another expert takes it", async () => {
    const a = await upload(fastApi, tok.fp);
    const b = await upload(fastApi, tok.fp);
    expect((await fastApi.post(`/report/claim/${a}`, {}, tok.fe1)).status).toBe(200);
    expect((await fastApi.post(`/report/claim/${b}`, {}, tok.fe1)).status).toBe(409); // the cap of 1
    expect((await fastApi.post(`/report/claim/${a}`, {}, tok.fe1)).status).toBe(200); // renewal 1
    expect((await fastApi.post(`/report/claim/${a}`, {}, tok.fe1)).status).toBe(409); // no second
    expect((await fastApi.post(`/report/claim/${a}`, {}, tok.fe2)).status).toBe(409); // still held
    await new Promise((r) => setTimeout(r, 2_500));
    expect((await fastApi.post(`/report/claim/${a}`, {}, tok.fe2)).status).toBe(200); // back in the queue
    expect((await fastApi.post(`/report/claim/${b}`, {}, tok.fe1)).status).toBe(200); // fe1's cap is free again
  });
});

describe("CLAIM_RENEW_MAX=0: a claim is never renewed", () => {
  let strict: TestServer;
  let strictApi: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    strict = await startServer({
      SMTP_URL: smtp.url,
      RATE_LIMIT_DISABLED: "1",
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      CLAIM_RENEW_MAX: "0",
    });
    strictApi = apiClient(strict.url);
    tok.strictAdmin = (await strictApi.post("/auth/login", ADMIN)).body.token;
    await signup(strictApi, "sp", "Patient", undefined, "strict2.test");
    await signup(strictApi, "se1", "Expert", details("S-1"), "strict2.test");
    await signup(strictApi, "se2", "Expert", details("S-2"), "strict2.test");
    for (const k of ["se1", "se2"])
      expect(
        (await strictApi.post("/expert/approve-expert", { expertId: ids[k] }, tok.strictAdmin)).status,
      ).toBe(200);
  }, 120_000);
  afterAll(async () => {
    await strict?.stop();
  });

  it("a first claim goes through, a renewal does not; another expert waits for it to end", async () => {
    const id = await upload(strictApi, tok.sp);
    const first = await strictApi.post(`/report/claim/${id}`, {}, tok.se1);
    expect(first.status).toBe(200);
    expect(first.body.data.claimedBy._id).toBe(ids.se1);
    const renew = await strictApi.post(`/report/claim/${id}`, {}, tok.se1);
    expect(renew.status).toBe(409);
    expect(renew.body.message).toMatch(/renewed this claim as often as allowed \(0 times\)/);
    expect((await strictApi.post(`/report/claim/${id}`, {}, tok.se2)).status).toBe(409);
    expect((await strictApi.post(`/report/release/${id}`, {}, tok.se1)).status).toBe(200);
    expect((await strictApi.post(`/report/claim/${id}`, {}, tok.se2)).status).toBe(200);
  });
});
