import "fake-indexeddb/auto";
import { IDBFactory } from "fake-indexeddb";
import { vi } from "vitest";
import type { ItemKind, ItemPayload, OfflineSession, StoredItem } from "~/offline/types";

/**
 * The offline outbox below the browser (decision 0095): a phone is an in-memory IndexedDB
 * (fake-indexeddb) and the outbox's modules as a page loads them; WebCrypto and Web Locks are
 * Node's own. A page load keeps the database and loses what the modules held in memory (the
 * unlocked keys, the password typed on /login), as a browser's does.
 */
export type Phone = {
  store: typeof import("~/offline/store");
  keys: typeof import("~/offline/keys");
  outbox: typeof import("~/offline/outbox.client");
  pending: typeof import("~/offline/pending.client");
  send: typeof import("~/offline/send");
};

/** A phone that has never kept the outbox: an empty IndexedDB, the modules freshly loaded. */
export async function newPhone(): Promise<Phone> {
  globalThis.indexedDB = new IDBFactory();
  return pageLoad();
}

/** A full page load on the same phone: the database stays, memory is new. */
export async function pageLoad(): Promise<Phone> {
  vi.resetModules();
  const [store, keys, outbox, pending, send] = await Promise.all([
    import("~/offline/store"),
    import("~/offline/keys"),
    import("~/offline/outbox.client"),
    import("~/offline/pending.client"),
    import("~/offline/send"),
  ]);
  return { store, keys, outbox, pending, send };
}

/** The raw database, opened without the app's code (what a script on the page could read). */
export function rawDb(version?: number, upgrade?: (db: IDBDatabase) => void): Promise<IDBDatabase> {
  return new Promise((ok, no) => {
    const r = indexedDB.open("carebridge-offline", version);
    r.onupgradeneeded = () => upgrade?.(r.result);
    r.onsuccess = () => ok(r.result);
    r.onerror = () => no(r.error);
  });
}

/** Every record of one store, as a script would see it. */
export async function rawAll<T = unknown>(name: string): Promise<T[]> {
  const db = await rawDb();
  try {
    const req = db.transaction(name).objectStore(name).getAll();
    return await new Promise<T[]>((ok, no) => {
      req.onsuccess = () => ok(req.result as T[]);
      req.onerror = () => no(req.error);
    });
  } finally {
    db.close();
  }
}

/** Writes records with a raw transaction: [store, value, key?]. */
export async function rawPut(db: IDBDatabase, rows: [string, unknown, string?][]): Promise<void> {
  const tx = db.transaction([...new Set(rows.map((r) => r[0]))], "readwrite");
  for (const [name, value, key] of rows) tx.objectStore(name).put(value, key);
  await new Promise<void>((ok, no) => {
    tx.oncomplete = () => ok();
    tx.onerror = () => no(tx.error);
  });
}

export const WORKER: OfflineSession = {
  accountId: "acct-asha",
  role: "HealthWorker",
  locale: "hi",
  firstName: "Asha",
  centre: { _id: "centre-sonpur", name: "Sonpur sub-centre" },
};

let clock = Date.parse("2026-11-20T08:00:00.000Z");

/**
 * Keeps one item for the signed-in account, as `enqueue` does (sealed with her key), at a time of
 * the test's choosing (each call a minute after the last unless `at` says), so the order is known.
 */
export async function keepItem(
  phone: Phone,
  kind: ItemKind,
  payload: ItemPayload,
  extra: Partial<Pick<StoredItem, "after" | "centreId" | "createdAt" | "state" | "accountId">> = {},
): Promise<StoredItem> {
  const session = await phone.store.currentSession();
  const accountId = extra.accountId ?? session!.accountId;
  clock += 60_000;
  const item: StoredItem = {
    id: crypto.randomUUID(),
    accountId,
    kind,
    createdAt: new Date(clock).toISOString(),
    centreId: session?.accountId === accountId ? session.centre?._id : undefined,
    state: "waiting",
    ...extra,
    sealed: await phone.store.sealPayload(accountId, payload),
  };
  await phone.store.putItem(item);
  return item;
}

/** A file of `n` bytes, each byte its position mod 251 (so a misplaced chunk shows). */
export function fileOf(n: number, name = "report.webp", type = "image/webp") {
  const bytes = new Uint8Array(n);
  for (let i = 0; i < n; i++) bytes[i] = i % 251;
  return { name, type, bytes: bytes.buffer };
}
