/**
 * What an error from the database says about the database itself (decision 0060): it cannot be reached
 * now (down, restarting, out of connections, locked too long), or it is out of space. Anything else
 * — a constraint, a bad query — is not a fault of the database and stays a bug. Dialect knowledge
 * (SQLSTATEs, SQLite result codes) lives here.
 */
export type DatabaseFault = "unavailable" | "full";

/** Node's network error codes: the server is not there, or the connection broke. */
export const NETWORK = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);
/**
 * The ones that can only mean the database could not be reached: a broken connection (ECONNRESET,
 * EPIPE) may as well be a client that left mid-request, and node-postgres reports a connection lost
 * mid-query in its own words (below).
 */
const NOT_REACHED = new Set(["ECONNREFUSED", "ETIMEDOUT", "EHOSTUNREACH", "ENOTFOUND", "EAI_AGAIN"]);
/** node-postgres's own words when a connection could not be made or was lost. */
const PG_LOST =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|is not queryable|Connection ended unexpectedly|the database system is (starting up|shutting down|in recovery mode)/;

export function databaseFault(err: unknown): DatabaseFault | null {
  for (const e of causes(err)) {
    const code = typeof e.code === "string" ? e.code : "";
    if (code === "SQLITE_FULL" || code === "53100") return "full";
    if (/^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN)/.test(code)) return "unavailable";
    // SQLSTATE class 08 (connection exception), 57P01–57P03 (shut down, crashed, not accepting
    // connections yet), 53300 (too many connections), 53200 (out of memory).
    if (/^(08[0-9A-Z]{3}|57P0[123]|53300|53200)$/.test(code)) return "unavailable";
    if (NOT_REACHED.has(code)) return "unavailable";
    // The driver's own socket broke (`read ECONNRESET`, `write EPIPE`: the server went away
    // mid-query); a client that left mid-request has no syscall on its error.
    if (
      (code === "ECONNRESET" || code === "EPIPE") &&
      typeof (e as { syscall?: unknown }).syscall === "string"
    )
      return "unavailable";
    if (typeof e.message === "string" && PG_LOST.test(e.message)) return "unavailable";
  }
  return null;
}

type ErrorLike = { code?: unknown; message?: unknown; cause?: unknown; $metadata?: unknown };

/** The error and what it wraps (Drizzle wraps a driver's error in `cause`), a few levels deep. */
export function* causes(err: unknown): Generator<ErrorLike> {
  let e = err;
  for (let depth = 0; depth < 5 && e && typeof e === "object"; depth++) {
    yield e as ErrorLike;
    if (e instanceof AggregateError)
      for (const inner of e.errors) if (inner && typeof inner === "object") yield inner;
    e = (e as ErrorLike).cause;
  }
}
