import { randomBytes } from "node:crypto";
import { and, asc, eq, lt, lte, or } from "drizzle-orm";
import { config } from "~/config.server";
import { db } from "~/db/client.server";
import { imagingInstances, imagingStudies, reports, users } from "~/db/schema";
import { log } from "~/lib/log.server";
import { dicomName, patientPseudonym, rewriteForPacs } from "./dicom-identity.server";
import { backgroundLoop } from "../platform/index.server";
import { readInstanceBytes } from "./dicom-instance.server";

/**
 * Hand-off to a PACS (decision 0039): with PACS_URL (a DICOMweb root) set, every uploaded study is
 * queued in `imaging_studies` (pacs_status "queued") and sent by STOW-RS — one multipart/related
 * request with a part per instance — by whichever serving process claims it first (a conditional
 * update; a claim held by a process that died lapses after LOCK_MS). A failure is retried after
 * BACKOFF_MS (growing waits); after the last wait — or at once when the PACS refuses the study for
 * good (a 4xx other than 401/403/404/408/429), or when a claim lapsed on the last attempt — the
 * study is "failed" and never sent again (decision 0057). The error is shown to admins only.
 * Instances are read one at a time into the request body, never the whole study at once, each
 * rewritten with the profile's identity and the server's UIDs (dicom-identity.server.ts).
 */

export const PACS_BACKOFF_MS: readonly number[] = [10_000, 60_000, 300_000, 1_800_000, 7_200_000];
const LOCK_MS = 10 * 60_000;
const TIMEOUT_MS = 5 * 60_000;

let settings = { backoffMs: PACS_BACKOFF_MS, pollMs: 5_000 };

/** For tests: shorter waits; no argument restores the defaults. */
export function configurePacsSender(overrides?: Partial<typeof settings>): void {
  settings = { backoffMs: PACS_BACKOFF_MS, pollMs: 5_000, ...overrides };
}

const sender = backgroundLoop("pacs sender", async (stopping) => {
  while (!stopping() && (await sendNextStudy())) {
    /* one study per round trip */
  }
});

/** Starts this process's sender when PACS_URL is set (idempotent). */
export function startPacsSender(): void {
  if (config().pacsUrl) sender.start(settings.pollMs);
}

export function kickPacsSender(): void {
  sender.kick();
}

export function stopPacsSender(): Promise<void> {
  return sender.stop();
}

/** How many times a study is tried at most: once, then once after each wait. */
export const pacsMaxAttempts = () => settings.backoffMs.length + 1;

/** A refusal that sending the same study again cannot change. */
class PermanentPacsError extends Error {}

/** Claims one due study and sends it; false when none was due. */
export async function sendNextStudy(now = new Date()): Promise<boolean> {
  const base = config().pacsUrl;
  if (!base) return false;
  const [due] = await db()
    .select({ reportId: imagingStudies.reportId, attempts: imagingStudies.pacsAttempts })
    .from(imagingStudies)
    .where(
      or(
        and(eq(imagingStudies.pacsStatus, "queued"), lte(imagingStudies.pacsNextAt, now)),
        and(eq(imagingStudies.pacsStatus, "sending"), lt(imagingStudies.pacsLockedUntil, now)),
      ),
    )
    .orderBy(asc(imagingStudies.pacsNextAt))
    .limit(1);
  if (!due) return false;
  if (due.attempts >= pacsMaxAttempts()) {
    // Its last attempt's claim lapsed (the process sending it died): not tried again.
    const gaveUp = await db()
      .update(imagingStudies)
      .set({
        pacsStatus: "failed",
        pacsLockedUntil: null,
        pacsNextAt: null,
        pacsError: `gave up after ${due.attempts} attempts (the last did not finish)`,
      })
      .where(and(eq(imagingStudies.reportId, due.reportId), eq(imagingStudies.pacsAttempts, due.attempts)))
      .returning({ reportId: imagingStudies.reportId });
    if (gaveUp.length)
      log("error", "study not sent to pacs", { reportId: due.reportId, attempt: due.attempts });
    return true;
  }
  const claimed = await db()
    .update(imagingStudies)
    .set({
      pacsStatus: "sending",
      pacsLockedUntil: new Date(now.getTime() + LOCK_MS),
      pacsAttempts: due.attempts + 1,
    })
    .where(and(eq(imagingStudies.reportId, due.reportId), eq(imagingStudies.pacsAttempts, due.attempts)))
    .returning({ reportId: imagingStudies.reportId });
  if (!claimed.length) return true; // another process took it
  try {
    await stow(base, due.reportId);
    await db()
      .update(imagingStudies)
      .set({
        pacsStatus: "sent",
        pacsSentAt: new Date(),
        pacsLockedUntil: null,
        pacsError: null,
        pacsNextAt: null,
      })
      .where(eq(imagingStudies.reportId, due.reportId));
    log("info", "study sent to pacs", { reportId: due.reportId });
  } catch (err) {
    const attempt = due.attempts + 1;
    const wait = err instanceof PermanentPacsError ? undefined : settings.backoffMs[attempt - 1];
    const error = String((err as Error)?.message ?? err).slice(0, 300);
    await db()
      .update(imagingStudies)
      .set({
        pacsStatus: wait === undefined ? "failed" : "queued",
        pacsNextAt: wait === undefined ? null : new Date(Date.now() + wait),
        pacsLockedUntil: null,
        pacsError: error,
      })
      .where(eq(imagingStudies.reportId, due.reportId));
    log("error", "study not sent to pacs", { reportId: due.reportId, attempt, error });
  }
  return true;
}

/** STOW-RS: POST {PACS_URL}/studies, multipart/related; type="application/dicom", a part per instance. */
async function stow(base: string, reportId: string): Promise<void> {
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
  if (!who) throw new PermanentPacsError("the report or its profile is gone");
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
  let broken: PermanentPacsError | null = null;
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
        broken = new PermanentPacsError(
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
    signal: AbortSignal.timeout(TIMEOUT_MS),
  } as RequestInit).catch((err: unknown) => {
    throw broken ?? err;
  });
  const text = await res.text().catch(() => "");
  // 200: all stored; 202: some failed (a warning); anything else: not stored.
  if (res.status === 200) return;
  const message = `STOW-RS answered ${res.status}: ${text.slice(0, 200)}`;
  if (res.status >= 400 && res.status < 500 && ![401, 403, 404, 408, 429].includes(res.status))
    throw new PermanentPacsError(message);
  throw new Error(message);
}
