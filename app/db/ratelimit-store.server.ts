import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterSQLite,
  type RateLimiterAbstract,
} from "rate-limiter-flexible";
import { pgPool, sqliteConnection } from "./client.server";

/** What a limiter counts: a key prefix, and `points` per `duration` seconds. */
export type LimiterOptions = { keyPrefix: string; points: number; duration: number };

/**
 * The database handle the limiters are built on. It changes when the database is reopened (tests,
 * restarts inside one process); limiters built on the old handle must then be built again.
 */
export function rateLimitStoreHandle(): unknown {
  return pgPool() ?? sqliteConnection();
}

/**
 * A limiter counting in the app's database (decision 0008), on our migrated table `rate_limits`:
 * RateLimiterSQLite (an INSERT … ON CONFLICT … RETURNING per consume, which SQLite serialises
 * across processes) or RateLimiterPostgres on the app's pool (the same upsert, atomic across
 * nodes). The dialect is chosen here, so the domain only asks for a limiter.
 *
 * What a failed count does differs with the dialect. SQLite: a write busy beyond its timeout while
 * another process writes is counted in memory instead, and the request goes on (its reads are not
 * held by that writer). PostgreSQL: the limiter's error ends the request, as any statement's does
 * (decision 0075). Its statements fail only when the database is down, frozen or out of
 * connections, and then every later statement of the request meets the same: with a count in
 * memory instead, a sign-in went on to its next limiter statement and then its user lookup, each
 * waiting out its own 5-second bound (15 s behind a frozen database, where every other request
 * was answered 503 within 5 s).
 */
export function databaseLimiter(opts: LimiterOptions): RateLimiterAbstract {
  const common = {
    ...opts,
    tableName: "rate_limits",
    tableCreated: true,
    clearExpiredByTimeout: false, // pruneRateLimits() does it
  };
  const pool = pgPool();
  if (pool) return new RateLimiterPostgres({ ...common, storeClient: pool, storeType: "pool" });
  return new RateLimiterSQLite({
    ...common,
    storeClient: sqliteConnection(),
    storeType: "better-sqlite3",
    insuranceLimiter: new RateLimiterMemory(opts),
  });
}
