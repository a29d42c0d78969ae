import { useCallback, useEffect, useState } from "react";
import { requestOutboxSync } from "~/offline/sync.client";
import {
  dropKey,
  forgetSignedIn,
  hasKey,
  hasPrepared,
  hasUnsent,
  rewrap,
  rewrapWith,
  unlock,
  type Rewrap,
} from "./keys";
import { takePassword } from "./pending.client";
import { sendOutbox } from "./send";
import {
  announce,
  currentSession,
  deleteItemIf,
  heldKey,
  isUnlocked,
  itemsOf,
  loadSnapshot,
  offlineDbExists,
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
  await forgetOthers(session.accountId);
  await setSession(session);
}

/**
 * Someone else is named here: their lists and unlocked key go first (decision 0072). The key
 * prepared at a sign-in stays: it is this account's sign-in's (decision 0087).
 */
export async function forgetOthers(accountId: string): Promise<void> {
  const before = await currentSession();
  if (before && before.accountId !== accountId) await forgetSignedIn({ keepPrepared: true });
}

/**
 * Signing out (decision 0072): nobody is signed in here now, the synced lists go, the unlocked key
 * is forgotten here and in the service worker; the items stay, sealed, for the same account. A
 * phone that never kept an outbox (an expert's, an admin's) gets no database from this.
 */
export async function forgetSession(): Promise<void> {
  rewrapping = null;
  navigator.serviceWorker?.controller?.postMessage({ type: "LOCK" });
  if (!(await offlineDbExists())) return;
  await forgetSignedIn();
}

/** A sign-in with a new password found the key wrapped with the earlier one (decision 0072). */
let rewrapping: Rewrap | null = null;

/**
 * Right after a password sign-in, on the dashboard (decision 0072): the password typed on /login
 * unlocks this phone's key for the account, or the key the sign-in page prepared before sending it
 * becomes hers (decision 0087; a new one is made if there is none). If the password does not open
 * her key (it changed since), a key with nothing unsent goes and the prepared one takes its place;
 * otherwise the offline screen asks for the earlier password once. Without a typed password (a
 * code sign-in, a page load) nothing changes: the outbox stays as it was, locked or not, and a
 * prepared key waits for her password on the offline screen.
 */
export async function unlockAtSignIn(accountId: string): Promise<boolean> {
  const typed = takePassword();
  if (typed && !isUnlocked(accountId))
    unlocking = (async () => {
      const { password } = typed;
      const prepared = await (typed.prepared ?? null);
      const result = await unlock(accountId, password, { create: true, prepared });
      if (result !== "wrong") return;
      if (!(await hasUnsent(accountId))) {
        await dropKey(accountId);
        await unlock(accountId, password, { create: true, prepared });
      } else rewrapping = await rewrapWith(accountId, password, prepared);
    })();
  // The dashboard's effect may run again while the first run derives the key: both wait for it.
  await unlocking?.catch(() => {});
  handKeyToWorker(accountId);
  return isUnlocked(accountId);
}

let unlocking: Promise<void> | null = null;

/** What the offline screen asks for: nothing, the password, the earlier password, or a password sign-in. */
export async function lockState(accountId: string): Promise<"open" | "password" | "earlier" | "sign-in"> {
  if (isUnlocked(accountId)) return "open";
  if (rewrapping?.accountId === accountId) return "earlier";
  return (await hasKey(accountId)) || (await hasPrepared()) ? "password" : "sign-in";
}

/** The password typed on the offline screen, checked here by unwrapping the key (decision 0072). */
export async function unlockOutbox(accountId: string, password: string): Promise<boolean> {
  const ok =
    rewrapping?.accountId === accountId
      ? await rewrap(password, rewrapping)
      : (await unlock(accountId, password)) !== "wrong";
  if (ok) rewrapping = null;
  handKeyToWorker(accountId);
  return ok;
}

/**
 * The service worker sends too (Background Sync): it gets the unlocked key from the page, in
 * memory (a CryptoKey is passed as itself, still not extractable). A worker restarted with no page
 * open has none and sends nothing until a page unlocks again.
 */
function handKeyToWorker(accountId: string): void {
  const key = heldKey(accountId);
  if (key) navigator.serviceWorker?.controller?.postMessage({ type: "UNLOCK", accountId, key });
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
  const session = await currentSession();
  if (session) handKeyToWorker(session.accountId);
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
  if (session && isUnlocked(session.accountId)) await saveSnapshot(session.accountId, name, data);
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
