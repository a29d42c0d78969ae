import { and, eq, isNull, lt, sql } from "drizzle-orm";
import { config } from "~/config.server";
import { db, first, runExclusive } from "~/db/client.server";
import { uploadSessions } from "~/db/schema";
import { UPLOAD_FORM_FIELDS, uploadReportFormSchema } from "~/schemas/reports";
import { formSchema } from "~/schemas/strict";
import { log } from "~/lib/log.server";
import type { Client } from "../platform/client";
import { DomainError, isDomainError, zodFieldErrors } from "../platform/errors";
import {
  deleteSegments,
  deleteStored,
  isUploadId,
  listSegments,
  maxBytesFor,
  openSegment,
  reportUploadMaxBytes,
  sniffType,
  SNIFF_SAMPLE_BYTES,
  storeSegment,
  storeUpload,
  tooLarge,
  type Segment,
  type StoredFile,
} from "../records/index.server";
import { limit } from "../platform/index.server";
import { assertCanUpload, createReport, uploadTarget } from "./report-upload.server";
import type { ApiReport } from "./api-report.server";
import type { Actor } from "../platform/index.server";

/**
 * Resumable uploads (decision 0015): a report file sent in pieces over as many requests — and
 * nodes — as the connection needs. The protocol (tus) is spoken by `utils/tus.server.ts`; this
 * module holds the rules, with nothing in process memory:
 *
 * - `beginUpload` checks everything the one-request upload checks before a byte is sent: a
 *   patient, the upload rate limit, the size (MAX_UPLOAD_MB) and the report's fields (the same
 *   schema as the upload screen), and records a row in `upload_sessions`.
 * - `appendToUpload` stores the bytes of one request as encrypted segments (files.server.ts) and
 *   advances `received` with one conditional update per segment, so two requests racing at the
 *   same offset (a stale one on another node, say) cannot both count. Whatever arrived before a
 *   connection was cut is kept.
 * - `finishUpload` decrypts the segments in order into `storeUpload` (type sniffed, one encrypted
 *   file), creates the report with `createReport` and deletes the segments.
 * - `sweepUploads` removes sessions idle for a day, with their segments.
 */

/** A request body longer than this is stored as several segments, each counted as soon as it is stored. */
export const SEGMENT_MAX_BYTES = 1024 * 1024;
/** An upload that has not received a byte for this long is removed by the hourly sweep. */
export const UPLOAD_IDLE_MS = 24 * 60 * 60 * 1000;
/**
 * All bytes are there but no report after this long: the request that was making it died (a crash,
 * a redeploy), and another request may take over. Making a report takes seconds.
 */
export const FINISH_STALE_MS = 10 * 60 * 1000;
const FILE_NAME_MAX = 255;

export type UploadSession = {
  id: string;
  /** Declared size in bytes. */
  length: number;
  /** Bytes stored so far: where the client continues. */
  received: number;
  segments: number;
  fields: Record<string, string>;
  fileName: string | null;
  /** Set once the report has been made from the upload. */
  reportId: string | null;
  createdAt: Date;
  updatedAt: Date;
};

type Row = typeof uploadSessions.$inferSelect;

function fromRow(row: Row): UploadSession {
  let stored: { fields?: Record<string, string>; fileName?: string | null } = {};
  try {
    stored = JSON.parse(row.metadata) as typeof stored;
  } catch {
    /* written by us; never malformed */
  }
  return {
    id: row.id,
    length: row.length,
    received: row.received,
    segments: row.segments,
    fields: stored.fields ?? {},
    fileName: stored.fileName ?? null,
    reportId: row.reportId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

const notFound = () => new DomainError("not_found", "uploads.notFound");
const offsetConflict = () => new DomainError("conflict", "uploads.offsetConflict");
/** Another request is making the report from this upload (the protocol adapter answers 423). */
export const FINISHING = "uploads.busy";

/**
 * Starts an upload of `length` bytes for the patient, with the report's fields as `metadata`
 * (strings, as a tus client sends them). Refuses before any byte is sent: not a patient (403),
 * rate limited (429), over MAX_UPLOAD_MB (413), empty or with bad fields (400 with field errors).
 */
export async function beginUpload(
  actor: Actor | null,
  input: { id: string; length: number | undefined; metadata: Record<string, string | null> | undefined },
  client: Client,
): Promise<UploadSession> {
  assertCanUpload(actor);
  await limit("upload", actor.id, client);
  if (!isUploadId(input.id)) throw new Error("upload ids are 24 hex characters");
  const meta = input.metadata ?? {};
  // Only what claims to be medical images (by its name or type; the bytes decide at the first
  // PATCH) may be over MAX_UPLOAD_MB: anything else is refused before a byte is sent.
  const claimed = `${meta.filename ?? meta.name ?? ""} ${meta.filetype ?? meta.type ?? ""}`;
  const max = /\.(?:dcm|dicom|zip)\b|dicom|zip/i.test(claimed)
    ? reportUploadMaxBytes()
    : config().maxUploadBytes;
  const length = input.length;
  if (length === undefined || !Number.isSafeInteger(length) || length < 0) {
    throw new DomainError("invalid", "uploads.lengthRequired");
  }
  if (length > max) {
    throw tooLarge(max);
  }
  const fields: Record<string, string> = {};
  for (const k of UPLOAD_FORM_FIELDS) {
    const v = meta[k];
    if (typeof v === "string") fields[k] = v;
  }
  // Whose report: refused before a byte is sent (the same check runs again when the report is made).
  await uploadTarget(actor, fields.patientId);
  const parsed = formSchema(uploadReportFormSchema).safeParse(fields);
  const errors = parsed.success ? {} : zodFieldErrors(parsed.error);
  if (length === 0) errors.report = ["files.empty"];
  if (Object.keys(errors).length) {
    throw new DomainError("invalid", "reports.uploadFailed", { fieldErrors: errors });
  }
  const rawName = meta.filename ?? meta.name ?? null;
  const fileName = typeof rawName === "string" ? Array.from(rawName).slice(0, FILE_NAME_MAX).join("") : null;
  const now = new Date();
  const [row] = await db()
    .insert(uploadSessions)
    .values({
      id: input.id,
      ownerId: actor.id,
      length,
      received: 0,
      segments: 0,
      metadata: JSON.stringify({ fields, fileName }),
      reportId: null,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return fromRow(row);
}

/** The actor's upload; anyone else's (or an unknown id) is not_found, so ids reveal nothing. */
export async function getUpload(actor: Actor, id: string): Promise<UploadSession> {
  if (!isUploadId(id)) throw notFound();
  const row = await first(
    db()
      .select()
      .from(uploadSessions)
      .where(and(eq(uploadSessions.id, id), eq(uploadSessions.ownerId, actor.id))),
  );
  if (!row) throw notFound();
  return fromRow(row);
}

/**
 * Reads a request body in pieces of at most n bytes (`take`), and can look at its first bytes
 * before they are taken (`peek`). A piece ends early when the body ends.
 */
function pieces(body: AsyncIterable<Uint8Array>) {
  const it = body[Symbol.asyncIterator]();
  let carry: Buffer[] = [];
  let ended = false;
  const next = async (): Promise<Buffer | null> => {
    const held = carry.shift();
    if (held) return held;
    while (!ended) {
      const r = await it.next();
      if (r.done) ended = true;
      else if (r.value.byteLength) return Buffer.from(r.value.buffer, r.value.byteOffset, r.value.byteLength);
    }
    return null;
  };
  return {
    /** Up to `n` leading bytes without taking them (fewer when the body is shorter). */
    async peek(n: number): Promise<Buffer> {
      const seen: Buffer[] = [];
      let have = 0;
      while (have < n) {
        const chunk = await next();
        if (!chunk) break;
        // Copied: it is read again when taken.
        seen.push(Buffer.from(chunk));
        have += chunk.length;
      }
      carry = [...seen, ...carry];
      return Buffer.concat(seen, have).subarray(0, n);
    },
    async *take(n: number): AsyncGenerator<Buffer> {
      let left = n;
      while (left > 0) {
        const chunk = await next();
        if (!chunk) return;
        if (chunk.length > left) {
          carry.unshift(chunk.subarray(left));
          yield chunk.subarray(0, left);
          return;
        }
        left -= chunk.length;
        yield chunk;
      }
    },
    async hasMore(): Promise<boolean> {
      const chunk = await next();
      if (chunk) carry.unshift(chunk);
      return chunk !== null;
    },
  };
}

/**
 * Stores the bytes of one request, which continues the upload at `offset` (the client's
 * Upload-Offset; a different one than the stored `received` is a conflict). The body may end
 * early — a connection cut mid-request — and what arrived is kept. Bytes are stored in segments
 * of at most SEGMENT_MAX_BYTES, each counted by a conditional update (`received` must still be
 * where the segment starts), so every node can continue and a stale request cannot count twice.
 * The first bytes of an upload are type-sniffed at once: a file that would be refused at the end
 * is refused (415) before the rest is sent, and the upload is removed.
 */
export async function appendToUpload(
  actor: Actor,
  id: string,
  offset: number,
  body: AsyncIterable<Uint8Array>,
): Promise<UploadSession> {
  let session = await getUpload(actor, id);
  if (session.reportId || session.received !== offset) throw offsetConflict();
  const reader = pieces(body);
  if (offset === 0) {
    const want = Math.min(SNIFF_SAMPLE_BYTES, session.length);
    const head = await reader.peek(want);
    if (head.length === want) {
      try {
        const type = await sniffType(head, "report");
        // The type's own limit (MAX_UPLOAD_MB, or MAX_STUDY_MB for medical images) against the declared length.
        if (session.length > maxBytesFor(type.mime)) throw tooLarge(maxBytesFor(type.mime));
      } catch (err) {
        await removeUpload(id);
        throw err;
      }
    }
  }
  let at = offset;
  while (at < session.length) {
    const segment = await storeSegment(id, at, reader.take(Math.min(SEGMENT_MAX_BYTES, session.length - at)));
    if (!segment) break; // the body ended
    const [row] = await db()
      .update(uploadSessions)
      .set({
        received: at + segment.size,
        segments: sql`${uploadSessions.segments} + 1`,
        updatedAt: new Date(),
      })
      .where(and(eq(uploadSessions.id, id), eq(uploadSessions.received, at), isNull(uploadSessions.reportId)))
      .returning();
    if (!row) {
      // Another request stored these bytes first (or the upload was removed): this copy is not counted.
      await deleteStored(segment.key).catch(() => {});
      throw offsetConflict();
    }
    session = fromRow(row);
    at = session.received;
  }
  if (at >= session.length && (await reader.hasMore())) {
    throw tooLarge(reportUploadMaxBytes());
  }
  return session;
}

/**
 * Which segment supplies which bytes: from offset 0, each time the stored segment that covers the
 * next byte and reaches furthest. Counted segments are contiguous by construction; a copy a
 * crashed request left behind (same bytes of the same file) is simply not needed.
 */
function planSegments(segments: Segment[], length: number) {
  const plan: { key: string; skip: number; take: number }[] = [];
  let at = 0;
  while (at < length) {
    let best: Segment | undefined;
    for (const s of segments) {
      if (s.offset <= at && s.offset + s.size > at && (!best || s.offset + s.size > best.offset + best.size))
        best = s;
    }
    if (!best) throw new Error(`upload is missing its bytes from ${at}`);
    const end = Math.min(best.offset + best.size, length);
    plan.push({ key: best.key, skip: at - best.offset, take: end - at });
    at = end;
  }
  return plan;
}

/** The upload's plaintext, segment by segment (each read whole, so every tag is checked). */
async function* assembled(plan: { key: string; skip: number; take: number }[]): AsyncGenerator<Buffer> {
  for (const { key, skip, take } of plan) {
    const segment = await openSegment(key);
    let pos = 0;
    try {
      for await (const chunk of segment.stream as AsyncIterable<Buffer>) {
        const from = Math.max(0, skip - pos);
        const to = Math.min(chunk.length, skip + take - pos);
        if (to > from) yield chunk.subarray(from, to);
        pos += chunk.length;
      }
    } finally {
      await segment.close();
    }
  }
}

/** Removes an upload's row and segments (refused at the end, or ended by its owner or the sweep). */
async function removeUpload(id: string) {
  await db().delete(uploadSessions).where(eq(uploadSessions.id, id));
  await deleteSegments(id).catch((err) =>
    log("error", "could not remove upload segments", { upload: id, error: String(err) }),
  );
}

/**
 * Makes the report from a complete upload: the segments decrypted in order into `storeUpload`
 * (type sniffed, one encrypted file), `createReport` with the fields given at the start, then the
 * segments deleted. Exactly one request does it: `committed` is the session as the request that
 * stored the last byte left it (a conditional update on its `updatedAt` claims the work); any
 * other request may only take over once that one has been silent for FINISH_STALE_MS.
 * Returns null when the report had been made before. A refused file (wrong type) ends the upload.
 */
export async function finishUpload(
  actor: Actor,
  id: string,
  ip: string | null,
  committed?: UploadSession,
): Promise<ApiReport | null> {
  const session = committed ?? (await getUpload(actor, id));
  if (session.reportId) return null;
  if (session.received !== session.length) throw offsetConflict();
  if (!committed && Date.now() - session.updatedAt.getTime() < FINISH_STALE_MS) {
    throw new DomainError("conflict", FINISHING);
  }
  const claimed = await db()
    .update(uploadSessions)
    .set({ updatedAt: new Date() })
    .where(
      and(
        eq(uploadSessions.id, id),
        eq(uploadSessions.ownerId, actor.id),
        isNull(uploadSessions.reportId),
        eq(uploadSessions.updatedAt, session.updatedAt),
      ),
    )
    .returning({ id: uploadSessions.id });
  if (!claimed.length) throw new DomainError("conflict", FINISHING);

  let file: StoredFile;
  try {
    const plan = planSegments(await listSegments(id), session.length);
    file = await storeUpload(assembled(plan), {
      maxBytes: reportUploadMaxBytes(),
      allowed: "report",
      fileName: session.fileName,
    });
  } catch (err) {
    if (isDomainError(err)) await removeUpload(id);
    throw err;
  }
  let report: ApiReport;
  try {
    // Validates the fields again and removes the file when it fails (the screen's country code and
    // consent were required when the upload began: the fields are the ones checked then).
    // Consent was ticked when the upload began; a withdrawal since then outweighs it.
    report = await createReport(actor, session.fields, file, { ip, consentGivenAt: session.createdAt });
  } catch (err) {
    if (isDomainError(err)) await removeUpload(id);
    throw err;
  }
  await db()
    .update(uploadSessions)
    .set({ reportId: report._id, segments: 0, updatedAt: new Date() })
    .where(eq(uploadSessions.id, id));
  await deleteSegments(id).catch((err) =>
    log("error", "could not remove upload segments", { upload: id, error: String(err) }),
  );
  return report;
}

/** The owner ends an upload (tus termination): its segments and row go; a report made from it stays. */
export async function abandonUpload(actor: Actor, id: string): Promise<void> {
  const session = await getUpload(actor, id);
  await removeUpload(session.id);
}

/**
 * Hourly (one node at a time): uploads idle for UPLOAD_IDLE_MS are removed — the row by one
 * conditional delete (an upload that received bytes meanwhile stays), then its segments.
 * Segments whose row is gone for any other reason (an account deleted) are orphans that
 * `sweepLeftovers` removes.
 */
export async function sweepUploads(
  now = Date.now(),
): Promise<{ removedUploads: number; removedSegments: number }> {
  const result = await runExclusive("uploads", async () => {
    const gone = await db()
      .delete(uploadSessions)
      .where(lt(uploadSessions.updatedAt, new Date(now - UPLOAD_IDLE_MS)))
      .returning({ id: uploadSessions.id });
    let removedSegments = 0;
    for (const { id } of gone) removedSegments += await deleteSegments(id);
    if (gone.length) log("info", "upload session sweep", { removedUploads: gone.length, removedSegments });
    return { removedUploads: gone.length, removedSegments };
  });
  return result ?? { removedUploads: 0, removedSegments: 0 };
}
