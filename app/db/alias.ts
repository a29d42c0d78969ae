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
