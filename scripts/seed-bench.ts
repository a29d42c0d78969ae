/**
 * Benchmark data (used by `npm run bench`, never by the app):
 *
 *   tsx scripts/seed-bench.ts --reports 100000     fills DATA_DIR / UPLOADS_DIR
 *   tsx scripts/seed-bench.ts --plans              EXPLAIN QUERY PLAN + timings of every list query
 *                                                  (on PostgreSQL: EXPLAIN (ANALYZE, BUFFERS) + timings)
 *
 * Seeding writes N reports spread over N/20 patients (one "bench" patient owns max(40, N/100)
 * of them) and N/100 patients of one centre (5 % of the reports), half still pending (10 %
 * urgent, all 13 types), the other half reviewed by one approved Radiology expert (2 % with a
 * follow-up question), with the audit events the app would have written (upload, review, some
 * file opens), contact messages and callback requests (1 % each), rights requests (0.2 %) — at
 * least 40 of each, so their lists show full pages at every size — other experts and the centre's
 * health workers. The list counters' triggers are set aside while loading, then put back and every
 * list recounted once (app/db/bulk-load.server.ts); checked at the end. The rows share a handful of
 * real encrypted files, stored once through the app's own file store: fine for reading
 * benchmarks, never delete such rows one by one.
 * Prints one JSON line: the accounts to log in with and the counts.
 */
import { parseArgs } from "node:util";

const { values: args } = parseArgs({
  options: { reports: { type: "string", default: "1000" }, plans: { type: "boolean", default: false } },
});

process.env.LOG_LEVEL ??= "silent";
const { sqliteConnection, pgPool, db, closeDatabase, migrateDatabase } = await import(
  "../app/db/client.server"
);
const sqlite = () => {
  const s = sqliteConnection();
  if (!s) throw new Error("expected SQLite");
  return s;
};

export const BENCH_PASSWORD = "Bench-pass-2026";
export const BENCH_PATIENT = "bench.patient@bench.test";
export const BENCH_EXPERT = "bench.expert@bench.test";
export const BENCH_ADMIN = "bench.admin@bench.test";

/** Small deterministic PRNG, so two runs seed the same shape. */
function prng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const BENCH_WORKER = "bench.worker@bench.test";

async function seed(n: number) {
  const started = performance.now();
  const { hashPassword } = await import("../app/domain/accounts/passwords.server");
  const { storeUpload } = await import("../app/domain/records/files.server");
  const { newId } = await import("../app/lib/ids.server");
  const { REPORT_TYPES } = await import("../app/schemas/reports");
  const schema = await import("../app/db/schema");
  const { users, reports, auditEvents, patients: patientProfiles } = schema;
  const { count } = await import("drizzle-orm");
  const { samplePdf } = await import("./samples");
  await migrateDatabase();
  const d = db();
  if (((await d.select({ n: count() }).from(reports))[0]?.n ?? 0) > 0) {
    throw new Error("seed-bench wants an empty database (use a fresh DATA_DIR / database)");
  }
  const rand = prng(n);
  const hash = await hashPassword(BENCH_PASSWORD);
  const keys: { key: string; size: number; fileName: string }[] = [];
  for (let i = 0; i < 4; i++) {
    async function* once() {
      yield new Uint8Array(samplePdf(`Benchmark report ${i + 1}`));
    }
    const f = await storeUpload(once(), {
      maxBytes: 1024 * 1024,
      allowed: "report",
      fileName: `bench-${i + 1}.pdf`,
    });
    keys.push(f);
  }

  // Rows are written as they are made, in multi-row inserts (500 rows a statement: inside
  // PostgreSQL's 65,535-parameter limit); the counters are recounted at the end and checked
  // below. SQLite: one transaction; PostgreSQL: each statement commits (synchronous_commit is off in the bench's cluster).
  const CHUNK = 500;
  const buffers = new Map<unknown, unknown[]>();
  const order: unknown[] = [];
  async function flush(table: unknown) {
    const rows = buffers.get(table);
    if (!rows?.length) return;
    buffers.set(table, []);
    await d.insert(table as typeof users).values(rows as (typeof users.$inferInsert)[]);
  }
  async function put<T>(table: { $inferInsert: T }, row: T) {
    let rows = buffers.get(table);
    if (!rows) {
      buffers.set(table, (rows = []));
      order.push(table);
    }
    rows.push(row);
    // Parents before children: a full buffer writes every buffer, in the order tables were first used.
    if (rows.length >= CHUNK) await flushAll();
  }
  async function flushAll() {
    for (const t of order) await flush(t);
  }
  // The counters' triggers fire once per row: set aside while loading, then every list recounted.
  const { setAsideListCountTriggers } = await import("../app/db/bulk-load.server");
  const restoreTriggers = await setAsideListCountTriggers();
  const lite = sqliteConnection();
  lite?.exec("BEGIN");

  const now = Date.now();
  const YEAR = 365 * 24 * 60 * 60 * 1000;
  type NewUser = typeof users.$inferInsert;
  const user = async (
    id: string,
    email: string,
    firstName: string,
    lastName: string,
    accountType: NewUser["accountType"],
    approved: boolean,
    createdAt = now - YEAR - 1000,
  ) => {
    const created = new Date(createdAt);
    await put(users, {
      id,
      email,
      passwordHash: hash,
      firstName,
      lastName,
      accountType,
      contactNumber: "9876543210",
      approved,
      createdAt: created,
      updatedAt: created,
    });
    if (accountType === "Patient")
      await put(patientProfiles, {
        id,
        accountId: id,
        firstName,
        lastName,
        createdAt: created,
        updatedAt: created,
      });
  };

  const patients = Math.max(10, Math.ceil(n / 20));
  const ownShare = Math.max(40, Math.floor(n / 100));
  const ids = { admin: newId(), expert: newId(), patient: newId(), worker: newId(), centre: newId() };
  const others: string[] = [];
  await user(ids.admin, BENCH_ADMIN, "Bench", "Admin", "Admin", true);
  await user(ids.expert, BENCH_EXPERT, "Bench", "Expert", "Expert", true);
  await user(ids.patient, BENCH_PATIENT, "Bench", "Patient", "Patient", false);
  for (let i = 1; i < patients; i++) {
    const id = newId();
    others.push(id);
    // Sign-ups spread over the year, so the admin's users list has an order to walk.
    await user(
      id,
      `patient${i}@bench.test`,
      `Patient${i}`,
      "Bench",
      "Patient",
      false,
      now - YEAR + Math.floor((i / patients) * YEAR),
    );
  }
  // A few other experts, some waiting for approval, and the bench expert's specialties
  // (Radiology reads 4 of the 13 report types: the specialty queue's first segment).
  for (let i = 0; i < 20; i++)
    await user(newId(), `expert${i}@bench.test`, `Expert${i}`, "Bench", "Expert", i % 2 === 0);
  await flushAll();
  await d
    .insert(schema.expertProfiles)
    .values({ userId: ids.expert, registrationNumber: "BENCH-1", registrationCouncil: "Bench Council" });
  await d.insert(schema.expertSpecialties).values({ userId: ids.expert, specialty: "Radiology" });
  // A centre with its health workers and the patients it registered (no accounts of their own).
  await d.insert(schema.centres).values({
    id: ids.centre,
    name: "Bench Health & Wellness Centre",
    kind: "hwc",
    district: "Nashik",
    state: "Maharashtra",
  });
  await user(ids.worker, BENCH_WORKER, "Bench", "Worker", "HealthWorker", true);
  for (let i = 0; i < 9; i++)
    await user(newId(), `worker${i}@bench.test`, `Worker${i}`, "Bench", "HealthWorker", i % 3 !== 0);
  await flushAll();
  const workers = (
    await d
      .select({ id: users.id })
      .from(users)
      .where((await import("drizzle-orm")).eq(users.accountType, "HealthWorker"))
  ).map((r) => r.id);
  for (const w of workers)
    await put(schema.healthWorkers, { userId: w, centreId: ids.centre, role: "asha" as const, workerId: "" });
  const centrePatients: string[] = [];
  const centreCount = Math.max(10, Math.floor(n / 100));
  for (let i = 0; i < centreCount; i++) {
    const id = newId();
    centrePatients.push(id);
    const created = new Date(now - YEAR + Math.floor((i / centreCount) * YEAR));
    await put(patientProfiles, {
      id,
      firstName: `Kamla${i}`,
      lastName: "Bai",
      locality: "Sinnar",
      locale: "hi",
      centreId: ids.centre,
      registeredBy: ids.worker,
      createdAt: created,
      updatedAt: created,
    });
  }
  await flushAll();

  let pending = 0;
  let followUps = 0;
  // One row every `per` reports, but at least 40 in all: the admin's short queues fill two pages at
  // every size, so the bench compares the same page at 1,000 and at 1,000,000 reports.
  const every = (per: number) => Math.max(1, Math.min(per, Math.floor(n / 40)));
  const [messageEvery, rightsEvery] = [every(100), every(500)];
  let openRights = 0;
  for (let i = 0; i < n; i++) {
    const id = newId();
    // Own reports are spread evenly through time, 5 % belong to the centre's patients, the rest
    // at random among the other patients.
    const own = i % Math.floor(n / ownShare) === 0;
    const atCentre = !own && rand() < 0.05;
    const patient = own
      ? ids.patient
      : atCentre
        ? centrePatients[Math.floor(rand() * centrePatients.length)]
        : others[Math.floor(rand() * others.length)];
    const createdAt = now - YEAR + Math.floor((i / n) * YEAR) + Math.floor(rand() * 1000);
    const file = keys[i % keys.length];
    const type = REPORT_TYPES[Math.floor(rand() * REPORT_TYPES.length)];
    const reviewed = rand() < 0.5;
    const reviewedAt = reviewed ? createdAt + Math.floor(rand() * 3 * 24 * 60 * 60 * 1000) : null;
    const urgent = rand() < 0.1;
    const followUp = reviewed && rand() < 0.02;
    if (!reviewed) pending++;
    await put(reports, {
      id,
      patientId: patient,
      // As the upload writes it (the insert trigger would copy it from the profile otherwise).
      centreId: atCentre ? ids.centre : null,
      reportType: type,
      description: rand() < 0.5 ? "Routine check, no symptoms." : null,
      phoneNumber: "+919876543210",
      fileKey: file.key,
      fileName: file.fileName,
      mimeType: "application/pdf",
      size: file.size,
      consentAt: new Date(createdAt),
      status: reviewed ? "Reviewed" : "Pending",
      review: reviewed ? "Values are within the normal range. No action needed." : null,
      expertId: reviewed ? ids.expert : null,
      reviewedAt: reviewedAt ? new Date(reviewedAt) : null,
      priority: urgent ? 0 : 1,
      urgentReason: urgent ? "Chest pain" : null,
      followupExpertId: followUp ? ids.expert : null,
      createdAt: new Date(createdAt),
      updatedAt: new Date(reviewedAt ?? createdAt),
    });
    const audit = async (actorId: string, action: string, detail: string | null, at: number) =>
      put(auditEvents, {
        id: newId(),
        actorId,
        action,
        subjectType: "report",
        subjectId: id,
        detail,
        ip: "127.0.0.1",
        createdAt: new Date(at),
      });
    await audit(
      patient,
      "report.upload",
      JSON.stringify({ mimeType: "application/pdf", size: file.size }),
      createdAt,
    );
    if (reviewed) {
      await audit(ids.expert, "report.file_open", null, reviewedAt! - 60_000);
      await audit(ids.expert, "report.review", null, reviewedAt!);
    }
    if (followUp) {
      followUps++;
      await put(schema.reportFollowups, {
        id: newId(),
        reportId: id,
        question: "Should I repeat the test?",
        askedAt: new Date(reviewedAt! + 3_600_000),
        answer: rand() < 0.5 ? "Yes, in three months." : null,
        answeredBy: null,
        answeredAt: null,
      });
    }
    // Public forms and data-rights requests arrive alongside.
    if (i % messageEvery === 0)
      await put(schema.contactMessages, {
        id: newId(),
        name: `Visitor ${i}`,
        email: `visitor${i}@bench.test`,
        message: "When will my report be reviewed?",
        createdAt: new Date(createdAt),
      });
    if (i % messageEvery === Math.floor(messageEvery / 2))
      await put(schema.callbackRequests, {
        id: newId(),
        name: `Caller ${i}`,
        countryCode: "+91",
        phoneNumber: "9876543210",
        message: null,
        createdAt: new Date(createdAt),
      });
    if (i % rightsEvery === 0)
      await put(schema.rightsRequests, {
        id: newId(),
        userId: others[Math.floor(rand() * others.length)],
        type: rand() < 0.7 ? "correction" : "erasure",
        // The queue lists the open ones: the first 40 are open, a fifth of the rest.
        status: rand() < 0.2 || openRights++ < 40 ? "open" : "done",
        details: "Please correct my year of birth.",
        createdAt: new Date(createdAt),
      });
  }
  await flushAll();
  lite?.exec("COMMIT");
  await restoreTriggers();

  // The triggers kept the counters; check the two a bench reads most against a real count.
  const { listCount, COUNT_KEYS } = await import("../app/domain/platform/list-counts.server");
  const counted = {
    pending: await listCount(COUNT_KEYS.reportsOfStatus("Pending")),
    audit: await listCount(COUNT_KEYS.auditAll),
  };
  const real = {
    pending: Number(
      (
        await d
          .select({ n: count() })
          .from(reports)
          .where((await import("drizzle-orm")).eq(reports.status, "Pending"))
      )[0]?.n,
    ),
    audit: Number((await d.select({ n: count() }).from(auditEvents))[0]?.n),
  };
  if (counted.pending !== real.pending || counted.audit !== real.audit)
    throw new Error(`list counters disagree after seeding: ${JSON.stringify({ counted, real })}`);
  console.log(
    JSON.stringify({
      reports: n,
      pending,
      patients,
      centrePatients: centreCount,
      followUps,
      auditEvents: real.audit,
      seconds: Math.round((performance.now() - started) / 100) / 10,
      benchPatientReports: Math.ceil(n / Math.floor(n / ownShare)),
      ids,
      emails: { admin: BENCH_ADMIN, expert: BENCH_EXPERT, patient: BENCH_PATIENT, worker: BENCH_WORKER },
      password: BENCH_PASSWORD,
    }),
  );
}

type Actor = { id: string; approved: boolean; sessionId: string } & Record<string, unknown>;

/** Every list function of the domain, as one actor of each kind calls it. */
async function listCases(admin: any, expert: any, patient: any, worker: any) {
  const reportsDomain = await import("../app/domain/consultation/index.server");
  const { listPendingExperts, listApprovedExperts } = await import("../app/domain/accounts/experts.server");
  const { listAuditEvents } = await import("../app/domain/platform/audit.server");
  const { listUsers } = await import("../app/domain/accounts/users.server");
  const { listContactMessages, listCallbackRequests, listSmsMessages } = await import(
    "../app/domain/messaging/index.server"
  );
  const { listRightsRequests } = await import("../app/domain/rights/rights-admin.server");
  const { centreQueue } = await import("../app/domain/care/centre-queue.server");
  const { listCentres } = await import("../app/domain/consultation/centre-figures.server");
  const { listHealthWorkers } = await import("../app/domain/care/workers.server");
  const page = { page: 1, pageSize: 20 };
  const cases: [string, () => unknown][] = [
    ["pending reports (Expert)", () => reportsDomain.listPendingReports(expert, page)],
    ["pending reports of one type", () => reportsDomain.listPendingReports(expert, page, "Blood Test")],
    ["pending reports, page 50", () => reportsDomain.listPendingReports(expert, { page: 50, pageSize: 20 })],
    [
      "pending queue (urgent first, oldest)",
      () => reportsDomain.listPendingReports(expert, page, { sort: "queue" }),
    ],
    [
      "pending queue, specialty types first",
      () => reportsDomain.listPendingReports(expert, page, { sort: "queue", match: "first" }),
    ],
    [
      "pending queue, specialty types only, page 50",
      () =>
        reportsDomain.listPendingReports(
          expert,
          { page: 50, pageSize: 20 },
          { sort: "queue", match: "only" },
        ),
    ],
    ["patient's reports (+ file views)", () => reportsDomain.listPatientReports(patient, patient.id, page)],
    ["reviewed by this expert", () => reportsDomain.listReviewedByExpert(expert, page)],
    ["follow-up threads (Expert)", () => reportsDomain.listFollowUpThreads(expert, page)],
    ["all reviewed (Admin)", () => reportsDomain.listAllReviewed(admin, page)],
    ["pending experts", () => listPendingExperts(admin, page)],
    ["approved experts", () => listApprovedExperts(admin, page)],
    ["users (Admin)", () => listUsers(admin, { ...page })],
    ["users of one type (Admin)", () => listUsers(admin, { ...page, accountType: "Patient" })],
    ["audit log (Admin)", () => listAuditEvents(admin, { ...page })],
    ["audit log of one action (Admin)", () => listAuditEvents(admin, { ...page, action: "report.review" })],
    ["contact messages (Admin)", () => listContactMessages(admin, page)],
    ["callback requests (Admin)", () => listCallbackRequests(admin, page)],
    ["SMS (Admin)", () => listSmsMessages(admin, { ...page })],
    ["rights requests, open (Admin)", () => listRightsRequests(admin, { ...page })],
    ["centres (Admin)", () => listCentres(admin, page)],
    ["health workers (Admin)", () => listHealthWorkers(admin, { status: "approved" }, page)],
    ["centre queue (health worker)", () => centreQueue(worker, page)],
    ["centre queue, name search", () => centreQueue(worker, page, { q: "kamla1" })],
  ];
  return cases;
}

/**
 * PostgreSQL: the same cases; the SQL and parameters are captured at the pool, then each
 * statement gets EXPLAIN (ANALYZE, BUFFERS) and its median time as a named prepared statement
 * on one connection (as the app runs its lists), and whether PostgreSQL ended on a generic plan.
 */
async function plansPostgres(pool: NonNullable<ReturnType<typeof pgPool>>) {
  const actor = async (email: string): Promise<Actor> => {
    const { rows } = await pool.query(
      `SELECT id, email, first_name AS "firstName", last_name AS "lastName", account_type AS "accountType", approved, image, locale FROM users WHERE email = $1`,
      [email],
    );
    return { ...rows[0], sessionId: "plans" };
  };
  const cases = await listCases(
    await actor(BENCH_ADMIN),
    await actor(BENCH_EXPERT),
    await actor(BENCH_PATIENT),
    await actor(BENCH_WORKER),
  );
  const counts = (
    await pool.query(
      "SELECT (SELECT count(*) FROM reports) AS reports, (SELECT count(*) FROM reports WHERE status = 'Pending') AS pending, (SELECT count(*) FROM audit_events) AS audit",
    )
  ).rows[0];
  const server = (await pool.query("SELECT version() AS v")).rows[0].v as string;
  const out: {
    name: string;
    statements: {
      sql: string;
      params: unknown[];
      plan: string[];
      executionMs: number;
      medianMs: number;
      planCache: { generic: number; custom: number };
    }[];
  }[] = [];
  let n = 0;
  for (const [name, run] of cases) {
    const captured: { sql: string; params: unknown[] }[] = [];
    const realQuery = pool.query;
    (pool as any).query = (cfg: string | { text: string; values?: unknown[] }, params?: unknown[]) => {
      captured.push({
        sql: typeof cfg === "string" ? cfg : cfg.text,
        params: params ?? (typeof cfg === "string" ? [] : (cfg.values ?? [])),
      });
      return (realQuery as any).call(pool, cfg, params);
    };
    try {
      await run();
    } finally {
      (pool as any).query = realQuery;
    }
    const client = await pool.connect();
    try {
      const statements = [];
      for (const { sql, params } of captured) {
        const explained = await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, params);
        const plan = explained.rows.map((r) => r["QUERY PLAN"] as string);
        const executionMs = Number(/Execution Time: ([\d.]+) ms/.exec(plan.join("\n"))?.[1] ?? NaN);
        const stmt = `bench_plan_${++n}`;
        const times: number[] = [];
        for (let i = 0; i < 200; i++) {
          const t = performance.now();
          await client.query({ name: stmt, text: sql }, params);
          times.push(performance.now() - t);
        }
        times.sort((a, b) => a - b);
        const cache = (
          await client.query(
            "SELECT generic_plans AS generic, custom_plans AS custom FROM pg_prepared_statements WHERE name = $1",
            [stmt],
          )
        ).rows[0] as { generic: number; custom: number };
        statements.push({
          sql,
          params,
          plan,
          executionMs,
          medianMs: Math.round(times[100] * 1000) / 1000,
          planCache: { generic: Number(cache?.generic), custom: Number(cache?.custom) },
        });
      }
      out.push({ name, statements });
    } finally {
      client.release();
    }
  }
  console.log(JSON.stringify({ dialect: "postgres", server, counts, queries: out }));
}

/**
 * Runs every list function of the domain once against the current database, captures the
 * SQL it prepares, and prints EXPLAIN QUERY PLAN for each plus the statement's median time.
 */
async function plans() {
  db();
  const pool = pgPool();
  if (pool) return plansPostgres(pool);
  const user = (email: string) =>
    sqlite()
      .prepare(
        "SELECT id, email, first_name AS firstName, last_name AS lastName, account_type AS accountType, approved, image, locale FROM users WHERE email = ?",
      )
      .get(email) as any;
  const actor = (email: string) => ({ ...user(email), approved: !!user(email).approved, sessionId: "plans" });
  const admin = actor(BENCH_ADMIN);
  const expert = actor(BENCH_EXPERT);
  const patient = actor(BENCH_PATIENT);
  const cases = await listCases(admin, expert, patient, actor(BENCH_WORKER));
  const counts = sqlite()
    .prepare(
      "SELECT (SELECT count(*) FROM reports) AS reports, (SELECT count(*) FROM reports WHERE status = 'Pending') AS pending, (SELECT count(*) FROM audit_events) AS audit",
    )
    .get();
  const out: { name: string; statements: { sql: string; plan: string[]; medianMs: number }[] }[] = [];
  for (const [name, run] of cases) {
    // A fresh connection per case: the domain prepares its statements (and caches counts)
    // once per connection, and each case should show all of its own.
    await closeDatabase();
    const s = sqlite();
    const realPrepare = s.prepare.bind(s);
    const captured: { sql: string; params: unknown[] }[] = [];
    (s as any).prepare = (sql: string) => {
      const stmt = realPrepare(sql);
      const wrap = (fn: string) => {
        const orig = (stmt as any)[fn].bind(stmt);
        (stmt as any)[fn] = (...p: unknown[]) => {
          captured.push({ sql, params: p });
          return orig(...p);
        };
      };
      for (const fn of ["all", "get", "run", "iterate"]) wrap(fn);
      const raw = stmt.raw.bind(stmt);
      (stmt as any).raw = (...r: [boolean?]) => {
        raw(...r);
        return stmt;
      };
      return stmt;
    };
    try {
      await run();
    } finally {
      (s as any).prepare = realPrepare;
    }
    const statements = captured.map(({ sql, params }) => {
      const plan = realPrepare(`EXPLAIN QUERY PLAN ${sql}`).all(...(params as [])) as {
        id: number;
        parent: number;
        detail: string;
      }[];
      const depth = new Map<number, number>([[0, 0]]);
      const lines = plan.map((p) => {
        const d = (depth.get(p.parent) ?? 0) + 1;
        depth.set(p.id, d);
        return `${"  ".repeat(d - 1)}${p.detail}`;
      });
      const stmt = realPrepare(sql);
      const times: number[] = [];
      for (let i = 0; i < 200; i++) {
        const t = performance.now();
        stmt.all(...(params as []));
        times.push(performance.now() - t);
      }
      times.sort((a, b) => a - b);
      return { sql, plan: lines, medianMs: Math.round(times[100] * 1000) / 1000 };
    });
    out.push({ name, statements });
  }
  console.log(JSON.stringify({ counts, queries: out }));
}

try {
  if (args.plans) await plans();
  else {
    const n = Number(args.reports);
    if (!Number.isInteger(n) || n < 100) throw new Error("--reports must be an integer ≥ 100");
    await seed(n);
  }
} finally {
  await closeDatabase();
}
