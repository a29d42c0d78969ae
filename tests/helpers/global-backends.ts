import type { TestProject } from "vitest/node";
import { rmSync } from "node:fs";
import path from "node:path";
import { startPostgres, startS3, type Postgres, type S3Server } from "./backends";
import { makePgTemplate, makeSqliteTemplate } from "./templates";

/**
 * Vitest global setup, run once per project. For the pg-s3 project (its env says
 * TEST_BACKEND=pg-s3) it starts one PostgreSQL cluster and one S3-protocol server for the whole
 * run (each test server then gets its own database and bucket); for the others it does nothing.
 * The addresses reach the test files through the environment, which forked workers inherit.
 */
export async function setup(project: TestProject) {
  // Every project: a migrated SQLite file that servers and domain tests start from (tests/helpers/templates.ts).
  if (!process.env.CB_TEST_SQLITE_TEMPLATE) {
    const file = makeSqliteTemplate();
    process.env.CB_TEST_SQLITE_TEMPLATE = file;
    if (project.config.env?.TEST_BACKEND !== "pg-s3")
      return () => rmSync(path.dirname(file), { recursive: true, force: true });
  }
  if (project.config.env?.TEST_BACKEND !== "pg-s3") return;
  const [pg, s3]: [Postgres, S3Server] = await Promise.all([startPostgres(), startS3()]);
  process.env.CB_TEST_PG_URL = pg.url();
  process.env.CB_TEST_PG_TEMPLATE = await makePgTemplate(pg.url());
  process.env.CB_TEST_S3_ENDPOINT = s3.endpoint;
  // The teardown that stops exactly these two (returned, so no other project's teardown can).
  return async () => {
    await Promise.allSettled([pg.stop(), s3.stop()]);
  };
}
