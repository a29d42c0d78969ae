import { createWriteStream } from "node:fs";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { eq, sql, type SQLWrapper } from "drizzle-orm";
import { db, exec, transaction } from "~/db/client.server";
import { labReads, patients, reports } from "~/db/schema";
import { log } from "~/lib/log.server";
import { onWake, wakeOwner } from "~/lib/wake.server";
import { ProgramFailed, ProgramStopped, withScratch, type Scratch } from "~/lib/programs.server";
import {
  defineJobKind,
  JobInterrupted,
  PermanentJobError,
  startJobs,
  type JobContext,
  type JobKindOptions,
} from "../platform/index.server";
import { config } from "~/config.server";
import { openDecrypted } from "./files.server";
import { rowBox, type PageLine } from "./lab-lines.server";
import {
  ocrImage,
  ocrPdf,
  OcrUnavailable,
  pdfTextLines,
  READ_SCRATCH_BYTES,
  Unreadable,
} from "./lab-ocr.server";
import { saveReading, type PlacedRow } from "./lab-store.server";
import {
  looksLikeLabReport,
  microAsPrinted,
  ocrAsPrinted,
  patientOn,
  readTables,
  recogniseLabRows,
  sampleDate,
  unjudged,
  type LabRow,
  type Patient,
  type Recorded,
} from "./labs";

/**
 * The lab-report reader (decision 0082): after an upload is stored, `queueLabRead` adds a
 * lab_reads row (PDFs and images only) naming the account that uploaded it, and its job of the one
 * runner (kind "lab-read", keyed by the report, decision 0113), in one transaction. The owner
 * process of every node runs READERS of its loops (`concurrency`), each reading one report at a
 * time in child processes (pdftotext, pdftoppm, tesseract: the event loop stays free), and storing
 * the values as "read" or marking the report not-lab. The reads are shared out (decision 0100): the
 * kind takes turns by account (`turnsBy`), so an account has at most one read running in the whole
 * cluster, and the next read goes to the account served longest ago; one account's uploads never
 * hold every reader. A crash is retried with doubling waits, at most MAX_ATTEMPTS; then the job is
 * dead (the Service screen) and the read "failed". A read that ran out of time, or a file the tools
 * refuse, fails at once (a `PermanentJobError`) and is never read again by itself; a missing
 * Tesseract ends an image's read as "failed: OCR not available" (a result, not a fault of the job).
 * `lab_reads` stays the reading's own row: what the screens show (queued, reading, read, not-lab,
 * failed; its attempts and last error); the job's lease is the claim.
 */
/** A claim lapses (its process died) after this; renewed every third of it while a read runs. */
const LEASE_MS = 120_000;
const MAX_ATTEMPTS = 3;
const RETRY_MS = 30_000;
/** Readers in each node's owner process: one account's read never keeps another's waiting. */
const READERS = 2;

const READABLE = new Set(["application/pdf", "image/png", "image/jpeg", "image/webp"]);

type LabReadJob = { reportId: string };

/** Whose a read is: its account, or (a row queued before accounts were kept) the report itself. */
const accountOf = (t: { account: SQLWrapper; reportId: SQLWrapper }) =>
  sql`coalesce(${t.account}, ${t.reportId})`;

const OPTIONS: JobKindOptions<LabReadJob> = {
  run: readReport,
  maxAttempts: MAX_ATTEMPTS,
  backoff: { baseMs: RETRY_MS, maxMs: 4 * RETRY_MS },
  leaseMs: LEASE_MS,
  pollMs: 5_000,
  concurrency: READERS,
  // A job's key is its report: its turn is the account that uploaded it (decision 0100).
  turnsBy: (key) => sql`(select ${accountOf(labReads)} from ${labReads} where ${labReads.reportId} = ${key})`,
  describeError: (err) => String((err as Error)?.message ?? err).slice(0, 300),
  async onDead({ reportId }, job) {
    const lastError =
      job.attempt > job.maxAttempts
        ? `gave up after ${job.maxAttempts} attempts (the last did not finish)`
        : job.lastError;
    await finish(reportId, {
      status: "failed",
      attempts: Math.min(job.attempt, job.maxAttempts),
      lastError,
      finishedAt: new Date(),
    });
  },
};
const labReadJobs = defineJobKind<LabReadJob>("lab-read", OPTIONS);

/**
 * Queues a stored report for reading (no-op for files that are not PDFs or images); `account` is
 * the account that uploaded it, by which reads are shared out.
 */
export async function queueLabRead(reportId: string, mimeType: string, account: string): Promise<void> {
  if (!READABLE.has(mimeType)) return;
  await transaction(function* (tx) {
    yield* exec(
      tx
        .insert(labReads)
        .values({ reportId, account, status: "queued", nextAttemptAt: new Date() })
        .onConflictDoNothing(),
    );
    yield* labReadJobs.enqueueSteps(tx, { reportId }, { key: reportId });
  });
  kickReaders();
  wakeOwner("lab-read"); // queued in a cluster worker: the node's owner reads it now
}

function kickReaders(): void {
  labReadJobs.kick();
}

/**
 * Starts this process's readers (each node's owner process: READERS reads at once on a node). A
 * worker's upload nudges its owner (`wakeOwner`), whose loops are the only ones of the node.
 */
export function startLabReader(pollMs?: number): void {
  if (pollMs) labReadJobs.configure({ pollMs });
  startJobs([labReadJobs.kind]);
  onWake("lab-read", kickReaders);
}

/** Stops this process's readers, waiting for the reads under way (the bounded drain is `stopJobs`). */
export function stopLabReader(): Promise<void> {
  return labReadJobs.stop();
}

/** For tests: other attempts, waits or lease; no argument restores the defaults. */
export function configureLabReader(
  overrides?: Partial<Pick<JobKindOptions<LabReadJob>, "maxAttempts" | "backoff" | "leaseMs">>,
): void {
  labReadJobs.configure(overrides ?? {});
}

/** Reads every due report, one at a time and in turns, until none is due; how many were tried. */
export async function processLabReads(stop: () => boolean = () => false): Promise<number> {
  const round = await labReadJobs.runDue(stop);
  return round.done + round.retrying + round.dead;
}

type Row = typeof labReads.$inferSelect;

/** The reading's own row written (what the screens show); the job's outcome is the runner's. */
async function finish(reportId: string, set: Partial<Row>): Promise<void> {
  await db()
    .update(labReads)
    .set({ ...set, lockedUntil: null })
    .where(eq(labReads.reportId, reportId));
}

const SETTLED = new Set(["read", "not-lab", "failed"]);

/** One attempt at a report's read (the kind's handler); throws to fail it. */
async function readReport({ reportId }: LabReadJob, job: JobContext): Promise<string> {
  const [row] = await db().select().from(labReads).where(eq(labReads.reportId, reportId));
  if (!row) return "gone"; // the report was deleted, its read with it
  // Its runner died after storing the read, before the job was settled: done already. (An admin's
  // retry of a dead read starts over at attempt 1 and reads it again.)
  if (job.attempt > 1 && SETTLED.has(row.status)) return "already";
  await finish(reportId, { status: "reading", attempts: job.attempt });
  const started = Date.now();
  const who = { reportId, attempt: job.attempt };
  // A read whose lease was lost (another runner has it) or cut short at shutdown stores nothing.
  const stillHeld = () => {
    if (job.signal.aborted) throw job.signal.reason ?? new Error("the read was stopped");
  };
  try {
    const [report] = await db()
      .select({
        fileKey: reports.fileKey,
        mimeType: reports.mimeType,
        sex: patients.sex,
        birthYear: patients.birthYear,
      })
      .from(reports)
      .leftJoin(patients, eq(patients.id, reports.patientId))
      .where(eq(reports.id, reportId));
    if (!report) {
      await finish(reportId, { status: "failed", lastError: "report gone" });
      return "gone";
    }
    const result = await readFile(report.fileKey, report.mimeType, {
      sex: report.sex,
      birthYear: report.birthYear,
    });
    const durationMs = Date.now() - started;
    stillHeld();
    if (!result.lab) {
      await saveReading(reportId, result.source, []);
      await finish(reportId, {
        status: "not-lab",
        source: result.source,
        durationMs,
        finishedAt: new Date(),
      });
      log("info", "lab reader: not a lab report", { ...who, durationMs });
      return "not-lab";
    }
    // Word results ("Non Reactive") are stored as text with their printed reference (decision 0098).
    await saveReading(reportId, result.source, result.rows);
    await finish(reportId, {
      status: "read",
      source: result.source,
      sampleDate: result.sampleDate,
      durationMs,
      finishedAt: new Date(),
    });
    log("info", "lab reader: values read", { ...who, values: result.rows.length, durationMs });
    return "read";
  } catch (err) {
    const durationMs = Date.now() - started;
    if (err instanceof OcrUnavailable) {
      await finish(reportId, {
        status: "failed",
        lastError: "OCR not available",
        durationMs,
        finishedAt: new Date(),
      });
      // A missing tool is the operator's to fix; OCR turned off on purpose is not a fault.
      if (err.turnedOff) log("info", "lab reader: OCR is turned off (LAB_OCR=0), not read", who);
      else log("error", "lab reader failed: OCR not available (install tesseract-ocr and ffmpeg)", who);
      return "no-ocr";
    }
    const lastError = OPTIONS.describeError!(err);
    // Cut short by the server stopping (its programs ended, decision 0103): read again later, by
    // any node, the attempt not counted.
    if (err instanceof ProgramStopped && err.reason === "interrupted") {
      await finish(reportId, { status: "queued", attempts: job.attempt - 1, lastError, durationMs });
      log("info", "lab reader: interrupted, read again later", who);
      throw new JobInterrupted(lastError, { cause: err });
    }
    // A file the tools refuse (it does not decode), one over a size cap and one that ran into a
    // time, memory, CPU or file-size limit fail at once and are never read again: reading it again
    // would only take the machine again (decision 0100). A crash or an interrupted read is retried;
    // after the last attempt the runner's onDead marks it failed.
    const final = isFinal(err);
    const last = final || job.attempt >= job.maxAttempts;
    await finish(reportId, {
      status: last ? "failed" : "queued",
      lastError,
      durationMs,
      ...(last && { finishedAt: new Date() }),
    });
    if (last) log("error", "lab reader failed", { ...who, error: lastError });
    else log("warn", "lab reader: will retry", { ...who, error: lastError });
    throw final ? new PermanentJobError(lastError, { cause: err }) : err;
  }
}

/** Whether a failed read would fail the same way again (the file is at fault, not the moment). */
function isFinal(err: unknown): boolean {
  if (err instanceof ProgramFailed || err instanceof Unreadable) return true;
  return err instanceof ProgramStopped && err.reason !== "interrupted";
}

/** What a report reads as: its rows (word results among them) and the sample's printed date (ISO). */
export type Reading = { lab: boolean; source: "text" | "ocr"; rows: PlacedRow[]; sampleDate: string | null };

/** What the platform has recorded of the patient: her sex and year of birth. */
export type { Recorded };

async function readFile(fileKey: string, mimeType: string, patient: Recorded): Promise<Reading> {
  return withScratch("labread", READ_SCRATCH_BYTES, async (scratch) => {
    const file = join(scratch.dir, mimeType === "application/pdf" ? "r.pdf" : "r.img");
    await pipeline(await openDecrypted(fileKey), createWriteStream(file, { mode: 0o600 }));
    return readLocal(file, mimeType, config().labReadMs, scratch, patient);
  });
}

/**
 * Reads one plaintext file on disk (the bench and tests call it directly), in `scratch` or a folder
 * of its own, for a patient of whom `patient` is recorded (her sex and age choose a range's part).
 */
export async function readLocal(
  file: string,
  mimeType: string,
  timeoutMs = config().labReadMs,
  scratch?: Scratch,
  patient?: Recorded,
): Promise<Reading> {
  if (!scratch)
    return withScratch("labread", READ_SCRATCH_BYTES, (s) =>
      readLocal(file, mimeType, timeoutMs, s, patient),
    );
  let source: "text" | "ocr" = "text";
  let lines: PageLine[] = [];
  if (mimeType === "application/pdf") {
    lines = await pdfTextLines(file, timeoutMs);
    // A page of serology prints words, not numbers ("HBsAg  Reactive  Non-reactive"): a text layer
    // that already reads as a lab report is read as it is (decision 0098).
    const numbered = lines.filter((l) => /\d/.test(l.text)).length;
    if (numbered < 3 && !looksLikeLabReport(lines.map((l) => l.text)).isLab) {
      source = "ocr";
      ocrAllowed();
      lines = await ocrPdf(file, timeoutMs, scratch);
    }
  } else {
    source = "ocr";
    ocrAllowed();
    lines = await ocrImage(file, timeoutMs, 1, scratch);
  }
  return readingOf(lines, source, patient);
}

/** What the lines of a report read as (its text layer's or the OCR's), for a patient of whom `patient` is recorded. */
export function readingOf(found: PageLine[], source: "text" | "ocr", patient?: Recorded): Reading {
  // OCR's "yg/dL", "pIU/mL", "ng/di", "ulU/ml": the units the lab printed (decisions 0112, 0124).
  const lines =
    source === "ocr"
      ? found.map((l) => ({
          ...l,
          text: microAsPrinted(l.text),
          ...(l.words && { words: l.words.map((w) => ({ ...w, text: microAsPrinted(w.text) })) }),
        }))
      : found;
  const texts = lines.map((l) => l.text);
  const sampled = sampleDate(texts);
  // Her sex and her age when the sample was taken choose the part of a range printed for men and
  // women, adults and children, age bands (decision 0089).
  const who: Patient | undefined = patient && patientOn(patient, sampled ?? new Date());
  // Every result table read by its geometry (decision 0104); lines outside one go on as they were.
  const tabled = readTables(lines);
  // A table's cells are joined from words: their units are put back once the cells are lines.
  const read = tabled.map((l) => (source === "ocr" ? ocrAsPrinted(l.text) : l.text));
  if (!looksLikeLabReport(read, who).isLab) return { lab: false, source, rows: [], sampleDate: null };
  const { rows } = recogniseLabRows(read, who, { ocr: source === "ocr" });
  return {
    lab: true,
    source,
    sampleDate: sampled,
    rows: rows.map((r) => ({
      ...doubtWeak(r, tabled[r.lineIndex].weak ?? []),
      page: tabled[r.lineIndex].page,
      box: rowBox(tabled[r.lineIndex], r.printedName, r.printedValue, r.range?.text ?? null),
    })),
  };
}

/** OCR turned off (LAB_OCR=0, a node too small for it): a picture or scan fails as without Tesseract. */
function ocrAllowed(): void {
  if (!config().labOcr) throw new OcrUnavailable(true);
}

/**
 * A value or range the OCR was unsure of is not vouched for: the row keeps its reading, below
 * CONFIDENT, with the doubt named for the expert, and nothing is judged against it until she
 * confirms it (decision 0126: "25↓" read as 259 must not be called high beside "65 - 175").
 */
function doubtWeak<R extends LabRow>(row: R, weak: string[]): R {
  const numbers = [row.printedValue, ...(row.range?.text.match(/\d+(?:\.\d+)?/g) ?? [])];
  if (!weak.some((w) => numbers.some((n) => w.includes(n)))) return row;
  return {
    ...unjudged(row),
    confidence: Math.min(row.confidence, 0.6),
    doubts: [...row.doubts, "the OCR was unsure of a number on this row"],
  };
}
