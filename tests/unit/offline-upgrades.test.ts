import { beforeEach, describe, expect, it } from "vitest";
import type { ItemPayload, OfflineSession } from "~/offline/types";
import { fileOf, newPhone, pageLoad, rawAll, rawPut, WORKER, type Phone } from "../helpers/offline-phone";

/*
 * The outbox's database opened by today's code from each shape an earlier release left on a phone
 * (decisions 0063, 0072, 0087, 0095). Each older database is written here with the raw IndexedDB
 * API the way that release's app/offline/store.ts and keys.ts wrote it (git history: shapes 1 and 2
 * at 45c43e5/bd16418, shape 3 at b070fe1), filled with items in every state, then opened by today's
 * modules: the shape is 4, every item is still there, in the clear what was in the clear, and opens
 * as the decisions say — a bare key of shapes 1–2 serves until her next password sign-in seals the
 * items anew under a wrapped key; the lists sealed under a bare key go at shape 3; shape 3's
 * wrapped key and lists stay.
 */

const ME = WORKER.accountId;
const PASSWORD = "mango-tree-47";
const AES = { name: "AES-GCM", length: 256 } as const;

type Step = (db: IDBDatabase, tx: IDBTransaction) => void;

/** The steps of the releases before today's, as they were written then. */
const OLD_STEPS: Step[] = [
  // 1 (45c43e5): who is signed in, the keys, the outbox.
  (db) => {
    db.createObjectStore("session");
    db.createObjectStore("keys");
    db.createObjectStore("items", { keyPath: "id" });
  },
  // 2 (45c43e5): items found by account; the last synced lists.
  (db, tx) => {
    tx.objectStore("items").createIndex("byAccount", "accountId");
    db.createObjectStore("snapshots", { keyPath: "key" });
  },
  // 3 (b070fe1): keys kept wrapped; the lists synced under a bare key go.
  (_db, tx) => {
    tx.objectStore("snapshots").clear();
  },
];

/** Opens the database at `version` as the release of that shape did (its steps from the phone's version). */
function openAsRelease(version: number): Promise<IDBDatabase> {
  return new Promise((ok, no) => {
    const r = indexedDB.open("carebridge-offline", version);
    r.onupgradeneeded = (e) => {
      for (let v = e.oldVersion; v < version; v++) OLD_STEPS[v](r.result, r.transaction!);
    };
    r.onsuccess = () => ok(r.result);
    r.onerror = () => no(r.error);
  });
}

/** Sealed as every release has sealed: 4-byte length, the JSON, the file's bytes; AES-GCM, a 12-byte iv. */
async function sealAsBefore(key: CryptoKey, value: unknown, bytes?: ArrayBuffer) {
  const json = new TextEncoder().encode(JSON.stringify(value));
  const plain = new Uint8Array(4 + json.length + (bytes?.byteLength ?? 0));
  new DataView(plain.buffer).setUint32(0, json.length);
  plain.set(json, 4);
  if (bytes) plain.set(new Uint8Array(bytes), 4 + json.length);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  return { iv: iv.buffer, data: await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, plain) };
}

/** A shape-3 key: PBKDF2-SHA256 of the password, AES-GCM-wrapped with the account id as additional data (b070fe1's keys.ts). */
async function wrapAsShape3(accountId: string, key: CryptoKey, password: string) {
  const salt = crypto.getRandomValues(new Uint8Array(16)).buffer;
  const iterations = 600_000;
  const base = await crypto.subtle.importKey("raw", new TextEncoder().encode(password), "PBKDF2", false, [
    "deriveKey",
  ]);
  const kek = await crypto.subtle.deriveKey(
    { name: "PBKDF2", hash: "SHA-256", salt, iterations },
    base,
    AES,
    false,
    ["wrapKey"],
  );
  const iv = crypto.getRandomValues(new Uint8Array(12)).buffer;
  const wrapped = await crypto.subtle.wrapKey("raw", key, kek, {
    name: "AES-GCM",
    iv,
    additionalData: new TextEncoder().encode(accountId),
  });
  return { kind: "pbkdf2-aes-gcm", salt, iterations, iv, wrapped };
}

const registration: ItemPayload = {
  label: "पंजीकरण: रुक्मिणी देवी",
  fields: { firstName: "रुक्मिणी", lastName: "देवी", consent: "granted", age: "48" },
};
const photo: ItemPayload = {
  label: "Report for Rukmini",
  fields: { type: "Blood test" },
  file: fileOf(5000),
};
const voiceNote: ItemPayload = {
  label: "Voice note",
  fields: {},
  file: fileOf(300, "note.webm", "audio/webm"),
};

/** What an older release kept: the items of two accounts in every state, each with its clear fields. */
async function olderItems(key: CryptoKey, otherKey: CryptoKey) {
  const seal = (k: CryptoKey, p: ItemPayload) => {
    const { file, ...rest } = p;
    return sealAsBefore(
      k,
      { ...rest, file: file ? { name: file.name, type: file.type } : undefined },
      file?.bytes,
    );
  };
  const at = (m: number) => new Date(Date.parse("2026-11-20T08:00:00Z") + m * 60_000).toISOString();
  return [
    {
      id: "item-register",
      accountId: ME,
      kind: "register",
      createdAt: at(1),
      state: "needs-you",
      reason: { status: 422, message: "उम्र जाँचें", errors: { age: ["too old"] } },
      sealed: await seal(key, registration),
    },
    {
      id: "item-upload",
      accountId: ME,
      kind: "upload",
      createdAt: at(2),
      after: "item-register",
      state: "waiting",
      progress: { sent: 2048, total: 5000 },
      uploadUrl: "/api/v1/uploads/up-7",
      sealed: await seal(key, photo),
    },
    {
      id: "item-sent",
      accountId: ME,
      kind: "voice",
      createdAt: at(0),
      state: "sent",
      result: { id: "voice-3" },
      sealed: await seal(key, { label: "Voice note", fields: {} }),
    },
    {
      // Hers, but sealed under a key the phone no longer has: nothing can open it, it stays.
      id: "item-stray",
      accountId: ME,
      kind: "register",
      createdAt: at(4),
      state: "waiting",
      sealed: await seal(strayKey, registration),
    },
    {
      id: "item-other",
      accountId: "acct-other",
      kind: "voice",
      createdAt: at(3),
      state: "waiting",
      sealed: await seal(otherKey, voiceNote),
    },
  ];
}

const OLD_SESSION: OfflineSession = { accountId: ME, role: "HealthWorker", locale: "hi", firstName: "आशा" };

let phone: Phone;
let key: CryptoKey;
let otherKey: CryptoKey;
let strayKey: CryptoKey;
let items: Awaited<ReturnType<typeof olderItems>>;

beforeEach(async () => {
  phone = await newPhone(); // an empty IndexedDB; today's code has not opened it
  key = await crypto.subtle.generateKey(AES, false, ["encrypt", "decrypt"]);
  otherKey = await crypto.subtle.generateKey(AES, false, ["encrypt", "decrypt"]);
  strayKey = await crypto.subtle.generateKey(AES, false, ["encrypt", "decrypt"]);
  items = await olderItems(key, otherKey);
});

/** Today's shape: version 4, its five stores, the items found by account. */
async function expectTodaysShape() {
  const db = await phone.store.offlineDb();
  expect(db.version).toBe(4);
  expect([...db.objectStoreNames].sort()).toEqual(["items", "keys", "prepared", "session", "snapshots"]);
  expect([...db.transaction("items").store.indexNames]).toEqual(["byAccount"]);
}

/** Every item as the older release left it, its clear fields unchanged (the sealed bytes aside). */
async function expectEveryItemKept() {
  const strip = <T extends { id: string; sealed: unknown }>({ sealed: _, ...clear }: T) => clear;
  const now = await rawAll<{ id: string; sealed: unknown }>("items");
  expect(now.map(strip).sort((a, b) => (a.id < b.id ? -1 : 1))).toEqual(
    items.map(strip).sort((a, b) => (a.id < b.id ? -1 : 1)),
  );
  expect((await phone.store.itemsOf(ME)).map((i) => i.id)).toEqual([
    "item-sent",
    "item-register",
    "item-upload",
    "item-stray",
  ]);
  expect((await phone.store.itemsOf("acct-other")).map((i) => i.id)).toEqual(["item-other"]);
}

async function payloadOf(id: string) {
  return phone.store.openPayload((await phone.store.getItem(id))!);
}

/** Whether a key opens an item as it is stored now. */
async function opens(k: CryptoKey, id: string) {
  const { sealed } = (await phone.store.getItem(id))!;
  return crypto.subtle.decrypt({ name: "AES-GCM", iv: sealed.iv }, k, sealed.data).then(
    () => true,
    () => false,
  );
}

/**
 * A bare key (shapes 1 and 2, decision 0072): it opens her outbox as before until her next password
 * sign-in, which seals her items anew under a wrapped key and deletes it; another account's items
 * and bare key are left as they were, and an item the bare key cannot open stays as it is.
 */
async function expectBareKeyReplacedAtSignIn() {
  // On the offline screen no password can be checked against a bare key: it serves as it is.
  phone = await pageLoad();
  expect(await phone.outbox.lockState(ME)).toBe("password");
  expect(await phone.outbox.unlockOutbox(ME, "whatever is typed")).toBe(true);
  expect(await payloadOf("item-upload")).toEqual(photo);
  expect(await payloadOf("item-register")).toEqual(registration);

  // Her password sign-in.
  phone = await pageLoad();
  phone.pending.keepPasswordForOutbox(PASSWORD);
  expect(await phone.outbox.unlockAtSignIn(ME)).toBe(true);
  const db = await phone.store.offlineDb();
  expect(await db.get("keys", ME)).toMatchObject({ kind: "pbkdf2-aes-gcm", iterations: 600_000 });
  expect(await db.get("keys", "acct-other")).toBeInstanceOf(CryptoKey);
  for (const id of ["item-register", "item-upload", "item-sent"]) expect(await opens(key, id)).toBe(false);
  expect(await opens(otherKey, "item-other")).toBe(true);
  expect(await opens(strayKey, "item-stray")).toBe(true);
  await expectEveryItemKept();

  // After a page load her password (and only hers) opens every item, as it was.
  phone = await pageLoad();
  expect(await phone.outbox.unlockOutbox(ME, "whatever is typed")).toBe(false);
  expect(await phone.outbox.unlockOutbox(ME, PASSWORD)).toBe(true);
  expect(await payloadOf("item-upload")).toEqual(photo);
  expect(await payloadOf("item-register")).toEqual(registration);
  expect(await payloadOf("item-sent")).toEqual({ label: "Voice note", fields: {} });
}

describe("a phone whose outbox an earlier release kept", () => {
  it("shape 1 (a bare key, no index, no lists): opened as shape 4, every item kept; her sign-in wraps the key", async () => {
    const db = await openAsRelease(1);
    await rawPut(db, [
      ["session", OLD_SESSION, "current"],
      ["keys", key, ME],
      ["keys", otherKey, "acct-other"],
      ...items.map((i) => ["items", i] as [string, unknown]),
    ]);
    db.close();

    phone = await pageLoad();
    await expectTodaysShape();
    expect(await phone.store.currentSession()).toEqual(OLD_SESSION);
    await expectEveryItemKept();
    await expectBareKeyReplacedAtSignIn();
  });

  it("shape 1 left empty by another script (opened without a version): opened as shape 4, ready to use", async () => {
    await new Promise<void>((ok, no) => {
      const r = indexedDB.open("carebridge-offline");
      r.onsuccess = () => {
        r.result.close();
        ok();
      };
      r.onerror = () => no(r.error);
    });
    await expectTodaysShape();
    expect(await phone.keys.unlock(ME, PASSWORD, { create: true })).toBe("created");
    await phone.store.setSession(WORKER);
    await phone.outbox.keepSnapshot("queue", []);
    expect(await phone.outbox.listItems()).toEqual([]);
  });

  it("shape 2 (bare keys, lists sealed under them): the lists go, every item is kept; her sign-in wraps the key", async () => {
    const db = await openAsRelease(2);
    const list = async (accountId: string, k: CryptoKey, name: string) => ({
      key: `${accountId}:${name}`,
      accountId,
      asOf: "2026-11-20T07:00:00.000Z",
      sealed: await sealAsBefore(k, [{ name: "Sita Devi", phone: "+919812345678" }]),
    });
    await rawPut(db, [
      ["session", { ...OLD_SESSION, centre: WORKER.centre }, "current"],
      ["keys", key, ME],
      ["keys", otherKey, "acct-other"],
      ...items.map((i) => ["items", i] as [string, unknown]),
      ["snapshots", await list(ME, key, "queue")],
      ["snapshots", await list("acct-other", otherKey, "profiles")],
    ]);
    db.close();

    phone = await pageLoad();
    await expectTodaysShape();
    expect(await rawAll("snapshots")).toEqual([]);
    expect(await phone.store.currentSession()).toEqual({ ...OLD_SESSION, centre: WORKER.centre });
    await expectEveryItemKept();
    await expectBareKeyReplacedAtSignIn();
  });

  it("shape 3 (a wrapped key): opened as shape 4 with a place for a prepared key; the key, the lists and every item stay hers", async () => {
    const extractable = await crypto.subtle.generateKey(AES, true, ["encrypt", "decrypt"]);
    items = await olderItems(extractable, otherKey);
    const db = await openAsRelease(3);
    await rawPut(db, [
      ["session", { ...OLD_SESSION, centre: WORKER.centre }, "current"],
      ["keys", await wrapAsShape3(ME, extractable, PASSWORD), ME],
      ...items.map((i) => ["items", i] as [string, unknown]),
      [
        "snapshots",
        {
          key: `${ME}:queue`,
          accountId: ME,
          asOf: "2026-11-26T07:00:00.000Z",
          sealed: await sealAsBefore(extractable, [{ name: "Sita Devi" }]),
        },
      ],
    ]);
    db.close();

    phone = await pageLoad();
    await expectTodaysShape();
    await expectEveryItemKept();
    expect(await rawAll("prepared")).toEqual([]);
    expect(await phone.outbox.lockState(ME)).toBe("password");
    expect(await phone.outbox.unlockOutbox(ME, "not her password")).toBe(false);
    expect(await phone.outbox.unlockOutbox(ME, PASSWORD)).toBe(true);
    expect(await payloadOf("item-upload")).toEqual(photo);
    expect(await payloadOf("item-register")).toEqual(registration);
    expect(await phone.outbox.loadSnapshot(ME, "queue")).toEqual({
      asOf: "2026-11-26T07:00:00.000Z",
      data: [{ name: "Sita Devi" }],
    });
  });

  it("today's shape lets a newer release open it: this page closes its database when asked", async () => {
    await phone.store.offlineDb();
    const newer = await new Promise<IDBDatabase>((ok, no) => {
      const r = indexedDB.open("carebridge-offline", 5);
      r.onblocked = () => no(new Error("blocked by the page's open database"));
      r.onsuccess = () => ok(r.result);
      r.onerror = () => no(r.error);
    });
    expect(newer.version).toBe(5);
    newer.close();
  });
});
