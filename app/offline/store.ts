import { openDB, type DBSchema, type IDBPDatabase, type IDBPTransaction, type StoreNames } from "idb";
import type { ItemPayload, OfflineSession, StoredItem } from "./types";

/**
 * The browser's offline database (decision 0063), used by the pages and the service worker alike:
 * who is signed in here (`session`), one AES-GCM key per account (`keys`), the outbox (`items`)
 * and the last synced lists (`snapshots`). Everything a person recorded is sealed with their
 * account's key; the states are in the clear so the service worker can order and count.
 *
 * The account's key is kept only wrapped with a key derived from the person's password (decision
 * 0072): PBKDF2-SHA256, a salt per account. Unwrapped, it is held in this realm's memory only
 * (`unlock`), so nothing of a signed-out account opens on the phone without her password.
 */

export const DB_NAME = "carebridge-offline";

type Snapshot = { key: string; accountId: string; asOf: string; sealed: StoredItem["sealed"] };

/** An account's key as the phone keeps it (decision 0072): AES-GCM-wrapped with a password-derived key. */
export type WrappedKey = {
  kind: "pbkdf2-aes-gcm";
  salt: ArrayBuffer;
  iterations: number;
  iv: ArrayBuffer;
  wrapped: ArrayBuffer;
};

/**
 * A key the sign-in page made before the password left it (decision 0087): a new random key,
 * wrapped like any account's, for no account yet (the additional data is `prepared:<id>`). The
 * account the sign-in leads to takes it as its own; one at most, kept as "current".
 */
export type PreparedKey = WrappedKey & { id: string; at: number };

interface OfflineDB extends DBSchema {
  session: { key: string; value: OfflineSession };
  /** A bare CryptoKey is how versions 1 and 2 kept it: usable by any script, replaced at unlock. */
  keys: { key: string; value: WrappedKey | CryptoKey };
  items: { key: string; value: StoredItem; indexes: { byAccount: string } };
  snapshots: { key: string; value: Snapshot };
  prepared: { key: string; value: PreparedKey };
}

type Upgrade = (
  db: IDBPDatabase<OfflineDB>,
  tx: IDBPTransaction<OfflineDB, StoreNames<OfflineDB>[], "versionchange">,
) => void;

/**
 * The database's shapes, one step per version. A new shape is a new step added at the end, never a
 * changed one: a phone with items waiting may open the app at any older version
 * (tests/unit/offline-upgrades.test.ts writes every older shape as its release did, with items in
 * it, then opens it with this code; tests/e2e/offline-outbox.spec.ts does so for shape 1 in Chromium).
 */
export const UPGRADES: Upgrade[] = [
  // 1: who is signed in, the keys, the outbox.
  (db) => {
    for (const name of ["session", "keys"] as const)
      if (!db.objectStoreNames.contains(name)) db.createObjectStore(name);
    if (!db.objectStoreNames.contains("items")) db.createObjectStore("items", { keyPath: "id" });
  },
  // 2: items found by account; the last synced lists.
  (db, tx) => {
    // An empty database some other script opened at version 1 gets version 1's stores first.
    UPGRADES[0](db, tx);
    const items = tx.objectStore("items");
    if (!items.indexNames.contains("byAccount")) items.createIndex("byAccount", "accountId");
    if (!db.objectStoreNames.contains("snapshots")) db.createObjectStore("snapshots", { keyPath: "key" });
  },
  // 3: keys are kept wrapped (decision 0072). The lists synced under an unwrapped key go (they are
  // fetched again); the items are sealed anew with a wrapped key at the account's next unlock.
  (db, tx) => {
    UPGRADES[1](db, tx);
    void tx.objectStore("snapshots").clear();
  },
  // 4: the key a password sign-in prepares before it is sent (decision 0087).
  (db, tx) => {
    UPGRADES[1](db, tx);
    if (!db.objectStoreNames.contains("prepared")) db.createObjectStore("prepared");
  },
];
export const DB_VERSION = UPGRADES.length;

let opened: Promise<IDBPDatabase<OfflineDB>> | null = null;

export function offlineDb(): Promise<IDBPDatabase<OfflineDB>> {
  opened ??= openDB<OfflineDB>(DB_NAME, DB_VERSION, {
    upgrade(db, oldVersion, _newVersion, tx) {
      for (let v = oldVersion; v < DB_VERSION; v++) UPGRADES[v](db, tx);
    },
    // Another tab (or a new service worker) wants a newer shape: let it.
    blocking() {
      void opened?.then((db) => db.close());
      opened = null;
    },
    terminated() {
      opened = null;
    },
  }).catch((err) => {
    opened = null;
    throw err;
  });
  return opened;
}

/** Whether this browser keeps the outbox's database (asking makes none; a browser that cannot tell says yes). */
export async function offlineDbExists(): Promise<boolean> {
  if (typeof indexedDB.databases !== "function") return true;
  return (await indexedDB.databases()).some((d) => d.name === DB_NAME);
}

export async function currentSession(): Promise<OfflineSession | null> {
  return (await (await offlineDb()).get("session", "current")) ?? null;
}

export async function setSession(session: OfflineSession | null): Promise<void> {
  const db = await offlineDb();
  if (session) await db.put("session", session, "current");
  else await db.delete("session", "current");
}

/** The keys unlocked in this page or worker: memory only, gone with it, at sign-out, or by `lock`. */
const unlocked = new Map<string, CryptoKey>();

/** The account's outbox is locked here: her password (or the page that has it) must unlock it. */
export class Locked extends Error {
  constructor() {
    super("locked");
  }
}

export function isUnlocked(accountId: string): boolean {
  return unlocked.has(accountId);
}

/** The key, unlocked in this realm (a page's unlock handed to the service worker, decision 0072). */
export function holdKey(accountId: string, key: CryptoKey): void {
  unlocked.set(accountId, key);
}

export function heldKey(accountId: string): CryptoKey | undefined {
  return unlocked.get(accountId);
}

/** Forgets unlocked keys (one account's, or every one). */
export function lock(accountId?: string): void {
  if (accountId) unlocked.delete(accountId);
  else unlocked.clear();
}

function keyOf(accountId: string): CryptoKey {
  const key = unlocked.get(accountId);
  if (!key) throw new Locked();
  return key;
}

/** Payload → bytes: 4-byte length, the JSON (without the file's bytes), then the file's bytes. */
function pack(value: unknown, bytes?: ArrayBuffer): Uint8Array<ArrayBuffer> {
  const json = new TextEncoder().encode(JSON.stringify(value));
  const out = new Uint8Array(4 + json.length + (bytes?.byteLength ?? 0));
  new DataView(out.buffer).setUint32(0, json.length);
  out.set(json, 4);
  if (bytes) out.set(new Uint8Array(bytes), 4 + json.length);
  return out;
}

function unpack(buffer: ArrayBuffer): { value: unknown; bytes: ArrayBuffer } {
  const n = new DataView(buffer).getUint32(0);
  const value = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, 4, n))) as unknown;
  return { value, bytes: buffer.slice(4 + n) };
}

async function seal(accountId: string, plain: Uint8Array<ArrayBuffer>): Promise<StoredItem["sealed"]> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const data = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, keyOf(accountId), plain);
  return { iv: iv.buffer, data };
}

async function open(accountId: string, sealed: StoredItem["sealed"]): Promise<ArrayBuffer> {
  return crypto.subtle.decrypt({ name: "AES-GCM", iv: sealed.iv }, keyOf(accountId), sealed.data);
}

export async function sealPayload(accountId: string, payload: ItemPayload): Promise<StoredItem["sealed"]> {
  const { file, ...rest } = payload;
  const head = { ...rest, file: file ? { name: file.name, type: file.type } : undefined };
  return seal(accountId, pack(head, file?.bytes));
}

export async function openPayload(item: StoredItem): Promise<ItemPayload> {
  const { value, bytes } = unpack(await open(item.accountId, item.sealed));
  const head = value as Omit<ItemPayload, "file"> & { file?: { name: string; type: string } };
  return { ...head, file: head.file ? { ...head.file, bytes } : undefined };
}

export async function putItem(item: StoredItem): Promise<void> {
  await (await offlineDb()).put("items", item);
}

export async function getItem(id: string): Promise<StoredItem | undefined> {
  return (await offlineDb()).get("items", id);
}

/** An account's items, oldest first (the order they are sent in). */
export async function itemsOf(accountId: string): Promise<StoredItem[]> {
  const all = await (await offlineDb()).getAllFromIndex("items", "byAccount", accountId);
  return all.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
}

/** Changes one item in its own transaction (the page and the service worker may both be sending). */
export async function updateItem(id: string, change: (item: StoredItem) => StoredItem): Promise<void> {
  const db = await offlineDb();
  const tx = db.transaction("items", "readwrite");
  const item = await tx.store.get(id);
  if (item) await tx.store.put(change(item));
  await tx.done;
}

/** Deletes an item if it is (still) in a state that may be deleted. */
export async function deleteItemIf(id: string, allowed: (item: StoredItem) => boolean): Promise<boolean> {
  const db = await offlineDb();
  const tx = db.transaction("items", "readwrite");
  const item = await tx.store.get(id);
  const ok = !!item && allowed(item);
  if (ok) await tx.store.delete(id);
  await tx.done;
  return ok;
}

export async function saveSnapshot(accountId: string, name: string, data: unknown): Promise<void> {
  const sealed = await seal(accountId, pack(data));
  const asOf = new Date().toISOString();
  await (await offlineDb()).put("snapshots", { key: `${accountId}:${name}`, accountId, asOf, sealed });
}

export async function loadSnapshot<T>(
  accountId: string,
  name: string,
): Promise<{ asOf: string; data: T } | null> {
  const row = await (await offlineDb()).get("snapshots", `${accountId}:${name}`);
  if (!row) return null;
  const { value } = unpack(await open(accountId, row.sealed));
  return { asOf: row.asOf, data: value as T };
}

/** Tells every page and the service worker that the outbox changed. */
export function announce(): void {
  try {
    const ch = new BroadcastChannel("carebridge-outbox");
    ch.postMessage("changed");
    ch.close();
  } catch {
    /* no BroadcastChannel: pages poll */
  }
}
