import { beforeEach, describe, expect, it } from "vitest";
import type { Net } from "~/offline/send";
import type { StoredItem } from "~/offline/types";
import { fileOf, keepItem, newPhone, WORKER, type Phone } from "../helpers/offline-phone";

/*
 * The outbox's sender below the browser (decisions 0063, 0065, 0095): which item goes first, what
 * waits for what, which answers pause the round and which put an item before the person, the
 * Idempotency-Key on every attempt, a report's resumable upload across a cut connection, and one
 * sender at a time. The server is a small in-memory stand-in for the API's outbox endpoints
 * (the real ones give these answers in tests/integration/held-items and idempotency, and in the
 * browser tests), reached through the `fetch` the sender is given instead of the page's.
 */

const ORIGIN = "https://phone.test";
const CHUNK = 512 * 1024;

type Hit = {
  method: string;
  path: string;
  key: string | null;
  headers: Headers;
  fields: Record<string, string>;
  file?: File;
};
/** What the stand-in answers instead of its usual: an answer, no connection, or its usual answer lost on the way back. */
type Answer = Response | "offline" | "lost";
type Rule = { when: (h: Hit) => boolean; answer: (h: Hit) => Answer; times: number };

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });

/** The API's outbox endpoints, in memory: records made once per Idempotency-Key, tus uploads by offset. */
function fakeApi() {
  const hits: Hit[] = [];
  const rules: Rule[] = [];
  /** Endpoint + key → the record made (a second request with the key answers the first record). */
  const made = new Map<string, { _id: string }>();
  const uploads = new Map<
    string,
    {
      key: string;
      length: number;
      bytes: Uint8Array;
      at: number;
      reportId?: string;
      meta: Record<string, string>;
    }
  >();
  let n = 0;

  const create = (hit: Hit, prefix: string) => {
    const k = `${hit.path}|${hit.key}`;
    if (!made.has(k)) made.set(k, { _id: `${prefix}-${++n}` });
    return json(201, {
      success: true,
      data: { ...made.get(k)!, shortId: prefix === "pat" ? `CB-${n}` : undefined },
    });
  };

  async function usual(req: Request, hit: Hit): Promise<Response> {
    const { method, path } = hit;
    if (method === "POST" && path === "/api/v1/centre/patients") return create(hit, "pat");
    if (method === "POST" && path === "/api/v1/voice-notes") return create(hit, "voice");
    if (method === "POST" && path === "/api/v1/report/upload-report") return create(hit, "rep");
    if (method === "POST" && path.startsWith("/api/v1/report/follow-up/")) return create(hit, "fu");
    if (method === "POST" && path === "/api/v1/uploads") {
      const meta: Record<string, string> = {};
      for (const pair of (req.headers.get("Upload-Metadata") ?? "").split(",")) {
        const [k, v] = pair.split(" ");
        meta[k] = new TextDecoder().decode(Uint8Array.from(atob(v ?? ""), (c) => c.charCodeAt(0)));
      }
      const found = [...uploads].find(([, u]) => u.key === hit.key);
      const id = found?.[0] ?? `up-${++n}`;
      if (!found) {
        const length = Number(req.headers.get("Upload-Length"));
        uploads.set(id, { key: hit.key!, length, bytes: new Uint8Array(length), at: 0, meta });
      }
      return new Response(null, { status: 201, headers: { Location: `/api/v1/uploads/${id}` } });
    }
    const up = uploads.get(path.replace("/api/v1/uploads/", ""));
    if (up && method === "HEAD")
      return new Response(null, {
        status: 200,
        headers: {
          "Upload-Offset": String(up.at),
          "Upload-Length": String(up.length),
          ...(up.reportId ? { "CareBridge-Report-Id": up.reportId } : {}),
        },
      });
    if (up && method === "PATCH") {
      if (Number(req.headers.get("Upload-Offset")) !== up.at) return new Response(null, { status: 409 });
      const chunk = new Uint8Array(await req.arrayBuffer());
      up.bytes.set(chunk, up.at);
      up.at += chunk.byteLength;
      const headers = { "Upload-Offset": String(up.at) };
      if (up.at < up.length) return new Response(null, { status: 204, headers });
      up.reportId ??= `rep-${++n}`;
      return json(200, { success: true, data: { _id: up.reportId } }, headers);
    }
    return json(404, { success: false, message: "Not found" });
  }

  const net: Net = {
    origin: ORIGIN,
    fetch: async (input, init) => {
      const req = new Request(new URL(String(input), ORIGIN), init);
      const hit: Hit = {
        method: req.method,
        path: new URL(req.url).pathname,
        key: req.headers.get("Idempotency-Key"),
        headers: req.headers,
        fields: {},
      };
      if (req.headers.get("Content-Type")?.startsWith("multipart/form-data")) {
        for (const [k, v] of await req.clone().formData())
          if (typeof v === "string") hit.fields[k] = v;
          else hit.file = v;
      } else if (req.headers.get("Content-Type") === "application/json")
        hit.fields = (await req.clone().json()) as Record<string, string>;
      hits.push(hit);
      const rule = rules.find((r) => r.times > 0 && r.when(hit));
      if (!rule) return usual(req, hit);
      rule.times--;
      const answer = rule.answer(hit);
      if (answer === "offline") throw new TypeError("fetch failed");
      if (answer === "lost") {
        await usual(req, hit);
        throw new TypeError("fetch failed");
      }
      return answer;
    },
  };

  return {
    net,
    hits,
    made,
    uploads,
    /** The next `times` requests that match are answered so. */
    on(when: (h: Hit) => boolean, answer: (h: Hit) => Answer, times = 1) {
      rules.push({ when, answer, times });
    },
    /** Method and path of each request, in order. */
    trail: () => hits.map((h) => `${h.method} ${h.path}`),
  };
}

/** Byte for byte (Vitest's deep equality takes seconds over a megabyte). */
const same = (a: ArrayBuffer | Uint8Array, b: ArrayBuffer) =>
  Buffer.from(a as ArrayBuffer).equals(Buffer.from(b));

const to = (method: string, path: string) => (h: Hit) =>
  h.method === method && (path.endsWith("*") ? h.path.startsWith(path.slice(0, -1)) : h.path === path);

let phone: Phone;
let api: ReturnType<typeof fakeApi>;

async function stateOf(item: StoredItem) {
  return (await phone.store.getItem(item.id))!;
}

const registration = (firstName: string) => ({
  label: `Register ${firstName} Devi`,
  fields: {
    firstName,
    lastName: "Devi",
    phone: "+919812345678",
    consent: "granted",
    consentMethod: "verbal",
    age: "48",
  },
});

beforeEach(async () => {
  phone = await newPhone();
  api = fakeApi();
  await phone.store.setSession(WORKER);
  // Unlocked as at a sign-in (the key's own wrapping is tests/unit/offline-keys.test.ts's).
  const key = await crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, false, [
    "encrypt",
    "decrypt",
  ]);
  phone.store.holdKey(WORKER.accountId, key);
});

describe("the order things are sent in", () => {
  it("oldest first; an item after another takes the record it made; every request carries its item's id as the Idempotency-Key", async () => {
    const followUp = await keepItem(phone, "follow-up", {
      label: "Question about the opinion",
      fields: { question: "Can she eat rice?" },
      reportId: "rep-earlier",
    });
    const register = await keepItem(phone, "register", registration("Sita"));
    const file = fileOf(CHUNK * 2 + 1000);
    const upload = await keepItem(
      phone,
      "upload",
      { label: "Report for Sita", fields: { type: "Blood test", urgency: "routine" }, file },
      { after: register.id },
    );
    const voice = await keepItem(
      phone,
      "voice",
      { label: "Voice note", fields: { durationSec: "4" }, file: fileOf(3000, "note.webm", "audio/webm") },
      { after: upload.id },
    );

    await phone.send.sendOutbox(api.net);

    expect(api.trail()).toEqual([
      "POST /api/v1/report/follow-up/rep-earlier",
      "POST /api/v1/centre/patients",
      "POST /api/v1/uploads",
      expect.stringMatching(/^PATCH \/api\/v1\/uploads\/up-\d+$/),
      expect.stringMatching(/^PATCH /),
      expect.stringMatching(/^PATCH /),
      "POST /api/v1/voice-notes",
    ]);
    const keyOf = (path: string) => api.hits.find((h) => h.method === "POST" && h.path.startsWith(path))!.key;
    expect(keyOf("/api/v1/report/follow-up/")).toBe(followUp.id);
    expect(keyOf("/api/v1/centre/patients")).toBe(register.id);
    expect(keyOf("/api/v1/uploads")).toBe(upload.id);
    expect(keyOf("/api/v1/voice-notes")).toBe(voice.id);
    for (const h of api.hits) expect(h.headers.get("X-CareBridge-Outbox")).toBe("1");
    // A worker's items say which centre they were recorded for, and when (decisions 0065, 0073).
    for (const h of api.hits) expect(h.headers.get("X-CareBridge-Centre")).toBe(WORKER.centre!._id);
    expect(api.hits[1].headers.get("X-CareBridge-Recorded-At")).toBe(register.createdAt);
    expect(api.hits[1].fields).toMatchObject(registration("Sita").fields);

    // Each takes its id from the one before: the patient just registered, the report just sent.
    const patient = (await stateOf(register)).result!.id;
    const [[, sent]] = [...api.uploads];
    expect(sent.meta).toMatchObject({ patientId: patient, filename: "report.webp", type: "Blood test" });
    expect(same(sent.bytes, file.bytes)).toBe(true);
    expect(api.hits.at(-1)!.fields.reportId).toBe(sent.reportId);
    expect(same(await api.hits.at(-1)!.file!.arrayBuffer(), fileOf(3000).bytes)).toBe(true);

    for (const item of [followUp, register, upload, voice]) expect((await stateOf(item)).state).toBe("sent");
    expect((await stateOf(upload)).result).toEqual({ id: sent.reportId });
    // Sent, an item keeps its label and the record's id; a registration also the name and number.
    const kept = await phone.store.openPayload(await stateOf(register));
    expect(kept).toEqual({
      label: "Register Sita Devi",
      fields: { firstName: "Sita", lastName: "Devi", phone: "+919812345678" },
    });
    expect((await phone.store.openPayload(await stateOf(upload))).file).toBeUndefined();
  });

  it("an item whose earlier one was refused is not sent and says which one it waits for; the rest go on", async () => {
    const first = await keepItem(phone, "register", registration("Gita"));
    const upload = await keepItem(
      phone,
      "upload",
      { label: "Report for Gita", fields: {}, file: fileOf(100) },
      { after: first.id },
    );
    const other = await keepItem(phone, "register", registration("Rani"));
    api.on(to("POST", "/api/v1/centre/patients"), () =>
      json(422, { success: false, message: "Check the age", errors: { age: ["Too old"] } }),
    );

    await phone.send.sendOutbox(api.net);

    expect(api.trail()).toEqual(["POST /api/v1/centre/patients", "POST /api/v1/centre/patients"]);
    expect(api.hits[1].key).toBe(other.id);
    expect(await stateOf(first)).toMatchObject({
      state: "needs-you",
      reason: { status: 422, message: "Check the age", errors: { age: ["Too old"] } },
    });
    expect(await stateOf(upload)).toMatchObject({
      state: "needs-you",
      reason: { status: 422, message: "Check the age", errors: undefined, waitsFor: first.id },
    });
    expect((await stateOf(other)).state).toBe("sent");

    // "Try again": what waited for it waits again, and goes after it with its patient.
    await phone.outbox.retry(first.id);
    expect((await stateOf(upload)).state).toBe("waiting");
    await phone.send.sendOutbox(api.net);
    expect((await stateOf(first)).state).toBe("sent");
    expect((await stateOf(upload)).state).toBe("sent");
    expect([...api.uploads][0][1].meta.patientId).toBe((await stateOf(first)).result!.id);
  });

  it("an item whose earlier one is gone from the phone says so and waits to be removed", async () => {
    const orphan = await keepItem(
      phone,
      "voice",
      { label: "Voice note", fields: {}, file: fileOf(10) },
      { after: "no-longer-here" },
    );
    await phone.send.sendOutbox(api.net);
    expect(api.hits).toEqual([]);
    expect(await stateOf(orphan)).toMatchObject({
      state: "needs-you",
      reason: { status: 0, waitsFor: "no-longer-here" },
    });
    // Only an item that needs the person can be removed, and then it is.
    const waiting = await keepItem(phone, "register", registration("Mina"));
    await phone.outbox.remove(waiting.id);
    expect(await phone.store.getItem(waiting.id)).toBeDefined();
    await phone.outbox.remove(orphan.id);
    expect(await phone.store.getItem(orphan.id)).toBeUndefined();
  });

  it("an item left half sent ('sending': the page closed mid-way) goes again with the same key", async () => {
    const item = await keepItem(phone, "register", registration("Lata"), { state: "sending" });
    await phone.send.sendOutbox(api.net);
    expect(api.hits.map((h) => h.key)).toEqual([item.id]);
    expect((await stateOf(item)).state).toBe("sent");
  });
});

describe("what pauses the round and what needs the person", () => {
  const pauses: [string, () => Answer, number | undefined][] = [
    ["401 (the session ended)", () => json(401, { success: false, message: "Sign in" }), 401],
    ["408", () => json(408, { success: false, message: "Too slow" }), 408],
    ["423 (finishing elsewhere)", () => json(423, { success: false, message: "Busy" }), 423],
    ["429", () => json(429, { success: false, message: "Too many" }, { "Retry-After": "30" }), 429],
    ["500", () => json(500, { success: false, message: "Fault" }), 500],
    ["503", () => new Response("down", { status: 503 }), 503],
    [
      "a busy 409 (the same key still at work, decision 0062)",
      () => json(409, { success: false, message: "Still at work" }, { "Retry-After": "1" }),
      409,
    ],
    ["no connection", () => "offline", undefined],
    ["the answer lost on the way", () => "lost", undefined],
  ];

  it.each(pauses)(
    "%s: the item waits, nothing after it is tried, and it goes later with the same key",
    async (_, answer, status) => {
      const a = await keepItem(phone, "register", registration("Asha"));
      const b = await keepItem(phone, "register", registration("Bela"));
      api.on(to("POST", "/api/v1/centre/patients"), answer);

      await phone.send.sendOutbox(api.net);
      expect(api.hits.map((h) => h.key)).toEqual([a.id]);
      expect((await stateOf(a)).state).toBe("waiting");
      expect((await stateOf(a)).reason?.status).toBe(status);
      expect((await stateOf(b)).state).toBe("waiting");

      await phone.send.sendOutbox(api.net);
      expect(api.hits.map((h) => h.key)).toEqual([a.id, a.id, b.id]);
      expect((await stateOf(a)).state).toBe("sent");
      expect((await stateOf(b)).state).toBe("sent");
      // One record per item, however often it was sent.
      expect(api.made.size).toBe(2);
    },
  );

  it("a created answer without the record is not 'sent': the item waits", async () => {
    const a = await keepItem(phone, "register", registration("Uma"));
    api.on(to("POST", "/api/v1/centre/patients"), () => json(201, { success: true }));
    await phone.send.sendOutbox(api.net);
    expect((await stateOf(a)).state).toBe("waiting");
  });

  const refusals: [string, () => Response, object][] = [
    ["400", () => json(400, { success: false, message: "Bad" }), { status: 400, message: "Bad" }],
    ["404", () => json(404, { success: false, message: "No such report" }), { status: 404 }],
    ["409 without Retry-After", () => json(409, { success: false, message: "Already" }), { status: 409 }],
    ["413", () => json(413, { success: false, message: "Too large" }), { status: 413 }],
    [
      "an answer that is not JSON",
      () => new Response("<html>", { status: 400 }),
      { status: 400, message: "" },
    ],
    [
      "403 from a suspended worker: kept for the centre (decision 0065)",
      () => json(403, { success: false, message: "Kept for Sonpur", reason: "suspended", held: true }),
      { status: 403, message: "Kept for Sonpur", held: true },
    ],
    [
      "a moved worker's 409, even with Retry-After: kept, not busy",
      () => json(409, { success: false, message: "Kept for Sonpur", held: true }, { "Retry-After": "1" }),
      { status: 409, held: true },
    ],
    [
      "200 waiting at the centre already: not kept (held: false)",
      () => json(403, { success: false, message: "Too many kept", held: false }),
      { status: 403, held: undefined },
    ],
  ];

  it.each(refusals)(
    "%s: the item needs the person with the server's words; the next one is sent",
    async (_, answer, reason) => {
      const a = await keepItem(phone, "register", registration("Asha"));
      const b = await keepItem(phone, "register", registration("Bela"));
      api.on(to("POST", "/api/v1/centre/patients"), answer);
      await phone.send.sendOutbox(api.net);
      expect(await stateOf(a)).toMatchObject({ state: "needs-you", reason });
      expect((await stateOf(b)).state).toBe("sent");
      // A refused item is not sent again by itself.
      await phone.send.sendOutbox(api.net);
      expect(api.hits.filter((h) => h.key === a.id)).toHaveLength(1);
    },
  );

  it("a report a suspended worker cannot upload resumably is sent whole, with the same key, where the server says", async () => {
    const file = fileOf(CHUNK + 10);
    const item = await keepItem(phone, "upload", {
      label: "Report",
      fields: { patientId: "pat-known", type: "X-ray" },
      file,
    });
    api.on(to("POST", "/api/v1/uploads"), () =>
      json(403, { success: false, message: "Kept", held: false, holdAt: "/api/v1/report/upload-report" }),
    );
    await phone.send.sendOutbox(api.net);
    expect(api.trail()).toEqual(["POST /api/v1/uploads", "POST /api/v1/report/upload-report"]);
    const whole = api.hits[1];
    expect(whole.key).toBe(item.id);
    expect(whole.fields).toMatchObject({ patientId: "pat-known", type: "X-ray" });
    expect(whole.file!.name).toBe("report.webp");
    expect(same(await whole.file!.arrayBuffer(), file.bytes)).toBe(true);
    expect((await stateOf(item)).state).toBe("sent");
  });

  it("a 'send it there' that is not the API's own is not followed: the item needs the person", async () => {
    const item = await keepItem(phone, "upload", { label: "Report", fields: {}, file: fileOf(10) });
    api.on(to("POST", "/api/v1/uploads"), () =>
      json(403, { success: false, message: "Kept", holdAt: "https://elsewhere.test/api/v1/x" }),
    );
    await phone.send.sendOutbox(api.net);
    expect(api.trail()).toEqual(["POST /api/v1/uploads"]);
    expect(await stateOf(item)).toMatchObject({ state: "needs-you", reason: { status: 403 } });
  });
});

describe("a report's resumable upload", () => {
  it("cut off half way, it resumes from the server's offset, never created twice", async () => {
    const file = fileOf(CHUNK * 2 + 7);
    const item = await keepItem(phone, "upload", { label: "Report", fields: { patientId: "p" }, file });
    // The second chunk arrives, its answer does not.
    let patches = 0;
    api.on(
      (h) => h.method === "PATCH" && ++patches === 2,
      () => "lost",
    );
    await phone.send.sendOutbox(api.net);
    const cut = await stateOf(item);
    expect(cut).toMatchObject({ state: "waiting", progress: { sent: CHUNK, total: file.bytes.byteLength } });
    expect(cut.uploadUrl).toMatch(/^\/api\/v1\/uploads\/up-\d+$/);

    await phone.send.sendOutbox(api.net);
    expect(api.trail().slice(3)).toEqual([`HEAD ${cut.uploadUrl}`, `PATCH ${cut.uploadUrl}`]);
    expect(api.hits.at(-1)!.headers.get("Upload-Offset")).toBe(String(CHUNK * 2));
    expect(api.hits.filter((h) => h.method === "POST")).toHaveLength(1);
    const [[, up]] = [...api.uploads];
    expect(same(up.bytes, file.bytes)).toBe(true);
    expect(await stateOf(item)).toMatchObject({ state: "sent", result: { id: up.reportId } });
  });

  it("finished, with its last answer lost: the report the server names is the result, nothing is sent again", async () => {
    const item = await keepItem(phone, "upload", { label: "Report", fields: {}, file: fileOf(100) });
    api.on(to("PATCH", "/api/v1/uploads/*"), () => "lost");
    await phone.send.sendOutbox(api.net);
    expect((await stateOf(item)).state).toBe("waiting");
    await phone.send.sendOutbox(api.net);
    expect(api.trail().slice(2)).toEqual([`HEAD ${(await stateOf(item)).uploadUrl}`]);
    const [[, up]] = [...api.uploads];
    expect(await stateOf(item)).toMatchObject({ state: "sent", result: { id: up.reportId } });
  });

  it("swept by the server meanwhile (404): it starts again, with the same key", async () => {
    const item = await keepItem(phone, "upload", { label: "Report", fields: {}, file: fileOf(CHUNK + 1) });
    api.on(to("PATCH", "/api/v1/uploads/*"), () => "offline");
    await phone.send.sendOutbox(api.net);
    const first = (await stateOf(item)).uploadUrl!;
    api.uploads.clear();
    await phone.send.sendOutbox(api.net);
    expect(api.trail().slice(2, 4)).toEqual([`HEAD ${first}`, "POST /api/v1/uploads"]);
    expect(api.hits.filter((h) => h.method === "POST").map((h) => h.key)).toEqual([item.id, item.id]);
    expect((await stateOf(item)).state).toBe("sent");
  });

  it("a chunk the server already has (409 on the offset): it asks where the server is and goes on from there", async () => {
    const file = fileOf(CHUNK * 2 + 3);
    const item = await keepItem(phone, "upload", { label: "Report", fields: {}, file });
    // The first chunk arrives twice (a proxy resent it): the server is past the offset the phone sends.
    let patches = 0;
    api.on(
      (h) => h.method === "PATCH" && ++patches === 2,
      (h) => {
        const up = api.uploads.get(h.path.split("/").at(-1)!)!;
        up.bytes.set(new Uint8Array(file.bytes).subarray(up.at, up.at + CHUNK), up.at);
        up.at += CHUNK;
        return new Response(null, { status: 409 });
      },
    );
    await phone.send.sendOutbox(api.net);
    expect(
      api
        .trail()
        .slice(1)
        .map((t) => t.split(" ")[0]),
    ).toEqual(["PATCH", "PATCH", "HEAD", "PATCH"]);
    expect(api.hits.at(-1)!.headers.get("Upload-Offset")).toBe(String(CHUNK * 2));
    expect(same([...api.uploads][0][1].bytes, file.bytes)).toBe(true);
    expect((await stateOf(item)).state).toBe("sent");
  });
});

describe("whose items, and how many senders", () => {
  it("a locked outbox sends nothing; only the signed-in account's items are sent", async () => {
    const key = phone.store.heldKey(WORKER.accountId)!;
    const mine = await keepItem(phone, "register", registration("Asha"));
    // Another account used this phone; its key is even unlocked here.
    phone.store.holdKey("acct-other", key);
    const theirs = await keepItem(phone, "register", registration("Other"), { accountId: "acct-other" });

    phone.store.lock(WORKER.accountId);
    await phone.send.sendOutbox(api.net);
    expect(api.hits).toEqual([]);
    expect((await stateOf(mine)).state).toBe("waiting");

    phone.store.holdKey(WORKER.accountId, key);
    await phone.send.sendOutbox(api.net);
    expect(api.hits.map((h) => h.key)).toEqual([mine.id]);
    expect((await stateOf(theirs)).state).toBe("waiting");
  });

  it("two senders at once (a page and the service worker): each item is sent once", async () => {
    const items = [
      await keepItem(phone, "register", registration("Asha")),
      await keepItem(phone, "register", registration("Bela")),
    ];
    const slow: Net = {
      origin: ORIGIN,
      fetch: async (input, init) => {
        await new Promise((ok) => setTimeout(ok, 30));
        return api.net.fetch(input, init);
      },
    };
    await Promise.all([phone.send.sendOutbox(slow), phone.send.sendOutbox(slow)]);
    expect(api.hits.map((h) => h.key)).toEqual(items.map((i) => i.id));
  });

  it("sent items stay listed 7 days, longer while an unsent item still needs their record", async () => {
    const day = 24 * 60 * 60 * 1000;
    const sent = async (name: string, daysAgo: number) => {
      const item = await keepItem(phone, "register", registration(name), { state: "sent" });
      await phone.store.updateItem(item.id, (i) => ({
        ...i,
        result: { id: `pat-${name}` },
        sentAt: new Date(Date.now() - daysAgo * day).toISOString(),
      }));
      return item;
    };
    const old = await sent("Old", 8);
    const recent = await sent("Recent", 6);
    const needed = await sent("Needed", 30);
    const later = await keepItem(
      phone,
      "upload",
      { label: "Report", fields: {}, file: fileOf(10) },
      { after: needed.id },
    );
    api.on(to("POST", "/api/v1/uploads"), () => "offline");

    await phone.send.sendOutbox(api.net);
    expect(await phone.store.getItem(old.id)).toBeUndefined();
    expect(await phone.store.getItem(recent.id)).toBeDefined();
    expect(await phone.store.getItem(needed.id)).toBeDefined();
    expect(api.hits[0].key).toBe(later.id);
  });
});
