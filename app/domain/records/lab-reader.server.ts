import { createWriteStream } from "node:fs";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { and, eq, inArray, lt, lte, or, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { aliasInSql } from "~/db/alias";
import { db, timeParam } from "~/db/client.server";
import { labReads, patients, reports } from "~/db/schema";
import { log } from "~/lib/log.server";
import { onWake, wakeOwner } from "~/lib/wake.server";
import { ProgramFailed, ProgramStopped, withScratch, type Scratch } from "~/lib/programs.server";
import { backgroundLoop } from "../platform/index.server";
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
  patientOn,
  readTables,
  recogniseLabRows,
  sampleDate,
  type LabRow,
  type Patient,
  type Recorded,
} from "./labs";

/**
 * The lab-report reader (decision 0082): after an upload is stored, `queueLabRead` adds a
 * lab_reads row (PDFs and images only) naming the account that uploaded it; the owner process of
 * every node runs READERS readers, each claiming one due row at a time with ONE conditional update
 * (the outbox design, decision 0061), reading it in child processes (pdftotext, pdftoppm,
 * tesseract: the event loop stays free), and storing the values as "read" or marking the report
 * not-lab. The reads are shared out (decision 0100): an account has at most one read running in
 * the whole cluster, and the next read goes to the account served longest ago, so one account's
 * uploads never hold every reader. A crash is retried with doubling waits, at most MAX_ATTEMPTS; a
 * read that ran out of time, or a file the tools refuse, fails at once and is never read again; a
 * missing Tesseract ends an image's read as "failed: OCR not available".
 */
/** A claim lapses (its process died) after this: well past the longest read. */
const lockMs = () => Math.max(120_000, 2 * config().labReadMs);
const MAX_ATTEMPTS = 3;
const RETRY_MS = 30_000;
/** Readers in each node's owner process: one account's read never keeps another's waiting. */
const READERS = 2;

const READABLE = new Set(["application/pdf", "image/png", "image/jpeg", "image/webp"]);

type Row = typeof labReads.$inferSelect;

/**
 * Queues a stored report for reading (no-op for files that are not PDFs or images); `account` is
 * the account that uploaded it, by which reads are shared out.
 */
export async function queueLabRead(reportId: string, mimeType: string, account: string): Promise<void> {
  if (!READABLE.has(mimeType)) return;
  await db()
    .insert(labReads)
    .values({ reportId, account, status: "queued", nextAttemptAt: new Date() })
    .onConflictDoNothing();
  kickReaders();
  wakeOwner("lab-read"); // queued in a cluster worker: the node's owner reads it now
}

function kickReaders(): void {
  for (const r of readers) r.kick();
}

const readers = Array.from({ length: READERS }, (_, i) =>
  backgroundLoop(`lab reader ${i + 1}`, (stopping) => processLabReads(stopping)),
);

export function startLabReader(pollMs = 5_000): void {
  for (const r of readers) r.start(pollMs);
  onWake("lab-read", kickReaders);
}
export async function stopLabReader(): Promise<void> {
  await Promise.all(readers.map((r) => r.stop()));
}

function dueCondition(now: Date): SQL {
  return or(
    and(eq(labReads.status, "queued"), lte(labReads.nextAttemptAt, now)),
    and(eq(labReads.status, "reading"), lt(labReads.lockedUntil, now)),
  )!;
}

/** Whose a read is: its account, or (a row queued before accounts were kept) the report itself. */
const accountOf = (t: { account: SQLWrapper; reportId: SQLWrapper }) =>
  sql`coalesce(${t.account}, ${t.reportId})`;

/**
 * The next due read, in turns (decision 0100): none of an account that has a read running anywhere
 * (an unexpired claim), and first the account whose last read ended longest ago (never: first).
 */
async function claimNext(now: Date): Promise<Row | undefined> {
  const other = aliasInSql(labReads, "other");
  const at = timeParam(now.getTime());
  const next = db()
    .select({ id: labReads.reportId })
    .from(labReads)
    .where(
      and(
        dueCondition(now),
        sql`not exists (select 1 from ${other.from} where ${accountOf(other.as)} = ${accountOf(labReads)} and ${other.as.status} = 'reading' and ${other.as.lockedUntil} >= ${at})`,
      ),
    )
    .orderBy(
      sql`(select max(${other.as.finishedAt}) from ${other.from} where ${accountOf(other.as)} = ${accountOf(labReads)}) asc nulls first`,
      labReads.nextAttemptAt,
      labReads.reportId,
    )
    .limit(1);
  const [row] = await db()
    .update(labReads)
    .set({
      status: "reading",
      lockedUntil: new Date(now.getTime() + lockMs()),
      attempts: sql`${labReads.attempts} + 1`,
    })
    .where(and(inArray(labReads.reportId, next), dueCondition(now)))
    .returning();
  return row;
}

async function settle(row: Row, set: Partial<Row>): Promise<void> {
  await db()
    .update(labReads)
    .set({ ...set, lockedUntil: null })
    .where(
      and(
        eq(labReads.reportId, row.reportId),
        eq(labReads.status, "reading"),
        eq(labReads.lockedUntil, row.lockedUntil!),
      ),
    );
}

/** Reads every due report, one at a time, until none is due. */
export async function processLabReads(stop: () => boolean = () => false): Promise<number> {
  let done = 0;
  while (!stop()) {
    // Nothing due, or nothing due of an account without a read running (another reader's turn):
    // this reader waits for the next kick or poll.
    const row = await claimNext(new Date());
    if (!row) break;
    await readOne(row);
    done++;
    // The account's next read may now go to an idle reader.
    kickReaders();
  }
  return done;
}

async function readOne(row: Row): Promise<void> {
  const started = Date.now();
  const who = { reportId: row.reportId, attempt: row.attempts };
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
      .where(eq(reports.id, row.reportId));
    if (!report) return void (await settle(row, { status: "failed", lastError: "report gone" }));
    const result = await readFile(report.fileKey, report.mimeType, {
      sex: report.sex,
      birthYear: report.birthYear,
    });
    const durationMs = Date.now() - started;
    if (!result.lab) {
      await saveReading(row.reportId, result.source, []);
      await settle(row, { status: "not-lab", source: result.source, durationMs, finishedAt: new Date() });
      log("info", "lab reader: not a lab report", { ...who, durationMs });
      return;
    }
    // Word results ("Non Reactive") are stored as text with their printed reference (decision 0098).
    await saveReading(row.reportId, result.source, result.rows);
    await settle(row, {
      status: "read",
      source: result.source,
      sampleDate: result.sampleDate,
      durationMs,
      finishedAt: new Date(),
    });
    log("info", "lab reader: values read", { ...who, values: result.rows.length, durationMs });
  } catch (err) {
    const durationMs = Date.now() - started;
    if (err instanceof OcrUnavailable) {
      await settle(row, {
        status: "failed",
        lastError: "OCR not available",
        durationMs,
        finishedAt: new Date(),
      });
      // A missing tool is the operator's to fix; OCR turned off on purpose is not a fault.
      if (err.turnedOff) log("info", "lab reader: OCR is turned off (LAB_OCR=0), not read", who);
      else log("error", "lab reader failed: OCR not available (install tesseract-ocr and ffmpeg)", who);
      return;
    }
    const lastError = String((err as Error)?.message ?? err).slice(0, 300);
    // A file the tools refuse (it does not decode), one over a size cap and one that ran into a
    // time, memory, CPU or file-size limit fail at once and are never read again: reading it again
    // would only take the machine again (decision 0100). A crash or an interrupted read is retried.
    if (row.attempts >= MAX_ATTEMPTS || isFinal(err)) {
      await settle(row, { status: "failed", lastError, durationMs, finishedAt: new Date() });
      log("error", "lab reader failed", { ...who, error: lastError });
    } else {
      const wait = RETRY_MS * 2 ** (row.attempts - 1);
      await settle(row, { status: "queued", lastError, nextAttemptAt: new Date(Date.now() + wait) });
      log("warn", "lab reader: will retry", { ...who, error: lastError });
    }
  }
}

/** Whether a failed read would fail the same way again (the file is at fault, not the moment). */
function isFinal(err: unknown): boolean {
  if (err instanceof ProgramFailed || err instanceof Unreadable) return true;
  return err instanceof ProgramStopped && err.reason !== "interrupted";
}

/** What a report reads as: its rows (word results among them) and the sample's printed date (ISO). */
type Reading = { lab: boolean; source: "text" | "ocr"; rows: PlacedRow[]; sampleDate: string | null };

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
  // OCR's "yg/dL", "pIU/mL": the µ the lab printed (decision 0112).
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
  const read = tabled.map((l) => l.text);
  if (!looksLikeLabReport(read, who).isLab) return { lab: false, source, rows: [], sampleDate: null };
  const { rows } = recogniseLabRows(read, who);
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
 * CONFIDENT, with the doubt named for the expert.
 */
function doubtWeak<R extends LabRow>(row: R, weak: string[]): R {
  const numbers = [row.printedValue, ...(row.range?.text.match(/\d+(?:\.\d+)?/g) ?? [])];
  if (!weak.some((w) => numbers.some((n) => w.includes(n)))) return row;
  return {
    ...row,
    confidence: Math.min(row.confidence, 0.6),
    doubts: [...row.doubts, "the OCR was unsure of a number on this row"],
  };
}
