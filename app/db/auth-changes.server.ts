import type Database from "better-sqlite3";
import pg from "pg";

/**
 * Tells this process when a signed-in actor may have changed anywhere in the cluster (decision
 * 0041). On PostgreSQL, triggers of migration 0012_auth_notify announce the user ids whose
 * sessions, account or specialties changed on channel "carebridge_auth"; one dedicated connection
 * per process LISTENs to it. `live()` is true only while that connection listens: whatever
 * happened while it was down is unknown, so the subscriber is told to forget everything when it
 * drops and again once it listens anew.
 *
 * SQLite has no channel, and needs none: every change is in the one file. There the watch
 * (`watchSqliteChanges`) compares, whenever it is asked, SQLite's count of commits by other
 * connections (any process) and this connection's count of changed rows with what they were when
 * last asked; when either moved, whatever changed, the subscriber forgets everything (decision 0125).
 */
export type AuthWatch = { live(): boolean; close(): Promise<void> };

export type AuthChange = readonly string[] | "all";

const CHANNEL = "carebridge_auth";
const NEVER: AuthWatch = { live: () => false, close: async () => {} };

export function watchAuthChanges(
  connectionString: string | undefined,
  onChange: (change: AuthChange) => void,
): AuthWatch {
  if (!connectionString) return NEVER;
  let client: pg.Client | undefined;
  let listening = false;
  let closed = false;
  let retryMs = 500;
  let timer: NodeJS.Timeout | undefined;

  const lost = () => {
    if (listening) onChange("all");
    listening = false;
  };

  const schedule = () => {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      void connect();
    }, retryMs);
    timer.unref();
    retryMs = Math.min(retryMs * 2, 30_000);
  };

  async function connect() {
    if (closed) return;
    const c = new pg.Client({
      connectionString,
      application_name: `carebridge-auth-${process.pid}`,
      connectionTimeoutMillis: 5_000,
      keepAlive: true,
    });
    client = c;
    c.on("error", () => {
      lost();
      schedule();
    });
    c.on("end", () => {
      if (client === c) client = undefined;
      lost();
      schedule();
    });
    c.on("notification", (msg) => {
      if (msg.channel !== CHANNEL || !listening) return;
      const payload = msg.payload ?? "*";
      onChange(payload === "*" ? "all" : payload.split(","));
    });
    try {
      await c.connect();
      // The listener must never keep a process alive that is otherwise done (tests, scripts).
      (c as unknown as { connection?: { stream?: { unref?: () => void } } }).connection?.stream?.unref?.();
      await c.query(`LISTEN ${CHANNEL}`);
      if (closed) return void c.end().catch(() => {});
      // Anything may have changed before the LISTEN took effect.
      onChange("all");
      listening = true;
      retryMs = 500;
    } catch {
      lost();
      c.end().catch(() => {});
      schedule();
    }
  }

  void connect();
  return {
    live: () => listening && !closed,
    async close() {
      closed = true;
      listening = false;
      if (timer) clearTimeout(timer);
      const c = client;
      client = undefined;
      if (c) await c.end().catch(() => {});
    },
  };
}

/**
 * SQLite (decision 0125): `data_version` moves whenever another connection — another worker, a
 * script, an operator's sqlite3 — commits, and `total_changes()` whenever this connection changes
 * a row, so between two asks that find both unchanged nothing in the file changed at all. The ask
 * is one prepared statement, answered from SQLite's memory (no table is read). Conservative by
 * design: any write anywhere, not only to sessions, users or specialties, forgets everything.
 * Called synchronously by `live()`: a change is heard before `live()` answers, so a subscriber
 * that checks its counter of forgettings after `live()` never keeps a lookup that raced a change.
 */
export function watchSqliteChanges(
  sqlite: Database.Database,
  onChange: (change: AuthChange) => void,
): AuthWatch {
  const ask = sqlite.prepare("SELECT (SELECT data_version FROM pragma_data_version), total_changes()").raw();
  let seen: string | undefined;
  let closed = false;
  return {
    live() {
      if (closed || !sqlite.open) return false;
      const [version, changes] = ask.get() as [number, number];
      const now = `${version}:${changes}`;
      if (now !== seen) {
        // The first ask too: nothing was remembered against this watch before it.
        seen = now;
        onChange("all");
      }
      return true;
    },
    async close() {
      closed = true;
    },
  };
}
