import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDomain, makeExpert, makePatient, type Domain } from "../helpers/factories";

/*
 * Resolved sessions kept in memory for reads (decision 0041). On PostgreSQL the triggers of
 * migration 0012_auth_notify announce which users changed; here a second connection LISTENs like
 * a node would, and the domain's own watch is checked against writes made behind its back. On
 * SQLite nothing is remembered: a session deleted in the file is gone for the very next read.
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
  it("SQLite remembers nothing: a session deleted in the file ends with the next read", async () => {
    if (!sqlite()) return;
    const p = await makePatient();
    expect(await d.accounts.resolveToken(p.token, "web", { read: true })).not.toBeNull();
    await outside("DELETE FROM sessions WHERE id = ?", [p.sessionId]);
    expect(await d.accounts.resolveToken(p.token, "web", { read: true })).toBeNull();
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
