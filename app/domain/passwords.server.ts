import { hash, verify, type Algorithm } from "@node-rs/argon2";
import { dictionary } from "@zxcvbn-ts/language-common";
import bcrypt from "bcryptjs";
import { config } from "~/config.server";

/**
 * Password hashing (decision 0009): Argon2id through @node-rs/argon2, which hashes on libuv's
 * thread pool, so a login never blocks the event loop. Parameters come from ARGON2_MEMORY_KIB /
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

export function hashPassword(password: string): Promise<string> {
  return hash(password, params());
}

const isBcrypt = (stored: string) => /^\$2[abxy]\$\d\d\$/.test(stored);

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  try {
    if (stored.startsWith("$argon2")) return await verify(stored, password);
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
  common ??= new Set(
    dictionary["passwords-common"].slice(0, COMMON_PASSWORDS_KEPT).map((p) => p.toLowerCase()),
  );
  return common.has(password.toLowerCase()) || common.has(password.trim().toLowerCase());
}
