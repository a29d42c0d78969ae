import { locate, runProgram } from "~/lib/programs.server";

/*
 * PostgreSQL's client tools (pg_dump, pg_restore) as child processes: found, given the password
 * outside their command line, and run with their errors kept. Used by backups (decisions 0011,
 * 0067) and by the copy taken before an upgrade migrates the database (decision 0070).
 */

/** A PostgreSQL client tool: on PATH, else in Debian's /usr/lib/postgresql/<version>/bin (newest first). */
export function findPgTool(name: "pg_dump" | "pg_restore"): string {
  const found = locate(name);
  if (found) return found;
  throw new Error(
    `${name} was not found on PATH or in /usr/lib/postgresql/*/bin. Install the PostgreSQL client tools ` +
      `(Debian/Ubuntu: apt-get install postgresql-client), in the same or a newer major version than the server.`,
  );
}

/**
 * libpq's view of DATABASE_URL: the password moves to PGPASSWORD (never on a command line, where
 * other users of the machine could read it) and node-postgres's `ssl=true` becomes `sslmode=require`.
 */
export function libpqTarget(url: string): { url: string; env: NodeJS.ProcessEnv } {
  const u = new URL(url);
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (u.password) {
    env.PGPASSWORD = decodeURIComponent(u.password);
    u.password = "";
  }
  const ssl = u.searchParams.get("ssl");
  if (ssl !== null) {
    u.searchParams.delete("ssl");
    if (/^(1|true|require)$/i.test(ssl) && !u.searchParams.has("sslmode"))
      u.searchParams.set("sslmode", "require");
  }
  return { url: u.toString(), env };
}

/**
 * Runs pg_dump or pg_restore through the one door (decision 0086); rejects with the end of what it
 * printed on stderr when it fails. `options` are its flags (values joined with `=`), `operands`
 * its archive file; `onLine` hears stdout line by line (nothing is kept); without it stdout is ignored.
 */
export async function runTool(
  name: "pg_dump" | "pg_restore",
  options: string[],
  env: NodeJS.ProcessEnv,
  onLine?: (line: string) => void,
  operands: string[] = [],
): Promise<void> {
  findPgTool(name);
  await runProgram(name, { options, operands, env, onLine: onLine ?? (() => {}), stderrBytes: 2000 });
}
