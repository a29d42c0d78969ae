/**
 * `npm run bench:labs` (decision 0082), in two parts.
 *
 * 1. The reader on its own (no server): reads the whole lab corpus (36 layouts, decision 0089 ×
 *    text PDF, scanned PDF, phone photo, and that photo as the upload screen sends it: WebP at
 *    PHOTO_MAX_SIDE, 1,800 px since decision 0109, "sent") with the reader itself, the patient's
 *    recorded sex and age given, and prints per layout and per kind of input the values read
 *    exactly (value and printed range as printed), confident-and-wrong, judgements that disagree
 *    with the printed range, and per kind the totals, the worst layout, the sample's dates read
 *    right and the time per read. Then the layouts drawn from seeds (decision 0107): for each of N
 *    seeds (`--seeds=N`, default 20; seeds `--from`, default 1, onwards; `--layouts=M` layouts
 *    each, default 30) the same scores, printed per kind and per layout family (a property drawn:
 *    "flag-before", "unit-in-range", "page-break", …) as the mean over the seeds and the worst
 *    seed, named, with its figure.
 * 2. The reader in the running server: starts the BUILT app (`npm run build` first) as the tests
 *    do (tests/helpers/server.ts), signs up a patient, uploads ten phone photos (the four layouts,
 *    repeated) through HTTP and, while the reader works through them, asks `GET /healthz` every
 *    ~100 ms; prints photos read, the wall time until all ten lab_reads rows are done, the time per
 *    photo, and the /healthz median, p95 and max during the reading beside a quiet 5 s before the
 *    uploads. The goals (0082): /healthz median < 100 ms while ten photos are read, ≤ 10 s per
 *    photo on one core. The server and every process it started run pinned to one CPU (taskset),
 *    the bench on the others, so "one core" is literal; everything started is stopped by PID.
 *
 *   npm run bench:labs                     # both parts
 *   npm run bench:labs -- --no-server      # part 1 only
 *   npm run bench:labs -- --kinds=text,scan  # part 1 for these kinds only
 *   npm run bench:labs -- --no-server --kinds=scan --seeds=3 --layouts=12  # fewer seeded reads
 *   npm run bench:labs -- --seeds=0        # the fixed layouts only
 *   npm run bench:labs -- --no-server --no-fixed --kinds=scan --seeds=3  # the seeded ones only
 *   npm run bench:labs -- --all-cores      # part 2 with the server free to use every CPU
 *   npm run bench:labs -- --no-server --no-fixed --kinds=scan --misses=/tmp/m.txt  # and each miss
 *
 * See docs/performance.md ("Lab reports read").
 */
import { execFileSync } from "node:child_process";
import { appendFileSync, existsSync, readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import { performance } from "node:perf_hooks";
import { analyteByLoinc } from "~/domain/records/labs";
import { apiClient, signupViaApi } from "../tests/helpers/api";
import { openTestDb, type TestDb } from "../tests/helpers/db";
import { uploadForm } from "../tests/helpers/files";
import { FIRST_FOUR, LAYOUTS, labPhoto, truthOf, type Kind, type Layout } from "../tests/helpers/lab-corpus";
import { layoutsFor } from "../tests/helpers/lab-seeded";
import { scoreDoc, scoreOne, seededDoc, type Score } from "../tests/helpers/lab-score";
import { BUILD_DIR, startServer } from "../tests/helpers/server";
import { codeFrom, startSmtp } from "../tests/helpers/smtp";

const args = process.argv.slice(2);
const withServer = !args.includes("--no-server");
const withFixed = !args.includes("--no-fixed");
const numArg = (name: string, fallback: number) => {
  const v = args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  return v === undefined ? fallback : Number(v);
};
const SEEDS = numArg("seeds", 20);
const FROM = numArg("from", 1);
const PER_SEED = numArg("layouts", 30);
const pinned = !args.includes("--all-cores");
/** `--misses=FILE`: every value of the seeded layouts not read as printed, a line each, appended. */
const MISSES = args.find((a) => a.startsWith("--misses="))?.slice(9);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (n: number, d: number) => `${((100 * n) / Math.max(1, d)).toFixed(1)} %`;
/** Nearest-rank percentile of a list (p in 0..1). */
function quantile(list: number[], p: number): number {
  const s = [...list].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))] : NaN;
}

// ---------------------------------------------------------------------------------------------
// Part 1: the reader on its own.

const KINDS = ["text", "scan", "photo", "sent"] as const;
const only = args
  .find((a) => a.startsWith("--kinds="))
  ?.slice(8)
  .split(",") as Kind[] | undefined;

type Tally = {
  values: number;
  found: number;
  exact: number;
  wrong: number;
  cw: number;
  jw: number;
  doubted: number;
};
const tally = (scores: Score[]): Tally => ({
  values: scores.length,
  found: scores.filter((s) => s.found).length,
  exact: scores.filter((s) => s.exact).length,
  wrong: scores.filter((s) => s.wrong).length,
  cw: scores.filter((s) => s.confidentWrong).length,
  jw: scores.filter((s) => s.judgementWrong).length,
  doubted: scores.filter((s) => s.doubted).length,
});

async function partOne() {
  const kinds = KINDS.filter((k) => !only || only.includes(k));
  const byKind = new Map<Kind, { scores: Score[]; ms: number[]; dates: [number, number] }>();
  const byLayout = new Map<Layout, Map<Kind, Tally>>();
  for (const kind of kinds) {
    const acc = { scores: [] as Score[], ms: [] as number[], dates: [0, 0] as [number, number] };
    for (const layout of LAYOUTS) {
      const { scores, ms, date } = await scoreOne(layout, kind);
      acc.scores.push(...scores);
      acc.ms.push(ms);
      acc.dates[1]++;
      if (date.got === date.want) acc.dates[0]++;
      if (!byLayout.has(layout)) byLayout.set(layout, new Map());
      byLayout.get(layout)!.set(kind, tally(scores));
    }
    byKind.set(kind, acc);
  }
  console.log(`part 1: the reader on its own (no server), ${LAYOUTS.length} layouts\n`);
  console.log(
    "per layout: exact/values for each kind (!n: n confident-and-wrong, ?n: n judgements against the printed range)",
  );
  console.log(`${"layout".padEnd(22)} ${kinds.map((k) => k.padStart(9)).join(" ")}`);
  for (const [layout, m] of byLayout) {
    const cell = (t: Tally | undefined) =>
      t ? `${t.exact}/${t.values}${t.cw ? ` !${t.cw}` : ""}${t.jw ? ` ?${t.jw}` : ""}` : "-";
    console.log(`${layout.padEnd(22)} ${kinds.map((k) => cell(m.get(k)).padStart(9)).join(" ")}`);
  }
  console.log(
    "\nkind   values found exact wrong confident-wrong judgement-wrong  exact%  worst layout  dates  ms/read (median)  ms/read (min-max)  exact but doubted",
  );
  for (const [kind, { scores, ms, dates }] of byKind) {
    const t = tally(scores);
    const med = [...ms].sort((a, b) => a - b)[Math.floor(ms.length / 2)];
    const worst = [...byLayout]
      .map(([l, m]) => ({ l, t: m.get(kind)! }))
      .sort((a, b) => a.t.exact / a.t.values - b.t.exact / b.t.values)[0]!;
    console.log(
      `${kind.padEnd(6)} ${String(t.values).padStart(6)} ${String(t.found).padStart(5)} ${String(t.exact).padStart(5)} ${String(t.wrong).padStart(5)} ${String(t.cw).padStart(15)} ${String(t.jw).padStart(15)}  ${pct(t.exact, t.values).padStart(7)}  ${`${worst.l} ${pct(worst.t.exact, worst.t.values)}`.padEnd(12)}  ${`${dates[0]}/${dates[1]}`.padStart(5)}  ${String(med).padStart(16)}  ${`${Math.min(...ms)}-${Math.max(...ms)}`.padStart(17)}  ${String(t.doubted).padStart(17)}`,
    );
  }
}

/** Part 1, the layouts drawn from seeds (decision 0107): mean and worst seed per kind and family. */
async function partOneSeeded() {
  if (SEEDS <= 0) return;
  const kinds = KINDS.filter((k) => !only || only.includes(k));
  const seeds = Array.from({ length: SEEDS }, (_, i) => FROM + i);
  // kind → family ("all" for every layout) → seed → scores
  const acc = new Map<Kind, Map<string, Map<number, Score[]>>>();
  const ms = new Map<Kind, number[]>();
  for (const kind of kinds) {
    acc.set(kind, new Map());
    ms.set(kind, []);
    for (const seed of seeds)
      for (const layout of layoutsFor(seed, PER_SEED)) {
        const { scores, ms: took } = await scoreDoc(seededDoc(layout), kind);
        ms.get(kind)!.push(took);
        if (MISSES)
          for (const x of scores.filter((x) => !x.exact || x.judgementWrong))
            appendFileSync(
              MISSES,
              `${kind} ${x.layout} ${x.analyte}: want ${x.want} got ${x.got ?? "—"}${x.judgementWrong ? " JUDGEMENT-WRONG" : ""}${x.confidentWrong ? " CONFIDENT" : ""} [${layout.families.join(",")}]\n`,
            );
        for (const family of ["all", ...layout.families]) {
          const byFamily = acc.get(kind)!;
          if (!byFamily.has(family)) byFamily.set(family, new Map());
          const bySeed = byFamily.get(family)!;
          bySeed.set(seed, [...(bySeed.get(seed) ?? []), ...scores]);
        }
      }
  }
  const rate = (ss: Score[]) => ss.filter((x) => x.exact).length / Math.max(1, ss.length);
  /** Mean over the seeds of the exact rate, and the worst seed. */
  const summary = (bySeed: Map<number, Score[]>) => {
    const list = [...bySeed].map(([seed, ss]) => ({ seed, r: rate(ss), n: ss.length }));
    const mean = list.reduce((a, x) => a + x.r, 0) / list.length;
    const worst = list.sort((a, b) => a.r - b.r)[0]!;
    return { mean, worst, seeds: list.length };
  };
  const p = (r: number) => `${(100 * r).toFixed(1)} %`;
  console.log(
    `\nlayouts drawn from seeds ${seeds[0]}–${seeds[seeds.length - 1]} (${seeds.length} seeds, ${PER_SEED} layouts each; LAB_SEED=<seed> in the floor test draws one again)\n`,
  );
  console.log(
    "kind   values/seed  exact (mean)  worst seed          best seed           cw-value  cw-range  judgement-wrong  ms/read (median)",
  );
  for (const kind of kinds) {
    const bySeed = acc.get(kind)!.get("all")!;
    const { mean, worst } = summary(bySeed);
    const all = [...bySeed.values()].flat();
    const best = [...bySeed].map(([seed, ss]) => ({ seed, r: rate(ss) })).sort((a, b) => b.r - a.r)[0]!;
    const t = tally(all);
    const cwValue = all.filter((x) => x.confidentWrongValue).length;
    const med = quantile(ms.get(kind)!, 0.5);
    console.log(
      `${kind.padEnd(6)} ${(all.length / seeds.length).toFixed(0).padStart(11)}  ${p(mean).padStart(12)}  ${`${p(worst.r)} (seed ${worst.seed})`.padEnd(18)}  ${`${p(best.r)} (seed ${best.seed})`.padEnd(18)}  ${String(cwValue).padStart(8)}  ${String(t.cw - cwValue).padStart(8)}  ${String(t.jw).padStart(15)}  ${String(med).padStart(16)}`,
    );
    console.log(
      `       per seed: ${[...bySeed].map(([seed, ss]) => `${seed}:${(100 * rate(ss)).toFixed(0)}`).join(" ")}`,
    );
  }
  console.log(
    "\nper layout family: exact, mean over the seeds where it was drawn / worst seed, named (seeds it was drawn in)",
  );
  const families = [...new Set(kinds.flatMap((k) => [...acc.get(k)!.keys()]))]
    .filter((f) => f !== "all")
    .sort();
  console.log(`${"family".padEnd(22)} ${kinds.map((k) => k.padStart(28)).join(" ")}`);
  for (const family of families) {
    const cells = kinds.map((kind) => {
      const bySeed = acc.get(kind)!.get(family);
      if (!bySeed) return "-".padStart(28);
      const { mean, worst, seeds: n } = summary(bySeed);
      return `${p(mean)} / ${p(worst.r)} s${worst.seed} (${n})`.padStart(28);
    });
    console.log(`${family.padEnd(22)} ${cells.join(" ")}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Part 2: the reader in the running server, and what /healthz answers meanwhile.

const PHOTOS = 10;
const SAMPLE_EVERY_MS = 100;
const QUIET_MS = 5_000;
const READ_DEADLINE_MS = 10 * 60_000;
const DONE = new Set(["read", "not-lab", "failed"]);

/** Asks GET /healthz every ~100 ms (the next one at once when one took longer) until stopped. */
function healthSampler(base: string) {
  const ms: number[] = [];
  let errors = 0;
  let stopping = false;
  const running = (async () => {
    while (!stopping) {
      const t0 = performance.now();
      try {
        const res = await fetch(`${base}/healthz`);
        await res.arrayBuffer();
        if (!res.ok) errors++;
      } catch {
        errors++;
      }
      const took = performance.now() - t0;
      ms.push(took);
      if (took < SAMPLE_EVERY_MS && !stopping) await sleep(SAMPLE_EVERY_MS - took);
    }
  })();
  return {
    stop: async () => {
      stopping = true;
      await running;
      return { ms, errors };
    },
  };
}

/** `pid` and every process under it, from /proc (a thread's children are in task/<tid>/children). */
function processTree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    try {
      for (const task of readdirSync(`/proc/${out[i]}/task`)) {
        const kids = readFileSync(`/proc/${out[i]}/task/${task}/children`, "utf8").trim();
        if (kids) out.push(...kids.split(/\s+/).map(Number));
      }
    } catch {
      /* ended meanwhile */
    }
  }
  return out;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function partTwo() {
  if (!existsSync(`${BUILD_DIR}/main.js`))
    throw new Error(`no build in ${BUILD_DIR}: run \`npm run build\` first`);
  const cpus = os.availableParallelism();
  const smtp = await startSmtp();
  const admin = { email: "admin@bench-labs.test", password: "Admin-pass-123" };
  const server = await startServer({
    LAB_OCR: "1", // the test servers read text-layer PDFs only unless told
    SMTP_URL: smtp.url,
    RATE_LIMIT_DISABLED: "1",
    ADMIN_EMAIL: admin.email,
    ADMIN_PASSWORD: admin.password,
  });
  let db: TestDb | undefined;
  const stopAll = async () => {
    // By PID: the server (SIGTERM, then SIGKILL after 5 s), then anything it had started that is
    // still there (a reader's tesseract or cleaning child), then our SMTP server.
    const tree = alive(server.pid) ? processTree(server.pid) : [];
    await server.stop();
    for (const pid of tree.slice(1)) if (alive(pid)) process.kill(pid, "SIGKILL");
    await smtp.close();
  };
  const onSignal = () => void stopAll().finally(() => process.exit(130));
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    let where = `server free to use all ${cpus} CPUs`;
    if (pinned) {
      // -a: every thread of the server; the processes it starts later (the reader's) inherit it.
      execFileSync("taskset", ["-a", "-p", "-c", "0", String(server.pid)], { stdio: "ignore" });
      if (cpus > 1)
        execFileSync("taskset", ["-a", "-p", "-c", `1-${cpus - 1}`, String(process.pid)], {
          stdio: "ignore",
        });
      where = `server and its children pinned to CPU 0${cpus > 1 ? `, bench on CPU ${cpus > 2 ? `1-${cpus - 1}` : "1"}` : ""}`;
    }
    const api = apiClient(server.url);
    const patient = await signupViaApi(api, smtp, codeFrom, { email: "patient@bench-labs.test" });
    const photos = await Promise.all(FIRST_FOUR.map((l) => labPhoto(l)));
    db = await openTestDb(server.dataDir);

    // The quiet baseline: the same sampling with nothing to read.
    const quietSampler = healthSampler(server.url);
    await sleep(QUIET_MS);
    const quiet = await quietSampler.stop();

    const reading = healthSampler(server.url);
    const t0 = performance.now();
    const ids: string[] = [];
    for (let i = 0; i < PHOTOS; i++) {
      const res = await api.call(
        "POST",
        "/report/upload-report",
        uploadForm(
          { reportType: "Blood Test", phoneNumber: "9876543210" },
          { name: `lab-${i + 1}.jpg`, data: photos[i % FIRST_FOUR.length]!, type: "image/jpeg" },
        ),
        patient.token,
      );
      if (res.status !== 201) throw new Error(`upload ${i + 1}: ${res.status} ${JSON.stringify(res.body)}`);
      ids.push(res.body.data._id);
    }
    const uploadedMs = performance.now() - t0;
    const marks = ids.map(() => "?").join(", ");
    type ReadRow = { report_id: string; status: string; duration_ms: number | null };
    let rows: ReadRow[] = [];
    for (;;) {
      rows = await db.all<ReadRow>(
        `select report_id, status, duration_ms from lab_reads where report_id in (${marks})`,
        ...ids,
      );
      if (rows.length === ids.length && rows.every((r) => DONE.has(r.status))) break;
      if (performance.now() - t0 > READ_DEADLINE_MS)
        throw new Error("the ten photos were not read in 10 minutes");
      await sleep(50);
    }
    const wallMs = performance.now() - t0;
    const during = await reading.stop();

    // How many values came out as printed (value and printed range, as part 1 scores them).
    const values = await db.all<{
      report_id: string;
      loinc: string;
      printed_value: string;
      range_text: string | null;
    }>(
      `select report_id, loinc, printed_value, range_text from lab_values where report_id in (${marks})`,
      ...ids,
    );
    const squash = (s: string | null) => (s ?? "").replace(/\s+/g, "");
    let exact = 0;
    let total = 0;
    ids.forEach((id, i) => {
      for (const t of truthOf(FIRST_FOUR[i % FIRST_FOUR.length]!)) {
        total++;
        const v = values.find((x) => x.report_id === id && analyteByLoinc(x.loinc)?.name === t.analyte);
        if (v && v.printed_value === t.value && squash(v.range_text) === squash(t.range)) exact++;
      }
    });

    const read = rows.filter((r) => r.status === "read").length;
    const others = [...new Set(rows.map((r) => r.status))].filter((s) => s !== "read");
    const own = rows.map((r) => r.duration_ms ?? NaN).filter((n) => Number.isFinite(n));
    const perPhotoMs = wallMs / PHOTOS;
    const fmt = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : "-");
    const line = (label: string, s: { ms: number[]; errors: number }) =>
      `${label.padEnd(26)} ${String(s.ms.length).padStart(7)} ${fmt(quantile(s.ms, 0.5)).padStart(7)} ${fmt(quantile(s.ms, 0.95)).padStart(7)} ${fmt(Math.max(...s.ms)).padStart(7)} ${String(s.errors).padStart(6)}`;

    console.log(`\npart 2: the built server reading ${PHOTOS} phone photos uploaded over HTTP (${where})\n`);
    console.log(
      `photos read ${read}/${PHOTOS}${others.length ? ` (${others.map((s) => `${rows.filter((r) => r.status === s).length} ${s}`).join(", ")})` : ""}, values exact ${exact}/${total}`,
    );
    console.log(
      `wall time from the first upload to the last lab_reads row done: ${(wallMs / 1000).toFixed(1)} s (uploads took ${(uploadedMs / 1000).toFixed(1)} s)`,
    );
    console.log(
      `time per photo: ${(perPhotoMs / 1000).toFixed(2)} s (wall ÷ ${PHOTOS}); the reader's own per photo: median ${(quantile(own, 0.5) / 1000).toFixed(2)} s, max ${(Math.max(...own) / 1000).toFixed(2)} s`,
    );
    console.log(`\n/healthz (ms)              samples  median     p95     max errors`);
    console.log(line(`quiet ${QUIET_MS / 1000} s before uploads`, quiet));
    console.log(line(`while ${PHOTOS} photos are read`, during));
    const medianMs = quantile(during.ms, 0.5);
    const healthMet = medianMs < 100 && during.errors === 0;
    const speedMet = read === PHOTOS && perPhotoMs <= 10_000;
    console.log(
      `\ngoals: /healthz median < 100 ms while ${PHOTOS} photos are read: ${healthMet ? "met" : "NOT met"} (${fmt(medianMs)} ms); ≤ 10 s per photo${pinned ? " on one core" : ""}: ${speedMet ? "met" : "NOT met"} (${(perPhotoMs / 1000).toFixed(2)} s)`,
    );
  } finally {
    await db?.close();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await stopAll();
  }
}

if (withFixed) await partOne();
await partOneSeeded();
if (withServer) await partTwo();
