import { defineConfig } from "drizzle-kit";

/** SQLite migrations (the default database). PostgreSQL's are made by drizzle.pg.config.ts; `npm run db:generate` runs both. */
export default defineConfig({
  dialect: "sqlite",
  schema: "./app/db/schema.sqlite.ts",
  out: "./drizzle/sqlite",
});
