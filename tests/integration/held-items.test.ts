import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi, strongPassword } from "../helpers/api";
import { insertCentre, makeHealthWorker } from "../helpers/centre-data";
import { openTestDb, type TestDb } from "../helpers/db";
import { samplePng, uploadForm } from "../helpers/files";
import { Browserish, pageText, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/*
 * Held items over HTTP (decision 0065): the app's offline outbox (browser session, same-origin,
 * X-CareBridge-Outbox) of a worker suspended or moved while offline gets each item refused with the
 * reason and kept for the centre it was recorded at — once per Idempotency-Key — and an admin hands
 * it to another worker of that centre, who then has the patient, registered once.
 */

const ADMIN = { email: "admin@held.test", password: "Admin-pass-2026" };
let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let api: ReturnType<typeof apiClient>;
let db: TestDb;
const tok: Record<string, string> = {};
const ids: Record<string, string> = {};
const web: Record<string, Browserish> = {};
const A = { id: "c00000000000000000000a45", name: "Arogya Mandir Held" };
const B = { id: "c00000000000000000000b45", name: "PHC Moved" };

/** An approved health worker of `centreId`, signed in on a browser too. */
async function healthWorker(key: string, centreId: string) {
  const email = `${key.toLowerCase()}@held.test`;
  const r = await signupViaApi(api, smtp, codeFrom, { email, firstName: "Worker", lastName: key });
  await makeHealthWorker(db, r.user._id, centreId, {
    workerId: `CHO-${key}`,
    approved: true,
    notify: "email",
  });
  tok[key] = r.token;
  ids[key] = r.user._id;
  web[key] = new Browserish(server.url);
  expect((await web[key].post("/login", { email, password: strongPassword })).status).toBe(302);
}

const FIELDS = {
  firstName: "Kamla",
  lastName: "Heldover",
  sex: "female",
  age: "72",
  locality: "Rampur",
  preferredLanguage: "hi",
  phoneOwner: "none",
  consent: "granted",
  consentMethod: "thumbprint",
};

/** What the outbox sends for one registration item. */
async function outboxRegister(
  who: Browserish,
  key: string,
  extra: Record<string, string> = {},
  fields: Record<string, string> = FIELDS,
) {
  const res = await who.fetch("/api/v1/centre/patients", {
    method: "POST",
    body: uploadForm(fields, { name: "thumb.png", data: samplePng(), type: "image/png", field: "evidence" }),
    headers: {
      "X-CareBridge-Outbox": "1",
      "Sec-Fetch-Site": "same-origin",
      "Idempotency-Key": key,
      ...extra,
    },
  });
  return { status: res.status, body: await res.json() };
}

const heldCount = async (workerId: string) =>
  Number(
    (await db.get<{ n: number }>("SELECT count(*) AS n FROM held_items WHERE worker_id = ?", workerId))!.n,
  );
const patientsNamed = async (lastName: string) =>
  Number(
    (await db.get<{ n: number }>("SELECT count(*) AS n FROM patients WHERE last_name = ?", lastName))!.n,
  );

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    RATE_LIMIT_DISABLED: "1",
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
  });
  api = apiClient(server.url);
  db = await openTestDb(server.dataDir, { write: true });
  await insertCentre(db, A);
  await insertCentre(db, B);
  for (const [key, centre] of [
    ["hwS", A.id],
    ["hwM", A.id],
    ["hwA2", A.id],
    ["hwB", B.id],
  ] as const)
    await healthWorker(key, centre);
  tok.patient = (await signupViaApi(api, smtp, codeFrom, { email: "patient@held.test" })).token;
  tok.admin = (await api.post("/auth/login", ADMIN)).body.token;
});
afterAll(async () => {
  await db?.close();
  await server?.stop();
  await smtp?.close();
});

describe("a worker suspended while offline", () => {
  it("gets each outbox item refused with the reason (403) and kept for the centre, once per key", async () => {
    // Sent before the suspension, its answer lost: sent again after, it is answered, not kept twice.
    const online = { ...FIELDS, lastName: "Online" };
    expect((await outboxRegister(web.hwS, "item-s-0", {}, online)).status).toBe(201);
    expect(
      (await api.raw("PATCH", `/health-workers/${ids.hwS}`, { suspended: true }, tok.admin)).status,
    ).toBe(200);
    const first = await outboxRegister(web.hwS, "item-s-1");
    expect(first.status).toBe(403);
    expect(first.body).toMatchObject({
      success: false,
      reason: "suspended",
      held: true,
      centre: { _id: A.id, name: A.name },
      heldItem: { kind: "register", status: "held", hasFile: true, recordedBy: { _id: ids.hwS } },
    });
    expect(first.body.message).toContain("suspended");
    expect(first.body.message).toContain(A.name);
    const again = await outboxRegister(web.hwS.inLanguage("hi"), "item-s-1");
    expect(again.status).toBe(403);
    expect(again.body.heldItem._id).toBe(first.body.heldItem._id);
    expect(again.body.message).toContain("निलंबित");
    const lost = await web.hwS.fetch("/api/v1/centre/patients", {
      method: "POST",
      body: uploadForm(online, {
        name: "thumb.png",
        data: samplePng(),
        type: "image/png",
        field: "evidence",
      }),
      headers: { "X-CareBridge-Outbox": "1", "Sec-Fetch-Site": "same-origin", "Idempotency-Key": "item-s-0" },
    });
    expect(lost.status).toBe(201);
    expect(lost.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await heldCount(ids.hwS)).toBe(1);
    expect(await patientsNamed("Heldover")).toBe(0);
    expect(await patientsNamed("Online")).toBe(1);
  });

  it("the ended session does nothing else: reads, bearer tokens and requests without the header stay 401", async () => {
    const h = { "X-CareBridge-Outbox": "1", "Sec-Fetch-Site": "same-origin" };
    expect((await web.hwS.fetch("/api/v1/centre/patients", { headers: h })).status).toBe(401);
    expect((await api.get("/centre/patients", tok.hwS)).status).toBe(401);
    const plain = await web.hwS.fetch("/api/v1/centre/patients", {
      method: "POST",
      body: uploadForm(FIELDS),
      headers: { "Sec-Fetch-Site": "same-origin" },
    });
    expect(plain.status).toBe(401);
    // A resumable upload's creation carries no bytes: told why, and where to send it whole.
    const tus = await web.hwS.fetch("/api/v1/uploads", {
      method: "POST",
      headers: { ...h, "Tus-Resumable": "1.0.0", "Upload-Length": "10" },
    });
    expect(tus.status).toBe(403);
    expect(await tus.json()).toMatchObject({ held: false, holdAt: "/api/v1/report/upload-report" });
  });
});

describe("a worker moved while offline", () => {
  it("gets items recorded at the old centre refused (409) and kept there; new ones go through", async () => {
    expect((await api.raw("PATCH", `/health-workers/${ids.hwM}`, { centreId: B.id }, tok.admin)).status).toBe(
      200,
    );
    // The move happened an hour ago (its time is the move's audit row).
    const hour = 60 * 60_000;
    const moveAt = async (msAgo: number) =>
      db.run(
        "UPDATE audit_events SET created_at = ? WHERE action = 'centre.worker_move' AND subject_id = ?",
        db.time(Date.now() - msAgo),
        ids.hwM,
      );
    await moveAt(hour);
    const at = (msAgo: number) => ({
      "X-CareBridge-Centre": A.id,
      "X-CareBridge-Recorded-At": new Date(Date.now() - msAgo).toISOString(),
    });
    const moved = await outboxRegister(web.hwM, "item-m-1", at(2 * hour));
    expect(moved.status).toBe(409);
    expect(moved.body).toMatchObject({ reason: "moved", held: true, centre: { _id: A.id } });
    expect(moved.body.message).toContain(B.name);
    expect(moved.body.message).toContain(A.name);
    // Decision 0073: what was recorded after the move, or without saying when, is not the old
    // centre's: refused with the reason and nothing kept (the phone keeps it).
    const kept = await heldCount(ids.hwM);
    const after = await outboxRegister(web.hwM, "item-m-3", at(10 * 60_000));
    expect(after.status).toBe(409);
    expect(after.body).toMatchObject({ reason: "moved", held: false, notKept: "after" });
    expect(after.body.message).toMatch(/recorded after you moved from .+ to .+ on \d{2} \w{3} \d{4}/);
    const unknown = await outboxRegister(web.hwM, "item-m-4", { "X-CareBridge-Centre": A.id });
    expect(unknown.body).toMatchObject({ held: false, notKept: "unknown" });
    // Over 30 days after the move nothing more is kept for the old centre, whenever recorded.
    await moveAt(31 * 24 * hour);
    const late = await outboxRegister(web.hwM, "item-m-5", at(32 * 24 * hour));
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ held: false, notKept: "expired" });
    expect(late.body.message).toContain("more than 30 days ago");
    expect(await heldCount(ids.hwM)).toBe(kept);
    await moveAt(hour);
    const here = await outboxRegister(
      web.hwM,
      "item-m-2",
      { "X-CareBridge-Centre": B.id },
      {
        ...FIELDS,
        lastName: "Newcentre",
      },
    );
    expect(here.status).toBe(201);
    expect(here.body.data.centre._id).toBe(B.id);
  });
});

describe("the admin hands a held item over", () => {
  it("lists them without medical content, refuses wrong workers and strangers, registers once", async () => {
    const list = await api.raw("GET", `/centres/${A.id}/held-items`, undefined, tok.admin);
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(2);
    expect(JSON.stringify(list.body.data)).not.toContain("Kamla");
    const item = list.body.data.find((i: { recordedBy: { _id: string } }) => i.recordedBy._id === ids.hwS);
    const hand = (workerId: string, token = tok.admin) =>
      api.raw("POST", `/centres/${A.id}/held-items/${item._id}/hand-over`, { workerId }, token);

    expect((await hand(ids.hwA2, "")).status).toBe(401);
    expect((await hand(ids.hwA2, tok.patient)).status).toBe(403);
    expect((await hand(ids.hwA2, tok.hwA2)).status).toBe(403);
    expect((await api.raw("GET", `/centres/${A.id}/held-items`, undefined, tok.hwA2)).status).toBe(403);
    const other = await hand(ids.hwB);
    expect(other.status).toBe(400);
    expect(other.body.errors.workerId).toBeDefined();
    const suspended = await hand(ids.hwS);
    expect(suspended.status).toBe(400);
    expect(suspended.body.message).toMatch(/suspended/);

    const [one, two] = await Promise.all([hand(ids.hwA2), hand(ids.hwA2)]);
    expect([one.status, two.status].sort()).toEqual([200, 409]);
    const done = one.status === 200 ? one : two;
    expect(done.body.data).toMatchObject({ status: "handed", handedTo: ids.hwA2 });
    expect(await patientsNamed("Heldover")).toBe(1);
    const patient = await api.get(`/centre/patients/${done.body.data.resultId}` as never, tok.hwA2);
    expect(patient.status).toBe(200);
    expect(patient.body.data).toMatchObject({
      centre: { _id: A.id },
      consent: { recordedByName: "Worker hwS" },
    });
    expect((await hand(ids.hwA2)).status).toBe(409);
  });
});

describe("the centre's admin page", () => {
  it("shows what is kept and hands it over with a plain form", async () => {
    const admin = new Browserish(server.url);
    expect((await admin.post("/login", ADMIN)).status).toBe(302);
    const page = await admin.fetch(`/dashboard/centres/${A.id}`);
    expect(page.status).toBe(200);
    const text = pageText(await page.text());
    expect(text).toContain("Kept for this centre");
    expect(text).toContain("Worker hwM");
    const held = await db.get<{ id: string }>(
      "SELECT id FROM held_items WHERE worker_id = ? AND status = 'held'",
      ids.hwM,
    );
    const wrong = await admin.post(`/dashboard/centres/${A.id}`, {
      intent: "hand-over",
      heldItemId: held!.id,
      workerId: ids.hwB,
    });
    expect(wrong.status).toBe(302);
    expect(
      (await db.get<{ status: string }>("SELECT status FROM held_items WHERE id = ?", held!.id))!.status,
    ).toBe("held");
    const res = await admin.post(`/dashboard/centres/${A.id}`, {
      intent: "hand-over",
      heldItemId: held!.id,
      workerId: ids.hwA2,
    });
    expect(res.status).toBe(302);
    const row = await db.get<{ status: string; handed_to: string }>(
      "SELECT status, handed_to FROM held_items WHERE id = ?",
      held!.id,
    );
    expect(row).toMatchObject({ status: "handed", handed_to: ids.hwA2 });
    expect(await patientsNamed("Heldover")).toBe(2);
  });
});
