import { and, desc, eq, sql } from "drizzle-orm";
import { db, exec, first, isUniqueViolation, transaction } from "~/db/client.server";
import { healthWorkers, patients, profiles, users, type AccountType, type UserRow } from "~/db/schema";
import type { HealthWorkerRole } from "~/db/types";
import { newId } from "~/lib/ids.server";
import { DomainError } from "../platform/errors";
import type { ExpertDetailsInput } from "~/schemas/experts";
import { expertDetailsSteps, type ApiExpertDetails } from "./expert-details.server";
import { hashPassword } from "./passwords.server";
import { endSessionsOnSuspension, forgetEndedSessions } from "./ended-sessions.server";
import { COUNT_KEYS, listCount } from "../platform/index.server";
import { newestFirstWindow } from "../platform/index.server";

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export async function findUserByEmail(email: string): Promise<UserRow | undefined> {
  const normal = normalizeEmail(email);
  if (!normal) return undefined; // phone-only accounts have no e-mail ("")
  return first(
    db()
      .select()
      .from(users)
      // The literal "<> ''" lets the database use the partial unique index users_email_uq.
      .where(and(eq(users.email, normal), sql`${users.email} <> ''`)),
  );
}

/** The account with this verified mobile number (E.164), if any. */
export async function findUserByPhone(phone: string): Promise<UserRow | undefined> {
  if (!phone) return undefined;
  return first(db().select().from(users).where(eq(users.phone, phone)));
}

export async function findUserById(id: string): Promise<UserRow | undefined> {
  return first(db().select().from(users).where(eq(users.id, id)));
}

export type NewUser = {
  /** "" for a patient who signs up with a mobile number only. */
  email: string;
  /** A verified mobile number (E.164): a phone-only patient's identity (decision 0020). */
  phone?: string | null;
  firstName: string;
  lastName?: string;
  accountType: AccountType;
  countryCode?: string;
  contactNumber?: string;
  approved?: boolean;
  locale?: string;
  /** An expert's verification details, stored with the account. */
  expert?: ExpertDetailsInput;
  /** A health worker's centre, role and ID (decision 0030), stored with the account. */
  healthWorker?: { centreId: string; role: HealthWorkerRole; workerId?: string };
} & ({ password: string } | { passwordHash: string });

/** Inserts a user and their empty profile; a taken email (even by a concurrent signup) is a conflict. */
export async function insertUser(input: NewUser): Promise<UserRow> {
  const email = normalizeEmail(input.email);
  const passwordHash = "passwordHash" in input ? input.passwordHash : await hashPassword(input.password);
  if (email && (await findUserByEmail(email))) {
    throw new DomainError("conflict", "accounts.emailTaken");
  }
  if (input.phone && (await findUserByPhone(input.phone))) {
    throw new DomainError("conflict", "accounts.mobileTaken");
  }
  const id = newId();
  const now = new Date();
  const contactNumber = input.contactNumber ?? "";
  try {
    await transaction(function* (tx) {
      yield* exec(
        tx.insert(users).values({
          id,
          email,
          phone: input.phone ?? null,
          passwordHash,
          firstName: input.firstName.trim(),
          lastName: (input.lastName ?? "").trim(),
          accountType: input.accountType,
          countryCode: input.countryCode ?? "+91",
          contactNumber,
          // Experts and health workers wait for an admin's approval.
          approved:
            input.accountType === "Expert" || input.accountType === "HealthWorker"
              ? (input.approved ?? false)
              : true,
          // A health worker with a mobile number only hears by SMS (patients always do).
          ...(input.accountType === "HealthWorker" && !email && input.phone
            ? { notify: "sms" as const }
            : {}),
          locale: input.locale ?? "en",
          createdAt: now,
          updatedAt: now,
        }),
      );
      yield* exec(
        tx.insert(profiles).values({ userId: id, contactNumber: contactNumber || null, updatedAt: now }),
      );
      // A patient account is its own patient profile, under the same id (decision 0030).
      if (input.accountType === "Patient")
        yield* exec(
          tx.insert(patients).values({
            id,
            accountId: id,
            firstName: input.firstName.trim(),
            lastName: (input.lastName ?? "").trim(),
            locale: input.locale ?? "en",
            phone: input.phone ?? null,
            phoneOwner: input.phone ? "self" : "none",
            createdAt: now,
            updatedAt: now,
          }),
        );
      if (input.accountType === "Expert" && input.expert)
        yield* expertDetailsSteps(tx, id, input.expert, now);
      if (input.accountType === "HealthWorker" && input.healthWorker)
        yield* exec(
          tx.insert(healthWorkers).values({
            userId: id,
            centreId: input.healthWorker.centreId,
            role: input.healthWorker.role,
            workerId: (input.healthWorker.workerId ?? "").trim(),
            updatedAt: now,
          }),
        );
    });
  } catch (err) {
    // Two signups with one address at the same moment: the unique index lets one in.
    if (isUniqueViolation(err))
      throw new DomainError(
        "conflict",
        input.phone && !email ? "accounts.mobileTaken" : "accounts.emailTaken",
      );
    throw err;
  }
  return (await findUserById(id))!;
}

/** Creates the admin when no user has that email; idempotent. Returns whether it was created. */
export async function ensureAdmin(input: {
  email: string;
  password: string;
  firstName?: string;
  lastName?: string;
}): Promise<boolean> {
  if (await findUserByEmail(input.email)) return false;
  try {
    await insertUser({
      email: input.email,
      password: input.password,
      firstName: input.firstName ?? "Admin",
      lastName: input.lastName ?? "",
      accountType: "Admin",
    });
  } catch (err) {
    // Another node starting at the same moment created it.
    if (err instanceof DomainError && err.code === "conflict") return false;
    throw err;
  }
  return true;
}

export async function setUserLocale(userId: string, locale: string) {
  await db().update(users).set({ locale, updatedAt: new Date() }).where(eq(users.id, userId));
  await db().update(patients).set({ locale, updatedAt: new Date() }).where(eq(patients.accountId, userId));
}

type ProfileRow = typeof profiles.$inferSelect;

/** URL of a stored display picture (served to signed-in users by /media/avatar/:key). */
export function avatarUrl(imageKey: string | null | undefined): string | null {
  return imageKey ? `/media/avatar/${imageKey}` : null;
}

/**
 * The contract's User object: never a password hash, code or token. Experts' objects add
 * `expertDetails` when the caller loaded them (admins, the expert themself, colleague lists).
 */
export function toApiUser(user: UserRow, profile?: ProfileRow | null, expert?: ApiExpertDetails | null) {
  return {
    _id: user.id,
    firstName: user.firstName,
    lastName: user.lastName,
    email: user.email,
    /** The verified mobile number (E.164) of a patient who signs in with it, else null. */
    phone: user.phone,
    /** How notifications reach the account ("email", "sms" or "both"; experts and admins choose). */
    notify: user.notify,
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
    ...(user.accountType === "Expert" && expert !== undefined ? { expertDetails: expert } : {}),
  };
}
export type ApiUser = ReturnType<typeof toApiUser>;

/** Whether `key` is some user's display picture (the avatar route serves nothing else). */
export async function isUserImageKey(key: string): Promise<boolean> {
  return !!(await first(db().select({ id: users.id }).from(users).where(eq(users.image, key))));
}

/**
 * Admin: suspends an account (its sessions and tokens end at once, login is refused with a
 * clear message) or lifts the suspension. Admins cannot suspend themselves.
 */
export async function setSuspended(
  actor: { id: string; accountType: AccountType },
  userId: string,
  suspended: boolean,
) {
  if (actor.accountType !== "Admin") throw new DomainError("forbidden", "api.forbidden");
  if (actor.id === userId) throw new DomainError("invalid", "accounts.cannotSuspendSelf");
  const user = await findUserById(userId);
  if (!user) throw new DomainError("not_found", "api.notFound");
  await db()
    .update(users)
    .set({ suspendedAt: suspended ? new Date() : null, updatedAt: new Date() })
    .where(eq(users.id, userId));
  // A health worker's web sessions leave a tombstone for their offline outbox (decision 0065).
  if (suspended) await endSessionsOnSuspension(userId, user.accountType === "HealthWorker");
  else await forgetEndedSessions(userId);
  return (await findUserById(userId))!;
}

/** Admin: every account, newest first, optionally filtered by type. */
export async function listUsers(
  actor: { accountType: AccountType },
  query: { page: number; pageSize: number; accountType?: AccountType | null },
) {
  if (actor.accountType !== "Admin") throw new DomainError("forbidden", "api.forbidden");
  const where = query.accountType ? eq(users.accountType, query.accountType) : undefined;
  const total = await listCount(
    query.accountType ? COUNT_KEYS.usersOfType(query.accountType) : COUNT_KEYS.usersAll,
  );
  const win = newestFirstWindow(query, users.createdAt, users.id);
  const itemsRead = await db()
    .select()
    .from(users)
    .where(and(where, win.after))
    // users_created_idx / users_type_created_idx (…, created_at, id)
    .orderBy(desc(users.createdAt), desc(users.id))
    .limit(win.limit)
    .offset(win.offset);
  const { rows: items, nextCursor } = win.cut(itemsRead, (r) => r);
  return {
    nextCursor,
    items,
    total,
    page: query.page,
    pageSize: query.pageSize,
  };
}
