import { sql } from "drizzle-orm";
import { alias as pgAlias } from "drizzle-orm/pg-core";
import { alias as sqliteAlias } from "drizzle-orm/sqlite-core";
import { databaseKind } from "~/config.server";

/**
 * A second name for a table within one query (a self-join: the patient, the expert and the
 * approver are all `users`). Domain modules import it from here, never from a dialect's
 * `*-core` (decision 0010): it is built by the active dialect and typed, like `schema.ts`'s
 * tables, as SQLite's.
 */
export const alias: typeof sqliteAlias = (table, name) =>
  databaseKind() === "postgres" ? (pgAlias(table as never, name) as never) : sqliteAlias(table, name);

/**
 * A second name for a table inside a hand-written sub-select: an alias renders as its name alone
 * inside sql``, so the FROM clause has to name the table and the alias itself. Returns the alias
 * (for its columns) and that FROM item.
 */
export function aliasInSql<T extends Parameters<typeof sqliteAlias>[0]>(table: T, name: string) {
  return { as: alias(table, name), from: sql`${table} as ${sql.identifier(name)}` };
}
