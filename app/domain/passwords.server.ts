import bcrypt from "bcryptjs";

/** bcrypt cost; tests may lower it with BCRYPT_COST to keep suites fast. */
const COST = Math.min(14, Math.max(4, Number(process.env.BCRYPT_COST) || 11));

export function hashPassword(password: string): Promise<string> {
  return bcrypt.hash(password, COST);
}

export function hashPasswordSync(password: string): string {
  return bcrypt.hashSync(password, COST);
}

export function verifyPassword(password: string, hash: string): Promise<boolean> {
  return bcrypt.compare(password, hash);
}

/** A hash of nothing, compared against when the account does not exist (same timing). */
let dummy: string | undefined;
export function dummyHash(): string {
  dummy ??= bcrypt.hashSync("not-a-real-password", COST);
  return dummy;
}
