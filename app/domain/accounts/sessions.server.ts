import { and, desc, eq, gt, lt, ne, or, sql } from "drizzle-orm";
import { config } from "~/config.server";
import { affected, db, prepareQuery, textList, timeParam, type DB } from "~/db/client.server";
import { expertSpecialties, sessions, users, type AccountType } from "~/db/schema";
import { newId, newToken, sha256 } from "~/utils/ids.server";
import { createHmac, timingSafeEqual } from "node:crypto";

/** How long a web session (the cookie) lives at most. */
export const WEB_SESSION_TTL_MS = 14 * 24 * 60 * 60 * 1000;
const API_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** "Last used" is written at most once a minute (more often only for idle timeouts under 4 minutes). */
const TOUCH_EVERY_MS = 60 * 1000;

/** How long a session or API token may go unused: short for experts and admins, longer for patients. */
export function idleLimitMs(accountType: AccountType): number {
  const c = config();
  return accountType === "Patient" ? c.sessionIdleMsPatient : c.sessionIdleMsStaff;
}

/** The signed-in user as the domain sees them. */
export type Actor = {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
  accountType: AccountType;
  approved: boolean;
  image: string | null;
  locale: string;
  sessionId: string;
  /**
   * An expert's specialties, when the actor came from a session lookup (which reads them in the
   * same statement, so the queue needs no second round trip); absent on actors made otherwise.
   */
  specialties?: readonly string[];
};

/** The mark a device keeps after its owner logged in on it: HMAC-SHA256 of the user id under the session secret. */
export function knownDeviceMark(userId: string): string {
  return createHmac("sha256", config().sessionSecret).update(`known-device:${userId}`).digest("base64url");
}

/** Whether `mark` (the device cookie's value, as sent) is the mark of `userId`'s devices. */
export function isKnownDeviceOf(userId: string, mark: string | null | undefined): boolean {
  if (typeof mark !== "string" || mark.length > 100) return false;
  const want = Buffer.from(knownDeviceMark(userId));
  const got = Buffer.from(mark);
  return got.length === want.length && timingSafeEqual(got, want);
}

export async function createSession(
  userId: string,
  kind: "web" | "api",
  meta: { userAgent?: string | null; ip?: string | null } = {},
) {
  const token = newToken();
  const id = newId();
  const now = Date.now();
  await db()
    .insert(sessions)
    .values({
      id,
      tokenHash: sha256(token),
      userId,
      kind,
      userAgent: meta.userAgent?.slice(0, 300) ?? null,
      ip: meta.ip ?? null,
      createdAt: new Date(now),
      lastSeenAt: new Date(now),
      expiresAt: new Date(now + (kind === "web" ? WEB_SESSION_TTL_MS : API_TTL_MS)),
    });
  return { id, token };
}

/** Specialty names hold letters and spaces only (accounts/specialties.ts), never this. */
const SPECIALTY_SEPARATOR = "|";

/**
 * The session, its user and the user's specialties in one statement: every signed-in request
 * runs it, and on PostgreSQL each statement is a round trip.
 */
function prepareTokenLookup(d: DB) {
  return prepareQuery(
    "session_by_token_v2",
    d
      .select({
        session: sessions,
        user: users,
        specialties: textList(
          expertSpecialties.specialty,
          sql`from ${expertSpecialties} where ${expertSpecialties.userId} = ${users.id}`,
          SPECIALTY_SEPARATOR,
        ),
      })
      .from(sessions)
      .innerJoin(users, eq(users.id, sessions.userId))
      .where(
        and(
          eq(sessions.tokenHash, sql.placeholder("hash")),
          eq(sessions.kind, sql.placeholder("kind")),
          gt(sessions.expiresAt, sql.placeholder("now")), // timeParam(): as the dialect stores it
        ),
      )
      .limit(1),
  );
}

/** Runs on every signed-in request, so it is built once per database handle. */
let tokenLookup: { db: DB; query: ReturnType<typeof prepareTokenLookup> } | undefined;

/** Finds the live session for a token, or null (unknown, expired, revoked or suspended). */
export async function resolveToken(token: string, kind: "web" | "api"): Promise<Actor | null> {
  if (!token || token.length > 200) return null;
  const d = db();
  if (tokenLookup?.db !== d) tokenLookup = { db: d, query: prepareTokenLookup(d) };
  const [row] = await tokenLookup.query.execute({ hash: sha256(token), kind, now: timeParam(Date.now()) });
  if (!row || row.user.suspendedAt) return null;
  const now = Date.now();
  const idle = idleLimitMs(row.user.accountType);
  const unused = now - row.session.lastSeenAt.getTime();
  if (unused > idle) {
    // Idle too long: the session ends (the web goes to the login page, an API token gets 401).
    await revokeSession(row.session.id);
    return null;
  }
  if (unused > Math.min(TOUCH_EVERY_MS, idle / 4)) {
    await db()
      .update(sessions)
      .set({ lastSeenAt: new Date(now) })
      .where(eq(sessions.id, row.session.id));
  }
  const u = row.user;
  return {
    id: u.id,
    email: u.email,
    firstName: u.firstName,
    lastName: u.lastName,
    accountType: u.accountType,
    approved: u.approved,
    image: u.image,
    locale: u.locale,
    sessionId: row.session.id,
    specialties: row.specialties ? row.specialties.split(SPECIALTY_SEPARATOR) : [],
  };
}

export async function revokeSession(sessionId: string) {
  await db().delete(sessions).where(eq(sessions.id, sessionId));
}

/** Ends every session and API token of a user (optionally keeping one). */
export async function revokeAllSessions(userId: string, exceptSessionId?: string) {
  await db()
    .delete(sessions)
    .where(
      exceptSessionId
        ? and(eq(sessions.userId, userId), ne(sessions.id, exceptSessionId))
        : eq(sessions.userId, userId),
    );
}

/** Removes expired sessions and those idle beyond the longer idle limit (the shorter one ends on use). */
export async function pruneExpiredSessions(): Promise<number> {
  const c = config();
  const idleCutoff = new Date(Date.now() - Math.max(c.sessionIdleMsStaff, c.sessionIdleMsPatient));
  return affected(
    await db()
      .delete(sessions)
      .where(or(lt(sessions.expiresAt, new Date()), lt(sessions.lastSeenAt, idleCutoff))),
  );
}

export type SessionInfo = {
  id: string;
  kind: "web" | "api";
  userAgent: string | null;
  createdAt: string;
  lastSeenAt: string;
  current: boolean;
};

/** The account's live sessions and API tokens (not expired, not idle too long), most recently used first. */
export async function listSessions(actor: Actor): Promise<SessionInfo[]> {
  const now = Date.now();
  const list = await db()
    .select()
    .from(sessions)
    .where(
      and(
        eq(sessions.userId, actor.id),
        gt(sessions.expiresAt, new Date(now)),
        gt(sessions.lastSeenAt, new Date(now - idleLimitMs(actor.accountType))),
      ),
    )
    .orderBy(desc(sessions.lastSeenAt));
  return list.map((s) => ({
    id: s.id,
    kind: s.kind,
    userAgent: s.userAgent,
    createdAt: s.createdAt.toISOString(),
    lastSeenAt: s.lastSeenAt.toISOString(),
    current: s.id === actor.sessionId,
  }));
}

/** Ends one of the actor's own sessions (someone else's id is simply not found). */
export async function revokeOwnSession(actor: Actor, sessionId: string): Promise<boolean> {
  const gone = await db()
    .delete(sessions)
    .where(and(eq(sessions.id, sessionId), eq(sessions.userId, actor.id)))
    .returning({ id: sessions.id });
  return gone.length === 1;
}
