import { randomBytes } from "node:crypto";
import { asc, eq } from "drizzle-orm";
import { config } from "~/config.server";
import { db, type DB, type TxSteps } from "~/db/client.server";
import { imagingInstances, imagingStudies, reports, users } from "~/db/schema";
import { log } from "~/lib/log.server";
import { dicomName, patientPseudonym, rewriteForPacs } from "./dicom-identity.server";
import { defineJobKind, PermanentJobError, startJobs, type JobContext } from "../platform/index.server";
import { readInstanceBytes } from "./dicom-instance.server";

/**
 * Hand-off to a PACS (decision 0039): with PACS_URL (a DICOMweb root) set, every uploaded study is
 * a job of the one background runner (kind "pacs", keyed by the report: decision 0113), asked for
 * in the upload's transaction, and sent by STOW-RS — one multipart/related request with a part per
 * instance — by whichever serving process claims it. A failure is retried after PACS_BACKOFF_MS
 * (growing waits); after the last wait — or at once when the PACS refuses the study for good (a
 * 4xx other than 401/403/404/408/429), or when the runner died during the last attempt — the
 * study is "failed" and never sent again (decision 0057). The study's row says where it stands
 * (queued, sending, sent, failed; attempts; the last error, shown to admins only). Instances are
 * read one at a time into the request body, never the whole study at once, each rewritten with the
 * profile's identity and the server's UIDs (dicom-identity.server.ts).
 */

export const PACS_BACKOFF_MS: readonly number[] = [10_000, 60_000, 300_000, 1_800_000, 7_200_000];
const TIMEOUT_MS = 5 * 60_000;

type PacsJob = { reportId: string };

const pacsJobs = defineJobKind<PacsJob>("pacs", {
  maxAttempts: PACS_BACKOFF_MS.length + 1,
  backoff: PACS_BACKOFF_MS,
  // Renewed while the study is sent (its request may take minutes on a slow link).
  leaseMs: 60_000,
  pollMs: 5_000,
  run: sendStudy,
  describeError: (err) => String((err as Error)?.message ?? err).slice(0, 300),
  async onDead({ reportId }, job) {
    const lastTried = job.attempt > job.maxAttempts;
    await db()
      .update(imagingStudies)
      .set({
        pacsStatus: "failed",
        pacsAttempts: Math.min(job.attempt, job.maxAttempts),
        pacsNextAt: null,
        pacsLockedUntil: null,
        pacsError: lastTried
          ? `gave up after ${job.maxAttempts} attempts (the last did not finish)`
          : job.lastError,
      })
      .where(eq(imagingStudies.reportId, reportId));
    log("error", "study not sent to pacs", { reportId, attempt: job.attempt, error: job.lastError });
  },
});

/** For tests: shorter waits (`backoffMs`; attempts: one more than waits); no argument restores the defaults. */
export function configurePacsSender(overrides?: { backoffMs?: readonly number[] }): void {
  const backoff = overrides?.backoffMs ?? PACS_BACKOFF_MS;
  pacsJobs.configure({ backoff, maxAttempts: backoff.length + 1 });
}

/** In the upload's transaction: the study's hand-off, when PACS_URL is set. */
export function* queuePacsSteps(tx: DB, reportId: string): TxSteps<void> {
  yield* pacsJobs.enqueueSteps(tx, { reportId }, { key: reportId });
}

/** Starts this process's sender when PACS_URL is set (every serving process; idempotent). */
export function startPacsSender(): void {
  if (config().pacsUrl) startJobs([pacsJobs.kind]);
}

export function kickPacsSender(): void {
  pacsJobs.kick();
}

export function stopPacsSender(): Promise<void> {
  return pacsJobs.stop();
}

/** Runs the studies due now, one at a time (tests drive the sender with it). */
export function sendDueStudies() {
  return pacsJobs.runDue();
}

/** One attempt at sending a study; throws to fail it (PermanentJobError: never again). */
async function sendStudy({ reportId }: PacsJob, job: JobContext): Promise<string> {
  const base = config().pacsUrl;
  if (!base) throw new PermanentJobError("PACS_URL is not set");
  await db()
    .update(imagingStudies)
    .set({ pacsStatus: "sending", pacsAttempts: job.attempt, pacsNextAt: null })
    .where(eq(imagingStudies.reportId, reportId));
  try {
    await stow(base, reportId, job.signal);
  } catch (err) {
    const error = String((err as Error)?.message ?? err).slice(0, 300);
    const last = err instanceof PermanentJobError || job.attempt >= job.maxAttempts;
    // What the admin sees meanwhile; the runner marks it failed (onDead) after the last attempt.
    if (!last)
      await db()
        .update(imagingStudies)
        .set({ pacsStatus: "queued", pacsError: error })
        .where(eq(imagingStudies.reportId, reportId));
    log(last ? "error" : "warn", "study not sent to pacs", { reportId, attempt: job.attempt, error });
    throw err;
  }
  await db()
    .update(imagingStudies)
    .set({
      pacsStatus: "sent",
      pacsSentAt: new Date(),
      pacsLockedUntil: null,
      pacsError: null,
      pacsNextAt: null,
    })
    .where(eq(imagingStudies.reportId, reportId));
  log("info", "study sent to pacs", { reportId });
  return "sent";
}

/** STOW-RS: POST {PACS_URL}/studies, multipart/related; type="application/dicom", a part per instance. */
async function stow(base: string, reportId: string, signal: AbortSignal): Promise<void> {
  const [who] = await db()
    .select({
      studyUid: imagingStudies.studyUid,
      profileId: reports.patientId,
      firstName: users.firstName,
      lastName: users.lastName,
    })
    .from(imagingStudies)
    .innerJoin(reports, eq(reports.id, imagingStudies.reportId))
    .innerJoin(users, eq(users.id, reports.patientId))
    .where(eq(imagingStudies.reportId, reportId));
  if (!who) throw new PermanentJobError("the report or its profile is gone");
  const identity = {
    reportId,
    studyUid: who.studyUid,
    patientId: patientPseudonym(who.profileId),
    patientName: dicomName(who.firstName, who.lastName),
  };
  const instances = await db()
    .select({
      fileKey: imagingInstances.fileKey,
      seriesUid: imagingInstances.seriesUid,
      sopInstanceUid: imagingInstances.sopInstanceUid,
    })
    .from(imagingInstances)
    .where(eq(imagingInstances.reportId, reportId))
    .orderBy(asc(imagingInstances.seriesUid), asc(imagingInstances.instanceNumber), asc(imagingInstances.id));
  const boundary = `carebridge-${randomBytes(12).toString("hex")}`;
  // undici reports an error of the body as its own ("fetch failed"): kept here to be told apart.
  let broken: PermanentJobError | null = null;
  async function* body(): AsyncGenerator<Uint8Array> {
    for (const i of instances) {
      yield Buffer.from(`--${boundary}\r\nContent-Type: application/dicom\r\n\r\n`);
      const bytes = await readInstanceBytes(i.fileKey);
      try {
        yield rewriteForPacs(bytes, {
          ...identity,
          seriesUid: i.seriesUid,
          sopInstanceUid: i.sopInstanceUid,
        });
      } catch (err) {
        broken = new PermanentJobError(
          `an instance could not be rewritten: ${String((err as Error)?.message ?? err)}`,
        );
        throw broken;
      }
      yield Buffer.from("\r\n");
    }
    yield Buffer.from(`--${boundary}--\r\n`);
  }
  const res = await fetch(`${base}/studies`, {
    method: "POST",
    headers: {
      "Content-Type": `multipart/related; type="application/dicom"; boundary=${boundary}`,
      Accept: "application/dicom+json",
    },
    // undici streams an async iterable body.
    body: body() as unknown as BodyInit,
    duplex: "half",
    signal: AbortSignal.any([signal, AbortSignal.timeout(TIMEOUT_MS)]),
  } as RequestInit).catch((err: unknown) => {
    throw broken ?? err;
  });
  const text = await res.text().catch(() => "");
  // 200: all stored; 202: some failed (a warning); anything else: not stored.
  if (res.status === 200) return;
  const message = `STOW-RS answered ${res.status}: ${text.slice(0, 200)}`;
  if (res.status >= 400 && res.status < 500 && ![401, 403, 404, 408, 429].includes(res.status))
    throw new PermanentJobError(message);
  throw new Error(message);
}
