import { and, eq, isNotNull, isNull, like, sql } from "drizzle-orm";
import { db, exec, rows, type DB, type TxSteps } from "~/db/client.server";
import { profiles, sessions, users, verificationCodes, type AccountType } from "~/db/schema";

/**
 * What other contexts ask of a login (decision 0096): accounts owns `users`, `profiles`,
 * `sessions` and `verification_codes`, so the care context's health-worker approvals and
 * take-overs, the consultation's claims and reviews, and the rights context's consent steps call
 * these instead of writing the rows themselves. Each is one transaction's steps (the caller's
 * transaction), or a plain call where it stands alone.
 */

/**
 * Holds the person's row for the rest of the transaction (a no-op update: a row lock on
 * PostgreSQL; SQLite writes one at a time anyway), so their consent steps, claims and signatures
 * never interleave. `approvedOnly`: only while the account is approved. Whether the row was there.
 */
export function* holdLogin(tx: DB, userId: string, opts: { approvedOnly?: boolean } = {}): TxSteps<boolean> {
  const found = yield* rows(
    tx
      .update(users)
      .set({ updatedAt: sql`${users.updatedAt}` })
      .where(and(eq(users.id, userId), opts.approvedOnly ? eq(users.approved, true) : undefined))
      .returning({ id: users.id }),
  );
  return found.length === 1;
}

/** An account awaiting approval approved (not one suspended meanwhile); whether it was. */
export function* approveLogin(tx: DB, userId: string, accountType: AccountType): TxSteps<boolean> {
  const changed = yield* rows(
    tx
      .update(users)
      .set({ approved: true, updatedAt: new Date() })
      .where(
        and(
          eq(users.id, userId),
          eq(users.accountType, accountType),
          eq(users.approved, false),
          isNull(users.suspendedAt),
        ),
      )
      .returning({ id: users.id }),
  );
  return changed.length === 1;
}

/** An account awaiting approval declined: suspended and signed out everywhere; whether it was. */
export function* declineLogin(tx: DB, userId: string): TxSteps<boolean> {
  const changed = yield* rows(
    tx
      .update(users)
      .set({ suspendedAt: new Date(), updatedAt: new Date() })
      .where(and(eq(users.id, userId), eq(users.approved, false), isNull(users.suspendedAt)))
      .returning({ id: users.id }),
  );
  if (changed.length !== 1) return false;
  yield* exec(tx.delete(sessions).where(eq(sessions.userId, userId)));
  return true;
}

/**
 * A login taken away (a take-over undone, decision 0055): suspended, its number and password gone,
 * signed out everywhere. The row stays (the profile's id is the person's).
 */
export function* retireLogin(tx: DB, userId: string, now: Date): TxSteps<void> {
  yield* exec(
    tx
      .update(users)
      .set({ suspendedAt: now, phone: null, passwordHash: "!", updatedAt: now })
      .where(eq(users.id, userId)),
  );
  yield* exec(tx.delete(sessions).where(eq(sessions.userId, userId)));
}

export type ProfileLogin = {
  /** The patient profile's id, which becomes the login's (reports, links and patientId stay theirs). */
  id: string;
  phone: string;
  passwordHash: string;
  firstName: string;
  lastName: string;
  contactNumber: string;
  locale: string;
};

/**
 * A patient's own login made for a profile someone kept for them (a take-over, decision 0055): a
 * login an admin took away after an earlier take-over (undone) gives way to this one.
 */
export function* createProfileLogin(tx: DB, p: ProfileLogin, now: Date): TxSteps<void> {
  yield* exec(
    tx.delete(users).where(and(eq(users.id, p.id), isNotNull(users.suspendedAt), isNull(users.phone))),
  );
  yield* exec(
    tx.insert(users).values({
      id: p.id,
      email: "",
      phone: p.phone,
      passwordHash: p.passwordHash,
      firstName: p.firstName,
      lastName: p.lastName,
      accountType: "Patient",
      countryCode: "+91",
      contactNumber: p.contactNumber,
      approved: true,
      locale: p.locale,
      createdAt: now,
      updatedAt: now,
    }),
  );
  yield* exec(tx.insert(profiles).values({ userId: p.id, contactNumber: p.contactNumber, updatedAt: now }));
}

/**
 * Every unused code of `purpose` whose payload names `startedBy` as its starter stops working (a
 * starter suspended, moved or declined, decision 0055).
 */
export async function consumeCodesStartedBy(
  purpose: (typeof verificationCodes.$inferSelect)["purpose"],
  startedBy: string,
  now: Date,
): Promise<void> {
  await db()
    .update(verificationCodes)
    .set({ consumedAt: now })
    .where(
      and(
        eq(verificationCodes.purpose, purpose),
        isNull(verificationCodes.consumedAt),
        like(verificationCodes.payload, `%"startedBy":"${startedBy.replace(/[^A-Za-z0-9_-]/g, "")}"%`),
      ),
    );
}
