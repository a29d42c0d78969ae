import { spawn } from "node:child_process";
import { accessSync, constants, existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";

/*
 * PostgreSQL's client tools (pg_dump, pg_restore) as child processes: found, given the password
 * outside their command line, and run with their errors kept. Used by backups (decisions 0011,
 * 0067) and by the copy taken before an upgrade migrates the database (decision 0070).
 */

/** A PostgreSQL client tool: on PATH, else in Debian's /usr/lib/postgresql/<version>/bin (newest first). */
export function findPgTool(name: "pg_dump" | "pg_restore"): string {
  const candidates = (process.env.PATH ?? "").split(path.delimiter).filter(Boolean);
  const debian = "/usr/lib/postgresql";
  if (existsSync(debian)) {
    const versions = readdirSync(debian).sort((a, b) => Number(b) - Number(a) || b.localeCompare(a));
    candidates.push(...versions.map((v) => path.join(debian, v, "bin")));
  }
  for (const dir of candidates) {
    const file = path.join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      /* not here */
    }
  }
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
 * Runs a tool; rejects with the end of what it printed on stderr when it fails. `onLine` hears
 * stdout line by line (nothing is kept); without it stdout is ignored.
 */
export function runTool(
  file: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  onLine?: (line: string) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env, stdio: ["ignore", onLine ? "pipe" : "ignore", "pipe"] });
    let errors = "";
    child.stderr!.on("data", (d: Buffer) => {
      errors = (errors + d.toString("utf8")).slice(-2000);
    });
    const lines = onLine ? createInterface({ input: child.stdout!, crlfDelay: Infinity }) : undefined;
    lines?.on("line", onLine!);
    const closed = lines ? new Promise((r) => lines.once("close", r)) : Promise.resolve();
    child.once("error", reject);
    child.once("exit", (code, signal) => {
      void closed.then(() =>
        code === 0
          ? resolve()
          : reject(
              new Error(
                `${path.basename(file)} failed (${signal ?? `exit ${code}`})${errors.trim() ? `: ${errors.trim()}` : ""}`,
              ),
            ),
      );
    });
  });
}
