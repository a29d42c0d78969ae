import type { Prepared } from "./pending.client";
import {
  holdKey,
  itemsOf,
  lock,
  offlineDb,
  offlineDbExists,
  type PreparedKey,
  type WrappedKey,
} from "./store";
import type { StoredItem } from "./types";

/**
 * The account's key, wrapped with her password (decision 0072). The phone keeps only the wrapped
 * key (PBKDF2-SHA256 from the password and a salt per account, then AES-GCM with the account id as
 * additional data); unwrapping it is the local check of a typed password. The unwrapped key lives
 * in the memory of the page or worker that unlocked it (app/offline/store.ts `holdKey`).
 */

/**
 * PBKDF2-SHA256 work factor: ~84 ms in this machine's Chromium (600,000), under a second on a
 * cheap phone; OWASP's 2023 figure. Kept with each wrapped key, so it can be raised later.
 */
export const PBKDF2_ITERATIONS = 600_000;

const bytes = (s: string) => new TextEncoder().encode(s);

async function passwordKey(password: string, salt: ArrayBuffer, iterations: number): Promise<CryptoKey> {
  const base = await crypto.subtle.importKey("raw", bytes(password), "PBKDF2", false, ["deriveKey"]);
  return crypto.subtle.deriveKey(
    { name: "PBKDF2", hash: "SHA-256", salt, iterations },
    base,
    { name: "AES-GCM", length: 256 },
    false,
    ["wrapKey", "unwrapKey"],
  );
}

const AES = { name: "AES-GCM", length: 256 } as const;

/**
 * Wraps a (transiently extractable) key for this account; the account id is bound in as AAD (a
 * prepared key's, decision 0087, binds `prepared:<id>`: it belongs to no account yet).
 */
async function wrap(
  accountId: string,
  key: CryptoKey,
  kek: CryptoKey,
  salt: ArrayBuffer,
  iterations: number,
) {
  const iv = crypto.getRandomValues(new Uint8Array(12)).buffer;
  const wrapped = await crypto.subtle.wrapKey("raw", key, kek, {
    name: "AES-GCM",
    iv,
    additionalData: bytes(accountId),
  });
  return { kind: "pbkdf2-aes-gcm", salt, iterations, iv, wrapped } satisfies WrappedKey;
}

/** Opens a wrapped key with the key that wrapped it: the key, or null when it is not the one. */
async function openWith(
  boundTo: string,
  found: WrappedKey,
  kek: CryptoKey,
  extractable: boolean,
): Promise<CryptoKey | null> {
  try {
    return await crypto.subtle.unwrapKey(
      "raw",
      found.wrapped,
      kek,
      { name: "AES-GCM", iv: found.iv, additionalData: bytes(boundTo) },
      AES,
      extractable,
      ["encrypt", "decrypt"],
    );
  } catch {
    return null; // AES-GCM's tag does not match: another password
  }
}

/** Opens a wrapped key with a password: the key, or null when the password is not the one. */
async function unwrap(
  accountId: string,
  found: WrappedKey,
  password: string,
  extractable = false,
): Promise<CryptoKey | null> {
  return openWith(accountId, found, await passwordKey(password, found.salt, found.iterations), extractable);
}

const preparedFor = (id: string) => `prepared:${id}`;

/**
 * On the sign-in page, before the password is sent (decision 0087): what makes an account's key
 * slow — deriving the key that wraps it — is done here, and a new key is stored wrapped with it
 * (for no account yet; it replaces any earlier one), so that a page load right after the sign-in
 * cannot lose it. The wrapping key stays in this page's memory; the stored key is as safe as any
 * account's: only the password opens it.
 */
export async function prepareKey(password: string): Promise<Prepared> {
  const salt = crypto.getRandomValues(new Uint8Array(16)).buffer;
  const kek = await passwordKey(password, salt, PBKDF2_ITERATIONS);
  const key = await crypto.subtle.generateKey(AES, true, ["encrypt", "decrypt"]);
  const id = crypto.randomUUID();
  const kept = await wrap(preparedFor(id), key, kek, salt, PBKDF2_ITERATIONS);
  await (await offlineDb()).put("prepared", { ...kept, id, at: Date.now() }, "current");
  return { id, kek, salt };
}

/**
 * Forgets the prepared key (only the one with `id`, when given): its sign-in was refused, another
 * began, or nobody is signed in any more. A browser without the outbox's database gets none.
 */
export async function discardPrepared(id?: string): Promise<void> {
  if (!(await offlineDbExists())) return;
  const db = await offlineDb();
  const tx = db.transaction("prepared", "readwrite");
  const found = await tx.store.get("current");
  if (found && (!id || found.id === id)) await tx.store.delete("current");
  await tx.done;
}

/**
 * The prepared key taken by the account: opened with the key that wrapped it (in memory at the
 * sign-in, derived again from her password after a page load) and wrapped for her, with the same
 * salt. Null when that key does not open it (another password).
 */
async function takePrepared(
  accountId: string,
  found: PreparedKey,
  kek: CryptoKey,
): Promise<[WrappedKey, CryptoKey] | null> {
  const key = await openWith(preparedFor(found.id), found, kek, true);
  if (!key) return null;
  return [await wrap(accountId, key, kek, found.salt, found.iterations), await nonExtractable(key)];
}

/** A new key for the account, wrapped with this password: [what to keep, the key for memory]. */
async function newKey(accountId: string, password: string): Promise<[WrappedKey, CryptoKey]> {
  const key = await crypto.subtle.generateKey(AES, true, ["encrypt", "decrypt"]);
  const salt = crypto.getRandomValues(new Uint8Array(16)).buffer;
  const kept = await wrap(
    accountId,
    key,
    await passwordKey(password, salt, PBKDF2_ITERATIONS),
    salt,
    PBKDF2_ITERATIONS,
  );
  return [kept, await nonExtractable(key)];
}

/** Memory holds a copy nobody can export. */
async function nonExtractable(key: CryptoKey): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", await crypto.subtle.exportKey("raw", key), AES, false, [
    "encrypt",
    "decrypt",
  ]);
}

function isWrapped(value: WrappedKey | CryptoKey | undefined): value is WrappedKey {
  return !!value && (value as WrappedKey).kind === "pbkdf2-aes-gcm";
}

/** Whether this phone keeps a key for the account (one a password may unlock). */
export async function hasKey(accountId: string): Promise<boolean> {
  return !!(await (await offlineDb()).get("keys", accountId));
}

/** Whether a key prepared at the sign-in waits to be taken (decision 0087): her password takes it. */
export async function hasPrepared(): Promise<boolean> {
  return !!(await (await offlineDb()).get("prepared", "current"));
}

/** Whether the account has anything on this phone not sent yet. */
export async function hasUnsent(accountId: string): Promise<boolean> {
  return (await itemsOf(accountId)).some((i) => i.state !== "sent");
}

export type UnlockResult = "unlocked" | "created" | "wrong";

/**
 * Unlocks the account's outbox with her password, checked here by unwrapping (decision 0072):
 * "wrong" leaves it locked. A phone with no key for her makes one only at a password sign-in
 * (`create`) — the key the sign-in page prepared before sending it (`prepared`, decision 0087), or
 * else a new one — or takes, with her password, the key prepared at the sign-in that a page load
 * cut short. A key kept the old, unwrapped way is replaced and her items sealed anew under it.
 */
export async function unlock(
  accountId: string,
  password: string,
  { create = false, prepared = null }: { create?: boolean; prepared?: Prepared | null } = {},
): Promise<UnlockResult> {
  const db = await offlineDb();
  const found = await db.get("keys", accountId);
  if (isWrapped(found)) {
    const key = await unwrap(accountId, found, password);
    if (!key) return "wrong";
    holdKey(accountId, key);
    // She has a key here: the one prepared at this sign-in is not needed.
    if (prepared) await discardPrepared(prepared.id);
    return "unlocked";
  }
  if (found && !create) {
    // Kept the old way: no password can be checked against it, and it opens its data for anyone
    // already. It serves as it is until a password sign-in (checked by the server) replaces it.
    holdKey(accountId, found);
    return "unlocked";
  }
  const current = await db.get("prepared", "current");
  let made: [WrappedKey, CryptoKey] | null = null;
  if (current) {
    // At the sign-in its wrapping key is in memory; after a page load her password derives it.
    const kek =
      prepared?.id === current.id
        ? prepared.kek
        : !create
          ? await passwordKey(password, current.salt, current.iterations)
          : null;
    if (kek) made = await takePrepared(accountId, current, kek);
  }
  // The offline screen makes no key from a password no server checked: only the prepared one.
  if (!made && !create) return "wrong";
  const [kept, held] = made ?? (await newKey(accountId, password));
  if (found) await resealWith(accountId, found, held);
  const tx = db.transaction(["keys", "prepared"], "readwrite");
  const raced = await tx.objectStore("keys").get(accountId);
  if (isWrapped(raced)) {
    await tx.done;
    return unlock(accountId, password); // another tab made it first
  }
  await tx.objectStore("keys").put(kept, accountId);
  // Taken, or (at a sign-in that made its own) an earlier attempt's: either way it goes, with the put.
  const still = await tx.objectStore("prepared").get("current");
  if (still && (create || still.id === current?.id)) await tx.objectStore("prepared").delete("current");
  await tx.done;
  holdKey(accountId, held);
  return found ? "unlocked" : "created";
}

/**
 * A key kept by versions 1 and 2 (usable by anyone on the phone): the account's items are opened
 * with it and sealed with the new key; its lists go (fetched again). Items it cannot open stay.
 */
async function resealWith(accountId: string, old: CryptoKey, key: CryptoKey): Promise<void> {
  const db = await offlineDb();
  const resealed: StoredItem[] = [];
  for (const item of await itemsOf(accountId)) {
    try {
      const plain = await crypto.subtle.decrypt(
        { name: "AES-GCM", iv: item.sealed.iv },
        old,
        item.sealed.data,
      );
      const iv = crypto.getRandomValues(new Uint8Array(12));
      const data = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, plain);
      resealed.push({ ...item, sealed: { iv: iv.buffer, data } });
    } catch {
      /* not sealed with this key: left as it is */
    }
  }
  const tx = db.transaction(["items", "snapshots"], "readwrite");
  for (const item of resealed) {
    const now = await tx.objectStore("items").get(item.id);
    if (now) await tx.objectStore("items").put({ ...now, sealed: item.sealed });
  }
  for (const key of await tx.objectStore("snapshots").getAllKeys())
    if (key.startsWith(`${accountId}:`)) await tx.objectStore("snapshots").delete(key);
  await tx.done;
}

/** The new password's wrapping key, kept in memory instead of the password itself. */
export type Rewrap = { accountId: string; kek: CryptoKey; salt: ArrayBuffer };

/**
 * The new password's wrapping key: the one the sign-in page derived (decision 0087; the key it
 * prepared is then not needed), or one derived now.
 */
export async function rewrapWith(
  accountId: string,
  password: string,
  prepared: Prepared | null = null,
): Promise<Rewrap> {
  if (prepared) {
    await discardPrepared(prepared.id);
    return { accountId, kek: prepared.kek, salt: prepared.salt };
  }
  const salt = crypto.getRandomValues(new Uint8Array(16)).buffer;
  return { accountId, kek: await passwordKey(password, salt, PBKDF2_ITERATIONS), salt };
}

/**
 * The password changed since this phone wrapped the key (a sign-in with the new one did not open
 * it): the earlier password opens it, and it is wrapped again for the new one.
 */
export async function rewrap(earlier: string, next: Rewrap): Promise<boolean> {
  const { accountId } = next;
  const db = await offlineDb();
  const found = await db.get("keys", accountId);
  if (!isWrapped(found)) return false;
  const key = await unwrap(accountId, found, earlier, true);
  if (!key) return false;
  await db.put("keys", await wrap(accountId, key, next.kek, next.salt, PBKDF2_ITERATIONS), accountId);
  holdKey(accountId, await nonExtractable(key));
  return true;
}

/**
 * Nothing on the phone needs the account's key any more (nothing unsent): it goes with what it
 * sealed, so a sign-in with a new password starts afresh instead of asking for the earlier one.
 */
export async function dropKey(accountId: string): Promise<void> {
  const db = await offlineDb();
  const tx = db.transaction(["keys", "items", "snapshots"], "readwrite");
  await tx.objectStore("keys").delete(accountId);
  for (const item of await tx.objectStore("items").index("byAccount").getAll(accountId))
    await tx.objectStore("items").delete(item.id);
  for (const key of await tx.objectStore("snapshots").getAllKeys())
    if (key.startsWith(`${accountId}:`)) await tx.objectStore("snapshots").delete(key);
  await tx.done;
  lock(accountId);
}

/**
 * Signing out on this phone (decision 0072): nobody is signed in here, the synced lists go, the
 * unlocked keys are forgotten, and so does a key prepared at the sign-in and not yet taken (0087);
 * the items stay, sealed under keys only their owner's password opens. `keepPrepared`: another
 * account's dashboard is replacing the one named here, and the prepared key is its sign-in's.
 */
export async function forgetSignedIn({
  keepPrepared = false,
}: { keepPrepared?: boolean } = {}): Promise<void> {
  lock();
  const db = await offlineDb();
  const tx = db.transaction(["session", "snapshots", "prepared"], "readwrite");
  await tx.objectStore("session").delete("current");
  await tx.objectStore("snapshots").clear();
  if (!keepPrepared) await tx.objectStore("prepared").delete("current");
  await tx.done;
}
