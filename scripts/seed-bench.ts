/**
 * Benchmark data (used by `npm run bench`, never by the app):
 *
 *   tsx scripts/seed-bench.ts --reports 100000     fills DATA_DIR / UPLOADS_DIR
 *   tsx scripts/seed-bench.ts --plans              EXPLAIN QUERY PLAN + timings of every list query
 *
 * Seeding writes, in one transaction, N reports spread over N/20 patients (one "bench"
 * patient owns max(40, N/100) of them), half still pending, the other half reviewed by one
 * approved expert, with the audit events the app would have written (upload, review, some
 * file opens). The rows share a handful of real encrypted files, stored once through the
 * app's own file store: fine for reading benchmarks, never delete such rows one by one.
 * Prints one JSON line: the accounts to log in with and the counts.
 */
import { parseArgs } from "node:util";

const { values: args } = parseArgs({
  options: { reports: { type: "string", default: "1000" }, plans: { type: "boolean", default: false } },
});

process.env.LOG_LEVEL ??= "silent";
const { sqlite, db, closeDatabase } = await import("../app/db/client.server");

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

async function seed(n: number) {
  const { hashPassword } = await import("../app/domain/passwords.server");
  const { storeUpload } = await import("../app/domain/files.server");
  const { newId } = await import("../app/utils/ids.server");
  const { REPORT_TYPES } = await import("../app/schemas/reports");
  const { samplePdf } = await import("./samples");
  db(); // migrations
  const s = sqlite();
  if ((s.prepare("SELECT count(*) AS n FROM reports").get() as { n: number }).n > 0) {
    throw new Error("seed-bench wants an empty database (use a fresh DATA_DIR)");
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

  const now = Date.now();
  const YEAR = 365 * 24 * 60 * 60 * 1000;
  const insertUser = s.prepare(
    `INSERT INTO users (id, email, password_hash, first_name, last_name, account_type, contact_number, approved, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, '9876543210', ?, ?, ?)`,
  );
  const insertReport = s.prepare(
    `INSERT INTO reports (id, patient_id, report_type, description, phone_number, file_key, file_name, mime_type, size,
       consent_at, status, review, expert_id, reviewed_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, '+919876543210', ?, ?, 'application/pdf', ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertAudit = s.prepare(
    `INSERT INTO audit_events (id, actor_id, action, subject_type, subject_id, detail, ip, created_at)
     VALUES (?, ?, ?, 'report', ?, ?, '127.0.0.1', ?)`,
  );

  const patients = Math.max(10, Math.ceil(n / 20));
  const ownShare = Math.max(40, Math.floor(n / 100));
  const ids = { admin: newId(), expert: newId(), patient: newId() };
  const others: string[] = [];
  s.transaction(() => {
    const created = now - YEAR - 1000;
    insertUser.run(ids.admin, BENCH_ADMIN, hash, "Bench", "Admin", "Admin", 1, created, created);
    insertUser.run(ids.expert, BENCH_EXPERT, hash, "Bench", "Expert", "Expert", 1, created, created);
    insertUser.run(ids.patient, BENCH_PATIENT, hash, "Bench", "Patient", "Patient", 0, created, created);
    for (let i = 1; i < patients; i++) {
      const id = newId();
      others.push(id);
      insertUser.run(
        id,
        `patient${i}@bench.test`,
        hash,
        `Patient${i}`,
        "Bench",
        "Patient",
        0,
        created,
        created,
      );
    }
    let pending = 0;
    for (let i = 0; i < n; i++) {
      const id = newId();
      // Own reports are spread evenly through time, the rest at random among the others.
      const patient =
        i % Math.floor(n / ownShare) === 0 ? ids.patient : others[Math.floor(rand() * others.length)];
      const createdAt = now - YEAR + Math.floor((i / n) * YEAR) + Math.floor(rand() * 1000);
      const file = keys[i % keys.length];
      const type = REPORT_TYPES[Math.floor(rand() * REPORT_TYPES.length)];
      const reviewed = rand() < 0.5;
      const reviewedAt = reviewed ? createdAt + Math.floor(rand() * 3 * 24 * 60 * 60 * 1000) : null;
      if (!reviewed) pending++;
      insertReport.run(
        id,
        patient,
        type,
        rand() < 0.5 ? "Routine check, no symptoms." : null,
        file.key,
        file.fileName,
        file.size,
        createdAt,
        reviewed ? "Reviewed" : "Pending",
        reviewed ? "Values are within the normal range. No action needed." : null,
        reviewed ? ids.expert : null,
        reviewedAt,
        createdAt,
        reviewedAt ?? createdAt,
      );
      insertAudit.run(
        newId(),
        patient,
        "report.upload",
        id,
        JSON.stringify({ mimeType: "application/pdf", size: file.size }),
        createdAt,
      );
      if (reviewed) {
        insertAudit.run(newId(), ids.expert, "report.file_open", id, null, reviewedAt! - 60_000);
        insertAudit.run(newId(), ids.expert, "report.review", id, null, reviewedAt);
      }
    }
    console.log(
      JSON.stringify({
        reports: n,
        pending,
        patients,
        benchPatientReports: Math.ceil(n / Math.floor(n / ownShare)),
        ids,
        emails: { admin: BENCH_ADMIN, expert: BENCH_EXPERT, patient: BENCH_PATIENT },
        password: BENCH_PASSWORD,
      }),
    );
  })();
}

/**
 * Runs every list function of the domain once against the current database, captures the
 * SQL it prepares, and prints EXPLAIN QUERY PLAN for each plus the statement's median time.
 */
async function plans() {
  const reportsDomain = await import("../app/domain/reports.server");
  const { listPendingExperts, listApprovedExperts } = await import("../app/domain/experts.server");
  const { listAuditEvents } = await import("../app/domain/audit.server");
  const { listUsers } = await import("../app/domain/users.server");
  db();
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
  const page = { page: 1, pageSize: 20 };
  const cases: [string, () => unknown][] = [
    ["pending reports (Expert)", () => reportsDomain.listPendingReports(expert, page)],
    ["pending reports of one type", () => reportsDomain.listPendingReports(expert, page, "Blood Test")],
    ["pending reports, page 50", () => reportsDomain.listPendingReports(expert, { page: 50, pageSize: 20 })],
    ["patient's reports (+ file views)", () => reportsDomain.listPatientReports(patient, patient.id, page)],
    ["reviewed by this expert", () => reportsDomain.listReviewedByExpert(expert, page)],
    ["all reviewed (Admin)", () => reportsDomain.listAllReviewed(admin, page)],
    ["pending experts", () => listPendingExperts(admin, page)],
    ["approved experts", () => listApprovedExperts(admin, page)],
    ["users (Admin)", () => listUsers(admin, { ...page })],
    ["users of one type (Admin)", () => listUsers(admin, { ...page, accountType: "Patient" })],
    ["audit log (Admin)", () => listAuditEvents(admin, { ...page })],
  ];
  const counts = sqlite()
    .prepare(
      "SELECT (SELECT count(*) FROM reports) AS reports, (SELECT count(*) FROM reports WHERE status = 'Pending') AS pending, (SELECT count(*) FROM audit_events) AS audit",
    )
    .get();
  const out: { name: string; statements: { sql: string; plan: string[]; medianMs: number }[] }[] = [];
  for (const [name, run] of cases) {
    // A fresh connection per case: the domain prepares its statements (and caches counts)
    // once per connection, and each case should show all of its own.
    closeDatabase();
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
      run();
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
  closeDatabase();
}
