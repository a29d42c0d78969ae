import { count, eq, inArray, sql, type AnyColumn, type Placeholder, type SQL } from "drizzle-orm";
import { db, inList, listParam, preparedOnce, prepareQuery, type DB } from "~/db/client.server";
import { listCounts } from "~/db/schema";

/**
 * The lists' totals (decision 0031). Each list's total is one row of `list_counts`, kept exact by
 * triggers in the migrations of both dialects on every write to the counted tables (the domain,
 * an erasure's cascades, scripts alike), so a list never counts the archive per request. The keys
 * are written here and in those triggers; keep them in step.
 */
export const COUNT_KEYS = {
  reportsOfStatus: (status: string) => `r:s:${status}`,
  reportsOfStatusPriority: (status: string, priority: number) => `r:sp:${status}:${priority}`,
  /** First opinions only (a second opinion is counted by its specialty, below; decision 0038). */
  reportsOfStatusType: (status: string, type: string) => `r:st:${status}:${type}`,
  /** The patient's list: first opinions only (second opinions are shown inside their case). */
  reportsOfPatient: (patientId: string) => `r:p:${patientId}`,
  /** Second opinions by status and requested specialty. */
  secondOfStatusSpecialty: (status: string, specialty: string) => `r:ss:${status}:${specialty}`,
  reportsOfExpert: (expertId: string) => `r:e:${expertId}`,
  followupsOfExpert: (expertId: string) => `r:f:${expertId}`,
  auditAll: "a:all",
  auditOfAction: (action: string) => `a:a:${action}`,
  usersAll: "u:all",
  usersOfType: (type: string) => `u:t:${type}`,
  contactMessages: "cm:all",
  callbackRequests: "cb:all",
  smsAll: "sms:all",
  smsOfStatus: (status: string) => `sms:s:${status}`,
  rightsAll: "rr:all",
  rightsOfStatus: (status: string) => `rr:s:${status}`,
  rightsOfType: (type: string) => `rr:t:${type}`,
  rightsOfStatusType: (status: string, type: string) => `rr:st:${status}:${type}`,
  centresAll: "c:all",
  /** A centre's patients whose access the centre still holds (its queue). */
  centrePatients: (centreId: string) => `pc:${centreId}`,
  /** Every patient profile a centre registered, its access ended or not (its figures; decision 0046). */
  centreRegistered: (centreId: string) => `p:c:${centreId}`,
  /** A centre's reports (first and second opinions) by status and priority (its figures). */
  centreReportsOf: (centreId: string, status: string, priority: number) =>
    `r:cs:${centreId}:${status}:${priority}`,
  /**
   * Not a count: goes up on every write that adds, removes or changes one of a centre's reports
   * (the same triggers), so its 30-day figures can be kept until it moves (decision 0047).
   */
  centreVersion: (centreId: string) => `v:c:${centreId}`,
} as const;

type CountStatement = { execute(p: { key: string }): Promise<{ n: number }[]> };
let one: { handle: unknown; st: CountStatement } | undefined;

/** One list's total: a primary-key lookup of its counter row (0 when nothing was ever counted). */
export async function listCount(key: string): Promise<number> {
  const handle = db();
  if (one?.handle !== handle) {
    const query = handle
      .select({ n: listCounts.n })
      .from(listCounts)
      .where(eq(listCounts.key, sql.placeholder("key")));
    one = { handle, st: prepareQuery("list_count", query) as CountStatement };
  }
  return Number((await one.st.execute({ key }))[0]?.n ?? 0);
}

/**
 * A counter row's value as a column of another statement (`key` is usually a placeholder): a list
 * page brings its total along instead of asking for it in a statement of its own — on PostgreSQL
 * each statement is a round trip. Null when the row does not exist (a count of 0).
 */
export function counterColumn(key: Placeholder | string | SQL) {
  return sql<number | null>`(select ${listCounts.n} from ${listCounts} where ${listCounts.key} = ${key})`;
}

/**
 * A centre's counter key (`make`, one of COUNT_KEYS' centre keys) for one centre, or as SQL over
 * the centres a statement walks (`centre` its id column): one key format either way.
 */
export function centreKey(make: (centreId: string) => string, centre: string | AnyColumn): string | SQL {
  if (typeof centre === "string") return make(centre);
  const [before, after] = make("\u0000").split("\u0000");
  return sql`${before} || ${centre} || ${after}`;
}

/** Several totals in one query, in the order of `keys`. */
export async function listCountsOf(keys: string[]): Promise<number[]> {
  if (!keys.length) return [];
  if (keys.length === 1) return [await listCount(keys[0])];
  // Prepared once whatever the keys (a list parameter): the expert's queue asks for a dozen.
  const query = preparedOnce("list_counts_of_keys", (d) =>
    d.select({ key: listCounts.key, n: listCounts.n }).from(listCounts).where(inList(listCounts.key, "keys")),
  );
  const found = await query.execute({ keys: listParam([...new Set(keys)]) });
  const byKey = new Map(found.map((r) => [r.key, Number(r.n)]));
  return keys.map((k) => byKey.get(k) ?? 0);
}

/**
 * The counter rows named by a person's ids (their reports, the reports they reviewed, the
 * follow-ups they hold), deleted with the person: an erasure leaves no id behind, and no list can
 * name them again.
 */
export function forgetPersonCounts(tx: DB, userId: string, profileIds: string[]) {
  const keys = [
    ...profileIds.map(COUNT_KEYS.reportsOfPatient),
    COUNT_KEYS.reportsOfExpert(userId),
    COUNT_KEYS.followupsOfExpert(userId),
  ];
  return tx.delete(listCounts).where(inArray(listCounts.key, keys));
}

/** How far a list without an exact total counts before it says "more than". */
export const COUNT_CAP = 1000;

/**
 * Where an exact total is not needed (a search, a filter without its own counter): counts at
 * most `cap` + 1 matching rows, so the cost is bounded whatever the archive holds. Exact below the
 * cap; above it `lowerBound` is true and the list holds more than `total` rows.
 */
export async function cappedCount(
  rows: { limit(n: number): { as(alias: string): unknown } },
  cap = COUNT_CAP,
): Promise<{ total: number; lowerBound: boolean }> {
  const capped = rows.limit(cap + 1).as("capped") as Parameters<ReturnType<DB["select"]>["from"]>[0];
  const n = Number((await db().select({ n: count() }).from(capped))[0]?.n ?? 0);
  return n > cap ? { total: cap, lowerBound: true } : { total: n, lowerBound: false };
}
