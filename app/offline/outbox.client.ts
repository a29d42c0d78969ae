import { useCallback, useEffect, useState } from "react";
import { requestOutboxSync } from "~/sw/sync.client";
import { sendOutbox } from "./send";
import {
  announce,
  currentSession,
  deleteItemIf,
  itemsOf,
  loadSnapshot,
  openPayload,
  putItem,
  saveSnapshot,
  sealPayload,
  setSession,
  updateItem,
} from "./store";
import type { ItemKind, ItemPayload, OfflineSession, StoredItem } from "./types";

/**
 * The pages' side of the outbox (decision 0063): remember who is signed in, keep an action as an
 * item, list the items with their labels, send now, and say how much room is left.
 */

export { currentSession, loadSnapshot, sendOutbox };

/** Room kept free on the phone beyond a new file: the browser and other sites need space too. */
export const QUOTA_MARGIN_BYTES = 50 * 1024 * 1024;

export class NoRoom extends Error {
  constructor(
    readonly usage: number,
    readonly quota: number,
  ) {
    super("no-room");
  }
}

export type ListedItem = StoredItem & { label: string };

/** Called by signed-in pages: this account is the one whose items this phone shows and sends. */
export async function rememberSession(session: OfflineSession): Promise<void> {
  await setSession(session);
}

/** Signing out: the items stay, sealed, for the same account; nobody is signed in here now. */
export async function forgetSession(): Promise<void> {
  await setSession(null);
}

export async function storageInfo(): Promise<{ usage: number; quota: number; persisted: boolean } | null> {
  if (!navigator.storage?.estimate) return null;
  const { usage = 0, quota = 0 } = await navigator.storage.estimate();
  const persisted = (await navigator.storage.persisted?.()) ?? false;
  return { usage, quota, persisted };
}

/** Asks the browser not to clear the outbox under storage pressure (it may say no). */
export async function askPersistence(): Promise<boolean> {
  try {
    return (await navigator.storage?.persist?.()) ?? false;
  } catch {
    return false;
  }
}

/** Refuses a file that would bring the phone's storage close to its limit (NoRoom). */
export async function checkRoom(bytes: number): Promise<void> {
  const info = await storageInfo();
  if (!info || !info.quota) return;
  if (info.usage + bytes * 1.2 + QUOTA_MARGIN_BYTES > info.quota) throw new NoRoom(info.usage, info.quota);
}

/** Keeps one action as an outbox item (sealed with the account's key) and starts sending. */
export async function enqueue(kind: ItemKind, payload: ItemPayload, after?: string): Promise<StoredItem> {
  const session = await currentSession();
  if (!session) throw new Error("no-session");
  if (payload.file) await checkRoom(payload.file.bytes.byteLength);
  const item: StoredItem = {
    id: crypto.randomUUID(),
    accountId: session.accountId,
    kind,
    createdAt: new Date().toISOString(),
    centreId: session.centre?._id,
    after,
    state: "waiting",
    sealed: await sealPayload(session.accountId, payload),
  };
  await putItem(item);
  announce();
  void kick();
  return item;
}

/** Sending now and, where the browser has it, once more by Background Sync when the link returns. */
export async function kick(): Promise<void> {
  await requestOutboxSync();
  if (navigator.onLine) await sendOutbox().catch(() => {});
}

export async function retry(id: string): Promise<void> {
  await updateItem(id, (i) => ({ ...i, state: "waiting", reason: undefined }));
  // What waited for it waits again.
  const session = await currentSession();
  for (const i of session ? await itemsOf(session.accountId) : [])
    if (i.after === id && i.state === "needs-you" && i.reason?.waitsFor === id)
      await updateItem(i.id, (x) => ({ ...x, state: "waiting", reason: undefined }));
  announce();
  void kick();
}

/**
 * Only an item that needs the person can be removed. What came after it stays, saying it cannot go
 * (the person removes it too, knowingly): nothing leaves the outbox unseen.
 */
export async function remove(id: string): Promise<void> {
  await deleteItemIf(id, (i) => i.state === "needs-you");
  announce();
}

export async function listItems(): Promise<ListedItem[]> {
  const session = await currentSession();
  if (!session) return [];
  const items = await itemsOf(session.accountId);
  return Promise.all(
    items.map(async (i) => {
      try {
        return { ...i, label: (await openPayload(i)).label };
      } catch {
        return { ...i, label: "" };
      }
    }),
  );
}

export async function keepSnapshot(name: string, data: unknown): Promise<void> {
  const session = await currentSession();
  if (session) await saveSnapshot(session.accountId, name, data);
}

/** The outbox as the page shows it, kept up to date by the service worker's and other tabs' news. */
export function useOutbox() {
  const [items, setItems] = useState<ListedItem[] | null>(null);
  const [online, setOnline] = useState(true);
  const refresh = useCallback(() => {
    listItems().then(setItems, () => setItems([]));
  }, []);
  useEffect(() => {
    setOnline(navigator.onLine);
    refresh();
    let ch: BroadcastChannel | null = null;
    try {
      ch = new BroadcastChannel("carebridge-outbox");
      ch.onmessage = refresh;
    } catch {
      /* polled below */
    }
    const poll = window.setInterval(refresh, 5_000);
    const up = () => {
      setOnline(true);
      void kick().finally(refresh);
    };
    const down = () => setOnline(false);
    window.addEventListener("online", up);
    window.addEventListener("offline", down);
    if (navigator.onLine) void kick().finally(refresh);
    return () => {
      ch?.close();
      window.clearInterval(poll);
      window.removeEventListener("online", up);
      window.removeEventListener("offline", down);
    };
  }, [refresh]);
  return { items, online, refresh };
}
