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
 */
export function databaseLimiter(opts: LimiterOptions): RateLimiterAbstract {
  const common = {
    ...opts,
    tableName: "rate_limits",
    tableCreated: true,
    clearExpiredByTimeout: false, // pruneRateLimits() does it
    // Should the database not answer (busy beyond its timeout), count in memory rather than fail the request.
    insuranceLimiter: new RateLimiterMemory(opts),
  };
  const pool = pgPool();
  if (pool) return new RateLimiterPostgres({ ...common, storeClient: pool, storeType: "pool" });
  return new RateLimiterSQLite({ ...common, storeClient: sqliteConnection(), storeType: "better-sqlite3" });
}
