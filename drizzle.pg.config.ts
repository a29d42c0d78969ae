import { defineConfig } from "drizzle-kit";

/** PostgreSQL migrations (DATABASE_URL=postgres://…), from the same tables in their PostgreSQL types. */
export default defineConfig({
  dialect: "postgresql",
  schema: "./app/db/schema.pg.ts",
  out: "./drizzle/pg",
});
