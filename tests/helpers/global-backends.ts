import { startPostgres, startS3, type Postgres, type S3Server } from "./backends";

/**
 * Vitest global setup. With TEST_BACKEND=pg-s3 it starts one PostgreSQL cluster and one
 * S3-protocol server for the whole run (each test server then gets its own database and bucket);
 * on the default SQLite run it does nothing.
 */
let pg: Postgres | undefined;
let s3: S3Server | undefined;

export async function setup() {
  if (process.env.TEST_BACKEND !== "pg-s3") return;
  [pg, s3] = await Promise.all([startPostgres(), startS3()]);
  process.env.CB_TEST_PG_URL = pg.url();
  process.env.CB_TEST_S3_ENDPOINT = s3.endpoint;
}

export async function teardown() {
  await Promise.allSettled([pg?.stop(), s3?.stop()]);
}
