import { hash, verify, type Algorithm } from "@node-rs/argon2";
import bcrypt from "bcryptjs";
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { config } from "~/config.server";
import { besideTheBuild } from "~/lib/beside-build.server";
import { log } from "~/lib/log.server";
import { DomainError } from "../platform/errors";
import type { HasherReply, HasherRequest } from "./hasher.worker";

/**
 * Password hashing (decision 0009): Argon2id through @node-rs/argon2, on a low-priority thread
 * of its own (below), so a login never blocks the event loop nor starves other requests. Parameters come from ARGON2_MEMORY_KIB /
 * ARGON2_TIME_COST (OWASP's m=19456 KiB, t=2, p=1 by default; test servers lower them). Hashes
 * made by earlier versions (bcrypt, `$2a$`/`$2b$`) still verify and are replaced on the next
 * successful login (`needsRehash`).
 */
/** `Algorithm.Argon2id` (a const enum, which isolated modules cannot read). */
const ARGON2ID = 2 as Algorithm;

function params() {
  const c = config();
  return {
    algorithm: ARGON2ID,
    memoryCost: c.argon2MemoryKib,
    timeCost: c.argon2TimeCost,
    parallelism: 1,
  };
}

/**
 * Hashing yields to serving. Argon2 is meant to cost CPU, and a stream of logins would take the
 * cores the list endpoints need, wherever it runs. So each process hashes on one thread of its
 * own at a low CPU priority (nice 10, about a tenth of a normal thread's share when the cores are
 * busy; on Linux the nice value is per thread): on an idle machine a hash runs at full speed, on
 * a busy one serving goes first and logins still move. Where that thread cannot start, libuv's
 * pool (normal priority) does the work. The thread's program is hasher.worker.ts.
 */
type HasherCall = { resolve: (v: unknown) => void; reject: (e: Error) => void };
let hasher: { worker: Worker; calls: Map<number, HasherCall>; next: number } | null | undefined;

function startHasher() {
  try {
    // A real module (decision 0117): the build's bundle, or the TypeScript source under tests.
    const worker = new Worker(besideTheBuild(import.meta.url, "hasher-worker.mjs", "hasher.worker.ts"));
    const h = { worker, calls: new Map<number, HasherCall>(), next: 1 };
    worker.unref(); // never keeps a stopping process alive
    worker.on("message", (m: HasherReply) => {
      const call = h.calls.get(m.id);
      h.calls.delete(m.id);
      if (!call) return;
      if (m.error !== undefined) call.reject(new Error(m.error));
      else call.resolve(m.value);
    });
    const fail = (err: unknown) => {
      for (const call of h.calls.values()) call.reject(err instanceof Error ? err : new Error(String(err)));
      h.calls.clear();
      if (hasher === h) hasher = undefined; // the next call starts a fresh thread
    };
    worker.on("error", fail);
    worker.on("exit", () => fail(new Error("password hasher stopped")));
    return h;
  } catch (err) {
    log("warn", "the password hasher's thread could not start; hashing on libuv's pool", {
      error: String((err as Error)?.message ?? err),
    });
    return null;
  }
}

function onHasher<T>(op: "hash" | "verify", args: unknown[], fallback: () => Promise<T>): Promise<T> {
  if (hasher === undefined) hasher = startHasher();
  const h = hasher;
  if (!h) return fallback();
  const id = h.next++;
  return new Promise<T>((resolve, reject) => {
    h.calls.set(id, { resolve: resolve as (v: unknown) => void, reject });
    h.worker.ref(); // while a call is out, the thread is needed
    h.worker.postMessage({ id, op, args } as HasherRequest);
  }).finally(() => {
    if (h.calls.size === 0) h.worker.unref();
  });
}

export function hashPassword(password: string): Promise<string> {
  const p = params();
  return onHasher("hash", [password, p], () => hash(password, p));
}

const isBcrypt = (stored: string) => /^\$2[abxy]\$\d\d\$/.test(stored);

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  try {
    if (stored.startsWith("$argon2")) {
      return await onHasher("verify", [stored, password], () => verify(stored, password));
    }
    if (isBcrypt(stored)) return await bcrypt.compare(password, stored);
  } catch {
    /* a malformed stored hash matches nothing */
  }
  return false;
}

/** True when a stored hash is not Argon2id with today's parameters (re-hash it after a right password). */
export function needsRehash(stored: string): boolean {
  const p = params();
  return !stored.startsWith(`$argon2id$v=19$m=${p.memoryCost},t=${p.timeCost},p=${p.parallelism}$`);
}

/**
 * A hash of nothing, verified against when the account does not exist, so an unknown e-mail
 * costs the same time as a known one. Computed once per process (with today's parameters).
 */
let dummy: Promise<string> | undefined;
export function dummyHash(): Promise<string> {
  dummy ??= hashPassword("not-a-real-password-" + Math.random());
  return dummy;
}

/**
 * The common-password list of zxcvbn-ts (`@zxcvbn-ts/language-common`, ~49,000 passwords from
 * public breach corpora, most frequent first). We keep the top 10,000 — the passwords worth
 * trying first in any guessing attack — compared case-insensitively.
 */
export const COMMON_PASSWORDS_KEPT = 10_000;
let common: Set<string> | undefined;

export function isCommonPassword(password: string): boolean {
  if (!common) {
    // Read when a password is first checked, not when the server starts (decision 0111).
    const { dictionary } = createRequire(import.meta.url)(
      "@zxcvbn-ts/language-common",
    ) as typeof import("@zxcvbn-ts/language-common");
    common = new Set(
      dictionary["passwords-common"].slice(0, COMMON_PASSWORDS_KEPT).map((p) => p.toLowerCase()),
    );
  }
  return common.has(password.toLowerCase()) || common.has(password.trim().toLowerCase());
}

/** Refuses a password from the common-password list (decision 0009), as a field error of `field`. */
export function assertPasswordNotCommon(password: string, field: string) {
  if (isCommonPassword(password)) {
    throw new DomainError("invalid", "accounts.passwordCommon", {
      fieldErrors: { [field]: ["accounts.passwordCommon"] },
    });
  }
}
