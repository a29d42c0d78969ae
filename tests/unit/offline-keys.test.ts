import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ItemPayload } from "~/offline/types";
import {
  fileOf,
  keepItem,
  newPhone,
  pageLoad,
  rawAll,
  rawDb,
  rawPut,
  WORKER,
  type Phone,
} from "../helpers/offline-phone";

/*
 * The outbox's key below the browser (decisions 0072, 0087, 0095): kept only wrapped with a key
 * from her password (PBKDF2-SHA256, real rounds), opened into memory only; a wrong password opens
 * nothing; a changed password re-wraps it without losing what waits; the key prepared on /login
 * before the sign-in is sent is taken by the account, or dropped when the sign-in is refused, on
 * /login-code and at sign-out. A page load is the modules loaded again on the same database.
 */

const ME = WORKER.accountId;
const PASSWORD = "mango-tree-47";

const report: ItemPayload = {
  label: "Report for Sita",
  fields: { patientId: "pat-1", type: "Blood test" },
  file: fileOf(2000),
};

let phone: Phone;

beforeEach(async () => {
  phone = await newPhone();
  await phone.store.setSession(WORKER);
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** Every value in the database, walked: what a script on the phone could reach. */
function found(value: unknown, out: unknown[] = []): unknown[] {
  out.push(value);
  if (value && typeof value === "object" && !(value instanceof ArrayBuffer) && !ArrayBuffer.isView(value))
    for (const v of Object.values(value)) found(v, out);
  return out;
}
async function everything(): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const name of ["session", "keys", "items", "snapshots", "prepared"])
    for (const row of await rawAll(name)) found(row, out);
  return out;
}

/** A script's attempt: every CryptoKey anywhere on the phone against every sealed item and list. */
async function opensWithWhatIsStored(): Promise<number> {
  const keys = (await everything()).filter((v): v is CryptoKey => v instanceof CryptoKey);
  const sealed = [
    ...(await rawAll<{ sealed: { iv: ArrayBuffer; data: ArrayBuffer } }>("items")),
    ...(await rawAll<{ sealed: { iv: ArrayBuffer; data: ArrayBuffer } }>("snapshots")),
  ];
  let opened = 0;
  for (const key of keys)
    for (const { sealed: s } of sealed)
      await crypto.subtle.decrypt({ name: "AES-GCM", iv: s.iv }, key, s.data).then(
        () => opened++,
        () => {},
      );
  return opened;
}

/** The payload, opened with the key unlocked in this page. */
async function opened(id: string) {
  return phone.store.openPayload((await phone.store.getItem(id))!);
}

/** The sign-in page's submit as useSignInSubmit does it: the key prepared, then the password kept for the dashboard. */
async function signInOnLogin(password: string) {
  const prepared = phone.keys.prepareKey(password);
  phone.pending.keepPasswordForOutbox(password, prepared);
  return prepared;
}

describe("the account's key, wrapped with her password (decision 0072)", () => {
  it("kept only wrapped; after a page load her password opens it, another opens nothing; bound to her account", async () => {
    expect(await phone.keys.unlock(ME, PASSWORD, { create: true })).toBe("created");
    const item = await keepItem(phone, "upload", report);
    await phone.outbox.keepSnapshot("queue", [{ name: "Sita Devi" }]);

    const [kept] = await rawAll<Record<string, unknown>>("keys");
    expect(kept).toMatchObject({ kind: "pbkdf2-aes-gcm", iterations: 600_000 });
    expect((kept.salt as ArrayBuffer).byteLength).toBe(16);
    expect((kept.iv as ArrayBuffer).byteLength).toBe(12);
    expect((await everything()).some((v) => v instanceof CryptoKey)).toBe(false);

    phone = await pageLoad();
    expect(phone.store.isUnlocked(ME)).toBe(false);
    await expect(opened(item.id)).rejects.toBeInstanceOf(phone.store.Locked);
    expect(await phone.outbox.lockState(ME)).toBe("password");

    expect(await phone.outbox.unlockOutbox(ME, "mango-tree-48")).toBe(false);
    expect(phone.store.isUnlocked(ME)).toBe(false);
    await expect(opened(item.id)).rejects.toBeInstanceOf(phone.store.Locked);
    await expect(phone.store.loadSnapshot(ME, "queue")).rejects.toBeInstanceOf(phone.store.Locked);

    expect(await phone.outbox.unlockOutbox(ME, PASSWORD)).toBe(true);
    expect(await opened(item.id)).toEqual(report);
    expect((await phone.store.loadSnapshot(ME, "queue"))?.data).toEqual([{ name: "Sita Devi" }]);

    // The account id is bound in: her wrapped key in another account's place opens nothing.
    const db = await rawDb();
    await rawPut(db, [["keys", kept, "acct-other"]]);
    db.close();
    expect(await phone.keys.unlock("acct-other", PASSWORD)).toBe("wrong");
  });

  it("the offline screen makes no key from a password no server checked", async () => {
    expect(await phone.outbox.lockState(ME)).toBe("sign-in");
    expect(await phone.outbox.unlockOutbox(ME, PASSWORD)).toBe(false);
    expect(await phone.keys.hasKey(ME)).toBe(false);
    expect(await phone.outbox.lockState(ME)).toBe("sign-in");
  });

  it("a password changed since, with items waiting: the earlier one is asked once, the key is wrapped for the new one, nothing is lost", async () => {
    await phone.keys.unlock(ME, "old-password-1", { create: true });
    const waiting = await keepItem(phone, "upload", report);
    const other = await keepItem(phone, "register", {
      label: "Register Gita",
      fields: { firstName: "Gita" },
    });

    // A sign-in with the new password, after a page load: it does not open the key here.
    phone = await pageLoad();
    await signInOnLogin("new-password-2");
    expect(await phone.outbox.unlockAtSignIn(ME)).toBe(false);
    expect(await phone.outbox.lockState(ME)).toBe("earlier");
    // The key prepared for this sign-in served as the new password's wrapping key, and went.
    expect(await phone.keys.hasPrepared()).toBe(false);

    // The new password is not the earlier one; the earlier one opens it and re-wraps it.
    expect(await phone.outbox.unlockOutbox(ME, "new-password-2")).toBe(false);
    expect(await phone.outbox.lockState(ME)).toBe("earlier");
    expect(await phone.outbox.unlockOutbox(ME, "old-password-1")).toBe(true);
    expect(await phone.outbox.lockState(ME)).toBe("open");
    expect(await opened(waiting.id)).toEqual(report);

    // From now on the new password opens it, the old one nothing; every item is still there.
    phone = await pageLoad();
    expect(await phone.outbox.unlockOutbox(ME, "old-password-1")).toBe(false);
    expect(await phone.outbox.unlockOutbox(ME, "new-password-2")).toBe(true);
    expect(await opened(waiting.id)).toEqual(report);
    expect((await opened(other.id)).label).toBe("Register Gita");
    expect((await phone.store.itemsOf(ME)).map((i) => i.id)).toEqual([waiting.id, other.id]);
  });

  it("a password changed since, with nothing unsent: the old key and what it sealed go, and her new password makes the key", async () => {
    await phone.keys.unlock(ME, "old-password-1", { create: true });
    const sent = await keepItem(phone, "register", { label: "Register Gita", fields: {} }, { state: "sent" });

    phone = await pageLoad();
    await signInOnLogin("new-password-2");
    expect(await phone.outbox.unlockAtSignIn(ME)).toBe(true);
    expect(await phone.store.getItem(sent.id)).toBeUndefined();
    expect(await phone.keys.hasPrepared()).toBe(false);

    phone = await pageLoad();
    expect(await phone.outbox.unlockOutbox(ME, "old-password-1")).toBe(false);
    expect(await phone.outbox.unlockOutbox(ME, "new-password-2")).toBe(true);
  });
});

describe("the key prepared on /login before the sign-in is sent (decision 0087)", () => {
  it("taken by the account the sign-in leads to, without a second PBKDF2, and wrapped for her alone", async () => {
    const prepared = await signInOnLogin(PASSWORD);
    const [waitingKey] = await rawAll<Record<string, unknown>>("prepared");
    expect(waitingKey).toMatchObject({ kind: "pbkdf2-aes-gcm", id: prepared.id });

    const derive = vi.spyOn(crypto.subtle, "deriveKey");
    expect(await phone.outbox.unlockAtSignIn(ME)).toBe(true);
    expect(derive).not.toHaveBeenCalled();
    expect(await phone.keys.hasPrepared()).toBe(false);
    const [kept] = await rawAll<Record<string, unknown>>("keys");
    expect(Buffer.from(kept.salt as ArrayBuffer).equals(Buffer.from(prepared.salt))).toBe(true);
    const item = await keepItem(phone, "upload", report);

    // While it waited it was nobody's: in her place, her own password opens nothing.
    const { id: _, at: __, ...asKey } = waitingKey;
    const db = await rawDb();
    await rawPut(db, [["keys", asKey, "acct-other"]]);
    db.close();
    expect(await phone.keys.unlock("acct-other", PASSWORD)).toBe("wrong");

    phone = await pageLoad();
    expect(await phone.outbox.unlockOutbox(ME, PASSWORD)).toBe(true);
    expect(await opened(item.id)).toEqual(report);
  });

  it("after a page load lost the memory, her password takes it on the offline screen; another password does not", async () => {
    await signInOnLogin(PASSWORD);
    await phone.keys.prepareKey(PASSWORD).then(() => {}); // a second submit: one prepared key at most
    expect(await rawAll("prepared")).toHaveLength(1);

    phone = await pageLoad();
    expect(await phone.outbox.unlockAtSignIn(ME)).toBe(false); // nothing typed survived the load
    expect(await phone.outbox.lockState(ME)).toBe("password");
    expect(await phone.outbox.unlockOutbox(ME, "not-her-password")).toBe(false);
    expect(await phone.keys.hasKey(ME)).toBe(false);
    expect(await phone.keys.hasPrepared()).toBe(true);

    expect(await phone.outbox.unlockOutbox(ME, PASSWORD)).toBe(true);
    expect(await phone.keys.hasKey(ME)).toBe(true);
    expect(await phone.keys.hasPrepared()).toBe(false);
  });

  it("a sign-in where she has a key already: her password opens it, and the prepared key goes", async () => {
    await phone.keys.unlock(ME, PASSWORD, { create: true });
    const item = await keepItem(phone, "upload", report);
    phone = await pageLoad();
    await signInOnLogin(PASSWORD);
    expect(await phone.outbox.unlockAtSignIn(ME)).toBe(true);
    expect(await phone.keys.hasPrepared()).toBe(false);
    expect(await opened(item.id)).toEqual(report);
  });

  it("one at most; a refused sign-in drops its own, /login and /login-code any, and so does signing out", async () => {
    const first = await phone.keys.prepareKey("first-try");
    const second = await phone.keys.prepareKey("second-try");
    expect((await rawAll<{ id: string }>("prepared")).map((p) => p.id)).toEqual([second.id]);
    // The first sign-in's refusal, answered late, leaves the second's key (useSignInSubmit).
    await phone.keys.discardPrepared(first.id);
    expect(await phone.keys.hasPrepared()).toBe(true);
    await phone.keys.discardPrepared(second.id);
    expect(await phone.keys.hasPrepared()).toBe(false);

    // Opening /login or /login-code (useNoPreparedKey) drops whichever is there.
    await phone.keys.prepareKey("third-try");
    await phone.keys.discardPrepared();
    expect(await phone.keys.hasPrepared()).toBe(false);

    // Another account's dashboard replacing the one named here keeps it (it is that sign-in's)...
    await phone.keys.prepareKey("fourth-try");
    await phone.outbox.forgetOthers("acct-next");
    expect(await phone.store.currentSession()).toBeNull();
    expect(await phone.keys.hasPrepared()).toBe(true);
    // ...signing out does not.
    await phone.outbox.forgetSession();
    expect(await phone.keys.hasPrepared()).toBe(false);
  });

  it("a sign-in with an SMS code makes no key and changes nothing", async () => {
    expect(await phone.outbox.unlockAtSignIn(ME)).toBe(false);
    expect(await phone.keys.hasKey(ME)).toBe(false);
    expect(await phone.outbox.lockState(ME)).toBe("sign-in");
  });

  it("the password typed on /login is kept ten minutes at most, and taken once", async () => {
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    phone.pending.keepPasswordForOutbox(PASSWORD);
    expect(phone.pending.takePassword()?.password).toBe(PASSWORD);
    expect(phone.pending.takePassword()).toBeNull();
    phone.pending.keepPasswordForOutbox(PASSWORD);
    vi.setSystemTime(Date.now() + 10 * 60 * 1000 + 1);
    expect(phone.pending.takePassword()).toBeNull();
  });
});

describe("signing out on a shared phone (decision 0072)", () => {
  it("nobody is signed in here, the lists and the unlocked key go; her items stay sealed, and nothing stored opens them", async () => {
    await phone.keys.unlock(ME, PASSWORD, { create: true });
    const item = await keepItem(phone, "upload", report);
    await phone.outbox.keepSnapshot("queue", [{ name: "Sita Devi" }]);

    await phone.outbox.forgetSession();
    expect(await phone.store.currentSession()).toBeNull();
    expect(await rawAll("snapshots")).toEqual([]);
    expect(phone.store.isUnlocked(ME)).toBe(false);
    expect(await rawAll("items")).toHaveLength(1);
    expect(await opensWithWhatIsStored()).toBe(0);

    // She signs in again: everything is hers as before.
    await phone.store.setSession(WORKER);
    expect(await phone.outbox.unlockOutbox(ME, PASSWORD)).toBe(true);
    expect(await opened(item.id)).toEqual(report);
  });
});
