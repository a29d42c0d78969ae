import { pgPool, sqliteConnection } from "./client.server";

/**
 * Bulk loads (the bench's seed, a restore): the list counters' triggers (decision 0031) fire once
 * per row, which for millions of rows costs more than the rows themselves. A bulk load sets them
 * aside (`setAsideListCountTriggers`), writes, then puts them back and recounts every list once
 * from the tables (the function it returned). Nothing else may
 * write while it runs (the counters would miss those writes).
 */
export async function setAsideListCountTriggers(): Promise<() => Promise<void>> {
  const lite = sqliteConnection();
  let saved: string[];
  if (lite) {
    const triggers = lite
      .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'list_counts_%'")
      .all() as { name: string; sql: string }[];
    for (const t of triggers) lite.exec(`DROP TRIGGER "${t.name}"`);
    saved = triggers.map((t) => t.sql);
  } else {
    const pool = pgPool()!;
    const { rows } = await pool.query<{ name: string; table: string; def: string }>(
      "SELECT t.tgname AS name, t.tgrelid::regclass::text AS table, pg_get_triggerdef(t.oid) AS def " +
        "FROM pg_trigger t WHERE NOT t.tgisinternal AND t.tgname LIKE 'list_counts_%'",
    );
    for (const t of rows) await pool.query(`DROP TRIGGER "${t.name}" ON ${t.table}`);
    saved = rows.map((t) => t.def);
  }
  /** Puts the triggers back and recounts every list. */
  return async () => {
    for (const def of saved) {
      if (lite) lite.exec(def);
      else await pgPool()!.query(def);
    }
    await recountLists();
  };
}

/**
 * Every list's total counted again from its table (the same statement as the migration's backfill).
 * Also the repair if a counter were ever found wrong. The centres' versions (`v:c:`, decision 0047)
 * are not counts: they are kept and moved on, so no node keeps figures from before the load.
 */
export async function recountLists(): Promise<void> {
  const lite = sqliteConnection();
  if (lite) {
    lite.transaction(() => {
      lite.exec(KEEP_VERSIONS);
      lite.exec(RECOUNT);
      lite.exec(`${BUMP_VERSIONS} ON CONFLICT (key) DO UPDATE SET n = n + 1`);
    })();
    return;
  }
  const client = await pgPool()!.connect();
  try {
    await client.query("BEGIN");
    await client.query(KEEP_VERSIONS);
    await client.query(RECOUNT);
    await client.query(
      `${BUMP_VERSIONS.replace("list_counts", "list_counts AS c")} ON CONFLICT (key) DO UPDATE SET n = c.n + 1`,
    );
    await client.query("COMMIT");
  } catch (err) {
    await client.query("ROLLBACK");
    throw err;
  } finally {
    client.release();
  }
}

/** Every counter's true value, computed from the rows (a GROUP BY over the tables, independent of the triggers). */
export const RECOUNT_QUERY = `SELECT k, count(*) FROM (
  SELECT 'r:s:' || reports.status AS k FROM reports
  UNION ALL SELECT 'r:sp:' || reports.status || ':' || reports.priority AS k FROM reports
  UNION ALL SELECT CASE WHEN reports.second_of IS NULL THEN 'r:st:' || reports.status || ':' || reports.report_type END AS k FROM reports
  UNION ALL SELECT CASE WHEN reports.second_of IS NULL THEN 'r:p:' || reports.patient_id END AS k FROM reports
  UNION ALL SELECT CASE WHEN reports.second_of IS NOT NULL THEN 'r:ss:' || reports.status || ':' || reports.second_specialty END AS k FROM reports
  UNION ALL SELECT 'r:e:' || reports.expert_id AS k FROM reports
  UNION ALL SELECT 'r:f:' || reports.followup_expert_id AS k FROM reports
  UNION ALL SELECT 'r:cs:' || reports.centre_id || ':' || reports.status || ':' || reports.priority AS k FROM reports
  UNION ALL SELECT 'a:all' AS k FROM audit_events
  UNION ALL SELECT 'a:a:' || audit_events.action AS k FROM audit_events
  UNION ALL SELECT 'u:all' AS k FROM users
  UNION ALL SELECT 'u:t:' || users.account_type AS k FROM users
  UNION ALL SELECT 'cm:all' AS k FROM contact_messages
  UNION ALL SELECT 'cb:all' AS k FROM callback_requests
  UNION ALL SELECT 'sms:all' AS k FROM sms_messages
  UNION ALL SELECT 'sms:s:' || sms_messages.status AS k FROM sms_messages
  UNION ALL SELECT 'rr:all' AS k FROM rights_requests
  UNION ALL SELECT 'rr:s:' || rights_requests.status AS k FROM rights_requests
  UNION ALL SELECT 'rr:t:' || rights_requests.type AS k FROM rights_requests
  UNION ALL SELECT 'rr:st:' || rights_requests.status || ':' || rights_requests.type AS k FROM rights_requests
  UNION ALL SELECT 'c:all' AS k FROM centres
  UNION ALL SELECT CASE WHEN patients.centre_access_revoked_at IS NULL THEN 'pc:' || patients.centre_id END AS k FROM patients
  UNION ALL SELECT 'p:c:' || patients.centre_id AS k FROM patients
) v WHERE k IS NOT NULL GROUP BY k`;
const RECOUNT = `INSERT INTO list_counts (key, n)\n${RECOUNT_QUERY}`;
const KEEP_VERSIONS = "DELETE FROM list_counts WHERE key NOT LIKE 'v:%'";
/** Every centre's version one step on (SQLite needs the WHERE before an upsert's ON CONFLICT). */
const BUMP_VERSIONS = "INSERT INTO list_counts (key, n) SELECT 'v:c:' || id, 1 FROM centres WHERE true";
