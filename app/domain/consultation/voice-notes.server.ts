import { asc, eq, inArray } from "drizzle-orm";
import { config } from "~/config.server";
import { db, exec, first, rows, transaction } from "~/db/client.server";
import { reports, voiceNotes, type VoiceNoteKind, type VoiceNoteRow } from "~/db/schema";
import { newId } from "~/lib/ids.server";
import { audit, auditInsert, limit, UNKNOWN_CLIENT, type Client } from "../platform/index.server";
import { DomainError } from "../platform/errors";
import {
  deleteStored,
  openDecrypted,
  storeUpload,
  toPhoneAudio,
  type StoredFile,
} from "../records/index.server";
import { patientAccess, traceAccess } from "../care/index.server";
import type { Actor } from "../platform/index.server";
import { liveClaim } from "./api-report.server";
import { askFollowUp } from "./followups.server";
import { voiceAudioCache } from "./voice-audio.server";
import { fileAccessRefusal } from "./report-files.server";

/**
 * Voice notes (decision 0037): a spoken description of a report and spoken follow-up questions
 * by the patient (or whoever acts for their profile), a spoken explanation by the expert beside
 * the written opinion. Who may hear them is who may open the report's file (fileAccessRefusal,
 * the one rule); every hearing is audited like a file opening. The audio's type is what its bytes
 * say (files.server sniffs), its duration what its container says (music-metadata), and the
 * stored object is encrypted like any report file.
 */

export type ApiVoiceNote = {
  _id: string;
  reportId: string;
  followUpId: string | null;
  kind: VoiceNoteKind;
  language: string;
  mimeType: string;
  size: number;
  durationMs: number;
  /** What the expert or health worker typed after listening (patients' notes only). */
  heardNote: string | null;
  createdAt: string;
  audioUrl: string;
};

export const HEARD_NOTE_MAX = 2000;
const LANGUAGES = ["en", "hi", "bn", "ta"];

export function voiceAudioUrl(id: string) {
  return `/api/v1/voice-notes/${encodeURIComponent(id)}/audio`;
}

/**
 * The largest voice note accepted, in bytes: enough for VOICE_MAX_SECONDS of 48 kHz 16-bit mono
 * WAV (the biggest thing a phone's recorder saves by default; compressed recordings are a tenth
 * of it), never more than MAX_UPLOAD_MB. It also bounds a container that understates its length.
 */
export function voiceMaxBytes(): number {
  const c = config();
  return Math.min(c.maxUploadBytes, c.voiceMaxSeconds * 96_000 + 64 * 1024);
}

function toApi(row: VoiceNoteRow): ApiVoiceNote {
  return {
    _id: row.id,
    reportId: row.reportId,
    followUpId: row.followupId,
    kind: row.kind,
    language: row.language,
    mimeType: row.mimeType,
    size: row.size,
    durationMs: row.durationMs,
    heardNote: row.kind === "explanation" ? null : row.heardNote,
    createdAt: row.createdAt.toISOString(),
    audioUrl: voiceAudioUrl(row.id),
  };
}

/** EBML variable-length integer at `at`: its value (null when "unknown size") and its length. */
function vint(buf: Buffer, at: number): { value: number | null; length: number } | null {
  const firstByte = buf[at];
  if (firstByte === undefined || firstByte === 0) return null;
  const length = Math.clz32(firstByte) - 23;
  if (at + length > buf.length) return null;
  let value = firstByte & (0xff >> length);
  let allOnes = value === 0xff >> length;
  for (let i = 1; i < length; i++) {
    value = value * 256 + buf[at + i];
    if (buf[at + i] !== 0xff) allOnes = false;
  }
  return { value: allOnes ? null : value, length };
}

/**
 * Whether the file ends where its container says it does. music-metadata reads a duration from
 * the header, so a recording cut off in transfer would pass as whole: WAV's data chunk, a
 * Matroska/WebM segment of known size and Ogg's end-of-stream page each say where the end is.
 */
function looksComplete(buf: Buffer, mime: string): boolean {
  if (mime === "audio/wav") {
    let at = 12;
    while (at + 8 <= buf.length) {
      const id = buf.toString("ascii", at, at + 4);
      const size = buf.readUInt32LE(at + 4);
      if (id === "data") return at + 8 + size <= buf.length;
      at += 8 + size + (size % 2);
    }
    return false;
  }
  if (mime === "audio/webm") {
    const header = vint(buf, 4);
    if (!header || header.value === null) return false;
    const segmentAt = 4 + header.length + header.value;
    if (buf.readUInt32BE(segmentAt) !== 0x18538067) return false;
    const size = vint(buf, segmentAt + 4);
    if (!size) return false;
    return size.value === null || segmentAt + 4 + size.length + size.value <= buf.length;
  }
  if (mime === "audio/ogg") {
    const last = buf.lastIndexOf("OggS");
    return last >= 0 && last + 6 <= buf.length && (buf[last + 5] & 0x04) !== 0;
  }
  return true;
}

/** The duration of the audio in milliseconds, or DomainError invalid when unreadable or too long. */
export async function audioDurationMs(buf: Buffer, mimeType: string): Promise<number> {
  let seconds: number | undefined;
  try {
    // music-metadata, loaded when the first note is checked (most starts check none).
    const { parseBuffer } = await import("music-metadata");
    const meta = await parseBuffer(buf, { mimeType, size: buf.length }, { duration: true, skipCovers: true });
    if (meta.format.hasAudio === false || meta.format.hasVideo) throw new Error("no audio track");
    seconds = meta.format.duration;
  } catch {
    seconds = undefined;
  }
  if (!seconds || !Number.isFinite(seconds) || seconds <= 0 || !looksComplete(buf, mimeType))
    throw new DomainError("invalid", "voice.unreadable", { fieldErrors: { audio: ["voice.unreadable"] } });
  const max = config().voiceMaxSeconds;
  if (seconds > max + 0.5)
    throw new DomainError("invalid", "voice.tooLong", {
      values: { max },
      fieldErrors: { audio: ["voice.tooLong"] },
    });
  return Math.round(seconds * 1000);
}

async function readAll(key: string): Promise<Buffer> {
  const stream = await openDecrypted(key);
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
}

async function reportRow(reportId: string) {
  const row = await first(
    db()
      .select()
      .from(reports)
      .where(eq(reports.id, String(reportId ?? ""))),
  );
  if (!row) throw new DomainError("not_found", "reports.notFound");
  return row;
}

/**
 * Whether the expert holds the report: a pending one through their live claim (a released or
 * lapsed claim keeps its last holder in the row, who holds nothing any more: decision 0058), a reviewed
 * one as its reviewer or the expert its follow-ups went to.
 */
export function holdsReport(actor: Actor, row: typeof reports.$inferSelect) {
  if (actor.accountType !== "Expert" || !actor.approved) return false;
  if (row.status === "Reviewed") return row.expertId === actor.id || row.followupExpertId === actor.id;
  return liveClaim(row) && row.claimedBy === actor.id;
}

export type VoiceNoteInput = { kind?: unknown; language?: unknown; question?: unknown };

/**
 * Adds a voice note to a report from an uploaded file already in the store (the caller's multipart
 * parse or a finished resumable upload). The patient or whoever acts for the profile adds a
 * "description" (any time) or a "question" (a follow-up: its typed text may be empty, the voice
 * being the question); the expert holding the report adds an "explanation". The file is removed
 * whenever the note is refused.
 */
export async function addVoiceNote(
  actor: Actor,
  reportId: string,
  input: VoiceNoteInput,
  file: StoredFile | null,
  opts: { ip?: string | null } = {},
): Promise<ApiVoiceNote> {
  try {
    if (!file)
      throw new DomainError("invalid", "voice.required", { fieldErrors: { audio: ["voice.required"] } });
    const kind = String(input.kind ?? "");
    if (kind !== "description" && kind !== "question" && kind !== "explanation")
      throw new DomainError("invalid", "voice.badKind", { fieldErrors: { kind: ["voice.badKind"] } });
    // No language given is English (the first clients sent none); one we do not support is refused,
    // never stored as English (decision 0058).
    const language = input.language === undefined || input.language === "" ? "en" : String(input.language);
    if (!LANGUAGES.includes(language))
      throw new DomainError("invalid", "voice.badLanguage", {
        fieldErrors: { language: ["voice.badLanguage"] },
      });
    const row = await reportRow(reportId);
    let access: Awaited<ReturnType<typeof patientAccess>> = null;
    if (kind === "explanation") {
      if (actor.accountType !== "Expert") throw new DomainError("forbidden", "voice.expertsOnly");
      if (!actor.approved) throw new DomainError("forbidden", "reports.awaitApproval");
      if (!holdsReport(actor, row)) throw new DomainError("forbidden", "reports.fileNotYours");
    } else {
      if (actor.accountType !== "Patient" && actor.accountType !== "HealthWorker")
        throw new DomainError("forbidden", "voice.patientsOnly");
      access = await patientAccess(actor, row.patientId);
      if (!access || access.kind === "admin") throw new DomainError("forbidden", "reports.notYourReport");
    }
    const audio = await readAll(file.key);
    const durationMs = await audioDurationMs(audio, file.mimeType);
    let followupId: string | null = null;
    if (kind === "question") {
      const asked = await askFollowUp(
        actor,
        row.id,
        { question: input.question ?? "" },
        { ...opts, spoken: true },
      );
      followupId = asked._id;
    }
    const id = newId();
    const createdAt = new Date();
    const values = {
      id,
      reportId: row.id,
      followupId,
      kind: kind as VoiceNoteKind,
      authorId: actor.id,
      language,
      fileKey: file.key,
      mimeType: file.mimeType,
      size: file.size,
      durationMs,
      createdAt,
    };
    const stored = await transaction(function* (tx) {
      // The report may have been deleted while the audio was being read: then nothing is kept.
      const still = yield* rows(tx.select({ id: reports.id }).from(reports).where(eq(reports.id, row.id)));
      if (!still.length) return false;
      yield* exec(tx.insert(voiceNotes).values(values));
      yield* exec(
        auditInsert(tx, actor, "voice_note.add", "report", row.id, { voiceNoteId: id, kind }, opts.ip),
      );
      return true;
    });
    if (!stored) throw new DomainError("not_found", "reports.notFound");
    if (access)
      await traceAccess(actor, access, "patient.voice_add", { reportId: row.id, voiceNoteId: id }, opts.ip);
    // The expert's explanation is played on phone calls (decision 0080): its 8 kHz copy is made once, now.
    if (kind === "explanation") await storePhoneCopy(id, audio, file.mimeType);
    return toApi({ ...values, heardNote: null, heardBy: null, phoneFileKey: null, phoneDurationMs: null });
  } catch (err) {
    if (file) await deleteStored(file.key).catch(() => {});
    throw err;
  }
}

/**
 * A report's voice notes (oldest first) for those who may open its file. The expert's
 * explanation reaches the patient's side only once the written opinion is there: a spoken reply
 * never stands alone.
 */
export async function listVoiceNotes(actor: Actor, reportId: string): Promise<ApiVoiceNote[]> {
  const row = await reportRow(reportId);
  const refusal = await fileAccessRefusal(actor, row);
  if (refusal) throw new DomainError("forbidden", refusal);
  const notes = await db()
    .select()
    .from(voiceNotes)
    .where(eq(voiceNotes.reportId, row.id))
    .orderBy(asc(voiceNotes.createdAt), asc(voiceNotes.id));
  return notes.filter((n) => visible(actor, row, n)).map(toApi);
}

function visible(actor: Actor, row: typeof reports.$inferSelect, note: VoiceNoteRow) {
  if (note.kind !== "explanation" || row.status === "Reviewed") return true;
  return actor.accountType === "Admin" || note.authorId === actor.id;
}

/** Voice notes of many reports at once, by report id (for lists the caller already authorised). */
export async function voiceNotesFor(actor: Actor, reportIds: string[]): Promise<Map<string, ApiVoiceNote[]>> {
  const out = new Map<string, ApiVoiceNote[]>();
  if (!reportIds.length) return out;
  const found = await db()
    .select({ note: voiceNotes, status: reports.status })
    .from(voiceNotes)
    .innerJoin(reports, eq(reports.id, voiceNotes.reportId))
    .where(inArray(voiceNotes.reportId, reportIds))
    .orderBy(asc(voiceNotes.createdAt), asc(voiceNotes.id));
  for (const { note, status } of found) {
    if (note.kind === "explanation" && status !== "Reviewed" && note.authorId !== actor.id) continue;
    const list = out.get(note.reportId) ?? [];
    list.push(toApi(note));
    out.set(note.reportId, list);
  }
  return out;
}

export type OpenedVoiceNote = { bytes: Buffer; mimeType: string; fileName: string; size: number };

/**
 * The decrypted audio for those who may open the report's file, whole (a voice note is small:
 * the GCM tag is checked before any byte is served, and a Range is a slice of it), from the
 * bounded cache of decrypted notes (voice-audio.server.ts, decision 0058): the bytes are shared,
 * never to be changed. Each hearing spends one point of the account's "voiceAudio" budget.
 * Records the hearing ("voice_note.open") and refusals ("voice_note.refused") like report files.
 */
export async function openVoiceNote(
  actor: Actor,
  id: string,
  client: Client = UNKNOWN_CLIENT,
): Promise<OpenedVoiceNote> {
  const ip = client.ip;
  await limit("voiceAudio", actor.id, client);
  const found = await first(
    db()
      .select({ note: voiceNotes, report: reports })
      .from(voiceNotes)
      .innerJoin(reports, eq(reports.id, voiceNotes.reportId))
      .where(eq(voiceNotes.id, String(id ?? ""))),
  );
  if (!found) throw new DomainError("not_found", "voice.notFound");
  const { note, report } = found;
  const refusal =
    (await fileAccessRefusal(actor, report)) ?? (visible(actor, report, note) ? null : "voice.notFound");
  if (refusal) {
    await audit(actor, "voice_note.refused", "report", report.id, { voiceNoteId: note.id }, ip);
    throw new DomainError(refusal === "voice.notFound" ? "not_found" : "forbidden", refusal);
  }
  const bytes = await voiceAudioCache.get(note.fileKey, () => readAll(note.fileKey));
  await audit(actor, "voice_note.open", "report", report.id, { voiceNoteId: note.id }, ip);
  const access = actor.accountType === "Admin" ? null : await patientAccess(actor, report.patientId);
  if (access)
    await traceAccess(actor, access, "patient.voice_open", { reportId: report.id, voiceNoteId: note.id }, ip);
  const ext = note.mimeType.split("/")[1]?.replace("mpeg", "mp3").replace("mp4", "m4a") ?? "audio";
  return { bytes, mimeType: note.mimeType, fileName: `voice-note.${ext}`, size: bytes.length };
}

/**
 * The typed "what I heard" beside a patient's voice note: by the expert holding the report or a
 * health worker acting for the profile. `heardNote` is required: null or an empty text removes it.
 */
export async function setHeardNote(
  actor: Actor,
  id: string,
  input: { heardNote?: unknown },
  opts: { ip?: string | null } = {},
): Promise<ApiVoiceNote> {
  const found = await first(
    db()
      .select({ note: voiceNotes, report: reports })
      .from(voiceNotes)
      .innerJoin(reports, eq(reports.id, voiceNotes.reportId))
      .where(eq(voiceNotes.id, String(id ?? ""))),
  );
  if (!found) throw new DomainError("not_found", "voice.notFound");
  const { note, report } = found;
  let access: Awaited<ReturnType<typeof patientAccess>> = null;
  if (actor.accountType === "HealthWorker") {
    access = await patientAccess(actor, report.patientId);
    if (!access || access.kind !== "centre") throw new DomainError("forbidden", "voice.heardNotAllowed");
  } else if (!holdsReport(actor, report)) {
    throw new DomainError("forbidden", "voice.heardNotAllowed");
  }
  if (note.kind === "explanation") throw new DomainError("invalid", "voice.heardOnlyPatients");
  // A body without the field changes nothing (decision 0058): null or "" removes the note.
  if (input.heardNote === undefined)
    throw new DomainError("invalid", "voice.heardRequired", {
      fieldErrors: { heardNote: ["voice.heardRequired"] },
    });
  if (typeof input.heardNote !== "string" && input.heardNote !== undefined && input.heardNote !== null)
    throw new DomainError("invalid", "voice.heardNotText", {
      fieldErrors: { heardNote: ["voice.heardNotText"] },
    });
  const text = String(input.heardNote ?? "").trim();
  if (text.length > HEARD_NOTE_MAX)
    throw new DomainError("invalid", "voice.heardTooLong", {
      values: { max: HEARD_NOTE_MAX },
      fieldErrors: { heardNote: ["voice.heardTooLong"] },
    });
  const heardNote = text || null;
  await transaction(function* (tx) {
    yield* exec(
      tx
        .update(voiceNotes)
        .set({ heardNote, heardBy: heardNote ? actor.id : null })
        .where(eq(voiceNotes.id, note.id)),
    );
    yield* exec(
      auditInsert(tx, actor, "voice_note.heard", "report", report.id, { voiceNoteId: note.id }, opts.ip),
    );
  });
  if (access)
    await traceAccess(
      actor,
      access,
      "patient.voice_heard",
      { reportId: report.id, voiceNoteId: note.id },
      opts.ip,
    );
  return toApi({ ...note, heardNote, heardBy: heardNote ? actor.id : null });
}

/** Every voice note on the profile's reports, for the data download. */
export async function voiceNotesOfPatient(patientId: string) {
  return db()
    .select({ note: voiceNotes })
    .from(voiceNotes)
    .innerJoin(reports, eq(reports.id, voiceNotes.reportId))
    .where(eq(reports.patientId, patientId))
    .orderBy(asc(voiceNotes.createdAt), asc(voiceNotes.id))
    .then((r) => r.map((x) => x.note));
}

/** Stores the telephone copy of a voice note (8 kHz WAV, encrypted like the note); a failure only leaves it out of calls. */
async function storePhoneCopy(id: string, audio: Buffer, mimeType: string): Promise<void> {
  const wav = await toPhoneAudio(audio, mimeType);
  if (!wav) return;
  const copy = await storeUpload(
    (async function* () {
      yield wav;
    })(),
    { maxBytes: wav.length + 1, allowed: "audio" },
  );
  const done = await db()
    .update(voiceNotes)
    .set({ phoneFileKey: copy.key, phoneDurationMs: Math.round((wav.length - 44) / 16) })
    .where(eq(voiceNotes.id, id))
    .returning({ id: voiceNotes.id });
  if (!done.length) await deleteStored(copy.key).catch(() => {});
}
