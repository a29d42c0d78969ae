import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDomain, makeExpert, makePatient, type Domain } from "../helpers/factories";

/*
 * Resolved sessions kept in memory for reads (decision 0041). On PostgreSQL the triggers of
 * migration 0012_auth_notify announce which users changed; here a second connection LISTENs like
 * a node would, and the domain's own watch is checked against writes made behind its back. On
 * SQLite (decision 0125) any change in the file, by this connection or another, is forgotten by
 * the very next read.
 */

let d: Domain;
beforeAll(async () => {
  d = await freshDomain();
});
afterAll(() => d?.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(ms: number, check: () => boolean | Promise<boolean>) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) return false;
    await sleep(10);
  }
  return true;
}

/** Runs SQL on the app's database outside the app's pool (as another node or an operator would). */
async function outside(text: string, params: unknown[] = []) {
  if (d.db.dialect() === "sqlite")
    return d.db
      .sqliteConnection()!
      .prepare(text)
      .run(...params);
  const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await c.connect();
  try {
    return await c.query(text, params);
  } finally {
    await c.end();
  }
}

const sqlite = () => d.db.dialect() === "sqlite";

describe("resolved sessions for reads", () => {
  it("SQLite: a change on this connection or on another one (another worker, sqlite3) ends what reads remembered", async () => {
    if (!sqlite()) return;
    const Database = (await import("better-sqlite3")).default;
    const file = d.db.sqliteConnection()!.name;
    const other = new Database(file);
    try {
      other.pragma("busy_timeout = 5000");
      const p = await makePatient({ firstName: "Asha" });
      const read = () => d.accounts.resolveToken(p.token, "web", { read: true });
      expect((await read())?.firstName).toBe("Asha");
      expect((await read())?.firstName).toBe("Asha");
      // Another connection renames her: the very next read sees it.
      other.prepare("UPDATE users SET first_name = 'Quiet' WHERE id = ?").run(p.id);
      expect((await read())?.firstName).toBe("Quiet");
      expect((await read())?.firstName).toBe("Quiet");
      // This connection's own write, outside the domain: the same.
      await outside("UPDATE users SET first_name = 'Loud' WHERE id = ?", [p.id]);
      expect((await read())?.firstName).toBe("Loud");
      // A session ended by another connection ends for reads at once, and one ended here too.
      const q = await makePatient();
      expect(await d.accounts.resolveToken(q.token, "api", { read: true })).toBeNull();
      expect(await d.accounts.resolveToken(q.token, "web", { read: true })).not.toBeNull();
      other.prepare("DELETE FROM sessions WHERE id = ?").run(q.sessionId);
      expect(await d.accounts.resolveToken(q.token, "web", { read: true })).toBeNull();
      expect(await read()).not.toBeNull();
      await outside("DELETE FROM sessions WHERE id = ?", [p.sessionId]);
      expect(await read()).toBeNull();
      // A suspension through the domain's own statements.
      const r = await makePatient();
      const readR = () => d.accounts.resolveToken(r.token, "web", { read: true });
      expect(await readR()).not.toBeNull();
      other.prepare("UPDATE users SET suspended_at = ? WHERE id = ?").run(Date.now(), r.id);
      expect(await readR()).toBeNull();
    } finally {
      other.close();
    }
  });

  it("SQLite: a read that looked up before a change landed does not keep what it found", async () => {
    if (!sqlite()) return;
    const p = await makePatient({ firstName: "Name0" });
    const read = () => d.accounts.resolveToken(p.token, "web", { read: true });
    const rename = (name: string) =>
      d.db.sqliteConnection()!.prepare("UPDATE users SET first_name = ? WHERE id = ?").run(name, p.id);
    // The change lands a few microtasks after the read began: after its statement, before it
    // decides whether to keep the answer. Whatever the number of steps in between, the next read
    // sees the change.
    for (let hops = 0; hops < 8; hops++) {
      const name = `Name${hops + 1}`;
      const reading = read();
      let later: Promise<void> = Promise.resolve();
      for (let i = 0; i < hops; i++) later = later.then(() => undefined);
      void later.then(() => rename(name));
      await reading;
      await later;
      expect((await read())?.firstName).toBe(name);
    }
  });

  it("PostgreSQL announces which users changed, once per statement, and not for 'last used'", async () => {
    if (sqlite()) return;
    const heard: string[] = [];
    const listener = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await listener.connect();
    listener.on("notification", (m) => heard.push(m.payload ?? ""));
    await listener.query("LISTEN carebridge_auth");
    try {
      const a = await makePatient();
      const e = await makeExpert({ specialties: ["Cardiology"] });
      const settle = async (n: number) => {
        expect(await until(2_000, () => heard.length >= n)).toBe(true);
        await sleep(50);
        return heard.splice(0);
      };
      await sleep(300); // making the expert announced their specialties
      heard.splice(0);
      await d.accounts.revokeSession(a.sessionId);
      expect(await settle(1)).toEqual([a.id]);
      await outside("UPDATE users SET first_name = 'X' WHERE id = ANY($1)", [[a.id, e.id]]);
      expect((await settle(1))[0].split(",").sort()).toEqual([a.id, e.id].sort());
      await outside("INSERT INTO expert_specialties (user_id, specialty) VALUES ($1, 'Neurology')", [e.id]);
      expect(await settle(1)).toEqual([e.id]);
      // Touching "last used" is not a change of the actor.
      await outside("UPDATE sessions SET last_seen_at = now() WHERE user_id = $1", [e.id]);
      await sleep(300);
      expect(heard).toEqual([]);
      // A prune of many users' sessions is one announcement: forget everything.
      const many = await Promise.all(Array.from({ length: 110 }, () => makePatient()));
      heard.splice(0);
      await outside("DELETE FROM sessions WHERE user_id = ANY($1)", [many.map((m) => m.id)]);
      expect(await settle(1)).toEqual(["*"]);
    } finally {
      await listener.end();
    }
  });

  it("PostgreSQL: a read is answered from memory only while the watch listens, and forgets on announcement", async () => {
    if (sqlite()) return;
    const p = await makePatient({ firstName: "Asha" });
    const read = () => d.accounts.resolveToken(p.token, "web", { read: true });
    // The first reads start the watch; once it listens, a read is remembered.
    expect(await read()).not.toBeNull();
    expect(await until(5_000, async () => (await read()) !== null && (await listening()) > 0)).toBe(true);
    await read();
    // Changed behind the triggers' back (the replica role fires none): only memory keeps the old name.
    const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await c.connect();
    try {
      await c.query("SET session_replication_role = replica");
      await c.query("UPDATE users SET first_name = 'Quiet' WHERE id = $1", [p.id]);
    } finally {
      await c.end();
    }
    // Remembered: the read does not see the silent change…
    expect((await read())?.firstName).toBe("Asha");
    // …a write always looks the session up…
    expect((await d.accounts.resolveToken(p.token, "web"))?.firstName).toBe("Quiet");
    // …and an announced change is forgotten by the next reads.
    await outside("UPDATE users SET first_name = 'Loud' WHERE id = $1", [p.id]);
    expect(await until(2_000, async () => (await read())?.firstName === "Loud")).toBe(true);
    // A session deleted by another node ends for reads too.
    await outside("DELETE FROM sessions WHERE id = $1", [p.sessionId]);
    expect(await until(2_000, async () => (await read()) === null)).toBe(true);
  });
});

async function listening(): Promise<number> {
  const r = await outside(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND query ILIKE 'LISTEN%'",
    [`carebridge-auth-${process.pid}`],
  );
  return (r as pg.QueryResult<{ n: number }>).rows[0].n;
}
