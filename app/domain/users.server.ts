import { count, desc, eq } from "drizzle-orm";
import { db } from "~/db/client.server";
import { profiles, sessions, users, type AccountType, type UserRow } from "~/db/schema";
import { newId } from "~/utils/ids.server";
import { DomainError } from "./errors";
import { hashPassword } from "./passwords.server";

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function findUserByEmail(email: string): UserRow | undefined {
  return db()
    .select()
    .from(users)
    .where(eq(users.email, normalizeEmail(email)))
    .get();
}

export function findUserById(id: string): UserRow | undefined {
  return db().select().from(users).where(eq(users.id, id)).get();
}

export type NewUser = {
  email: string;
  firstName: string;
  lastName?: string;
  accountType: AccountType;
  countryCode?: string;
  contactNumber?: string;
  approved?: boolean;
  locale?: string;
} & ({ password: string } | { passwordHash: string });

/** Inserts a user and their empty profile; a taken email is a conflict. */
export async function insertUser(input: NewUser): Promise<UserRow> {
  const email = normalizeEmail(input.email);
  const passwordHash = "passwordHash" in input ? input.passwordHash : await hashPassword(input.password);
  if (findUserByEmail(email)) {
    throw new DomainError("conflict", "accounts.emailTaken");
  }
  const id = newId();
  const now = new Date();
  const contactNumber = input.contactNumber ?? "";
  db().transaction((tx) => {
    tx.insert(users)
      .values({
        id,
        email,
        passwordHash,
        firstName: input.firstName.trim(),
        lastName: (input.lastName ?? "").trim(),
        accountType: input.accountType,
        countryCode: input.countryCode ?? "+91",
        contactNumber,
        approved: input.accountType === "Expert" ? (input.approved ?? false) : true,
        locale: input.locale ?? "en",
        createdAt: now,
        updatedAt: now,
      })
      .run();
    tx.insert(profiles)
      .values({ userId: id, contactNumber: contactNumber || null, updatedAt: now })
      .run();
  });
  return findUserById(id)!;
}

/** Creates the admin when no user has that email; idempotent. Returns whether it was created. */
export async function ensureAdmin(input: {
  email: string;
  password: string;
  firstName?: string;
  lastName?: string;
}): Promise<boolean> {
  if (findUserByEmail(input.email)) return false;
  await insertUser({
    email: input.email,
    password: input.password,
    firstName: input.firstName ?? "Admin",
    lastName: input.lastName ?? "",
    accountType: "Admin",
  });
  return true;
}

export function setUserLocale(userId: string, locale: string) {
  db().update(users).set({ locale, updatedAt: new Date() }).where(eq(users.id, userId)).run();
}

type ProfileRow = typeof profiles.$inferSelect;

/** URL of a stored display picture (served to signed-in users by /media/avatar/:key). */
export function avatarUrl(imageKey: string | null | undefined): string | null {
  return imageKey ? `/media/avatar/${imageKey}` : null;
}

/** The contract's User object: never a password hash, code or token. */
export function toApiUser(user: UserRow, profile?: ProfileRow | null) {
  return {
    _id: user.id,
    firstName: user.firstName,
    lastName: user.lastName,
    email: user.email,
    accountType: user.accountType,
    contactNumber: user.contactNumber,
    countryCode: user.countryCode,
    image: avatarUrl(user.image),
    approved: user.approved,
    additionalDetails: {
      about: profile?.about ?? null,
      gender: profile?.gender ?? null,
      dateOfBirth: profile?.dateOfBirth ?? null,
      contactNumber: profile?.contactNumber ?? user.contactNumber ?? null,
    },
    createdAt: user.createdAt.toISOString(),
    updatedAt: user.updatedAt.toISOString(),
  };
}
export type ApiUser = ReturnType<typeof toApiUser>;

/** Whether `key` is some user's display picture (the avatar route serves nothing else). */
export function isUserImageKey(key: string): boolean {
  return !!db().select({ id: users.id }).from(users).where(eq(users.image, key)).get();
}

/**
 * Admin: suspends an account (its sessions and tokens end at once, login is refused with a
 * clear message) or lifts the suspension. Admins cannot suspend themselves.
 */
export function setSuspended(
  actor: { id: string; accountType: AccountType },
  userId: string,
  suspended: boolean,
) {
  if (actor.accountType !== "Admin") throw new DomainError("forbidden", "api.forbidden");
  if (actor.id === userId) throw new DomainError("invalid", "accounts.cannotSuspendSelf");
  const user = findUserById(userId);
  if (!user) throw new DomainError("not_found", "api.notFound");
  db()
    .update(users)
    .set({ suspendedAt: suspended ? new Date() : null, updatedAt: new Date() })
    .where(eq(users.id, userId))
    .run();
  if (suspended) db().delete(sessions).where(eq(sessions.userId, userId)).run();
  return findUserById(userId)!;
}

/** Admin: every account, newest first, optionally filtered by type. */
export function listUsers(
  actor: { accountType: AccountType },
  query: { page: number; pageSize: number; accountType?: AccountType | null },
) {
  if (actor.accountType !== "Admin") throw new DomainError("forbidden", "api.forbidden");
  const where = query.accountType ? eq(users.accountType, query.accountType) : undefined;
  const total = db().select({ n: count() }).from(users).where(where).get()?.n ?? 0;
  const items = db()
    .select()
    .from(users)
    .where(where)
    .orderBy(desc(users.createdAt))
    .limit(query.pageSize)
    .offset((query.page - 1) * query.pageSize)
    .all();
  return { items, total, page: query.page, pageSize: query.pageSize };
}
