import { and, desc, eq, gt, lt, ne, or, sql } from "drizzle-orm";
import { config } from "~/config.server";
import { affected, db, prepareQuery, timeParam, watchActors, type DB } from "~/db/client.server";
import { sessions, users, type AccountType } from "~/db/schema";
import type { Actor } from "../platform/actor";
import { specialtiesColumn, specialtiesFromColumn } from "./specialty-column.server";
import { pruneEndedSessions } from "./ended-sessions.server";
import { newId, newToken, sha256 } from "~/lib/ids.server";
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

/** The signed-in user as the domain sees them (defined in platform, which every context uses). */
export type { Actor };

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
        specialties: specialtiesColumn(users.id),
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

// ---------------------------------------------------------------------------------------------
// Resolved sessions kept in memory (decision 0041)
//
// On PostgreSQL the lookup is a round trip to another process on every signed-in request. A
// process keeps what it resolved for reads (GET/HEAD) for at most RESOLVED_TTL_MS, and only while
// it hears the cluster's announcements of changed sessions, accounts and specialties
// (watchActors: a logout, suspension, approval or password change on any node makes every node
// forget that user). Writes always look the session up. On SQLite the watch forgets everything
// whenever anything in the file changed since it was last asked (decision 0125).

/** How long a resolved session serves reads before it is looked up again. */
const RESOLVED_TTL_MS = 10_000;
/** At most this many resolved sessions per process (the oldest go first). */
const RESOLVED_MAX = 20_000;

type Resolved = { actor: Actor; until: number; expiresAt: number };
const resolved = new Map<string, Resolved>();
/** Bumped whenever anything is forgotten: a lookup that raced a change is not kept. */
let forgetting = 0;

/** Forgets everything, or the sessions of the users (or the sessions) whose ids are given. */
function forget(change: readonly string[] | "all") {
  forgetting++;
  if (change === "all") return resolved.clear();
  if (change.length === 0 || resolved.size === 0) return;
  for (const [key, r] of resolved)
    if (change.includes(r.actor.id) || change.includes(r.actor.sessionId)) resolved.delete(key);
}

let watch: { db: DB; live(): boolean } | undefined;

function watching(): boolean {
  const d = db();
  if (watch?.db !== d) {
    resolved.clear();
    const w = watchActors(forget);
    watch = { db: d, live: () => w.live() };
  }
  return watch.live();
}

function remembered(key: string, now: number): Actor | null {
  const r = resolved.get(key);
  if (!r) return null;
  if (now >= r.until || now >= r.expiresAt) {
    resolved.delete(key);
    return null;
  }
  return { ...r.actor };
}

function remember(key: string, actor: Actor, now: number, idle: number, expiresAt: number) {
  if (resolved.size >= RESOLVED_MAX) {
    const oldest = resolved.keys().next();
    if (!oldest.done) resolved.delete(oldest.value);
  }
  // Never longer than a quarter of the idle limit: a session cannot go idle while remembered.
  resolved.set(key, { actor, until: now + Math.min(RESOLVED_TTL_MS, idle / 4), expiresAt });
}

/**
 * Finds the live session for a token, or null (unknown, expired, revoked or suspended).
 * `read`: the request only reads (GET/HEAD), so a session resolved moments ago may serve it.
 */
export async function resolveToken(
  token: string,
  kind: "web" | "api",
  opts: { read?: boolean } = {},
): Promise<Actor | null> {
  if (!token || token.length > 200) return null;
  const hash = sha256(token);
  const key = `${kind}:${hash}`;
  const cacheable = opts.read === true && watching();
  if (cacheable) {
    const hit = remembered(key, Date.now());
    if (hit) return hit;
  }
  const before = forgetting;
  const d = db();
  if (tokenLookup?.db !== d) tokenLookup = { db: d, query: prepareTokenLookup(d) };
  const [row] = await tokenLookup.query.execute({ hash, kind, now: timeParam(Date.now()) });
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
  const actor = actorOf(row);
  // The watch first: on SQLite asking it is what hears a change made while the statement ran.
  if (cacheable && watching() && before === forgetting)
    remember(key, actor, now, idle, row.session.expiresAt.getTime());
  return { ...actor };
}

function actorOf(row: {
  session: typeof sessions.$inferSelect;
  user: typeof users.$inferSelect;
  specialties: string | null;
}): Actor {
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
    specialties: specialtiesFromColumn(row.specialties),
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
  await pruneEndedSessions();
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
