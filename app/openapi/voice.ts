import { z } from "zod";
import { VOICE_NOTE_KINDS } from "~/db/types";
import type { Endpoint } from "./endpoint";

/** A voice note (decision 0037). */
export const voiceNoteObject = z.object({
  _id: z.string(),
  reportId: z.string(),
  followUpId: z.string().nullable().describe("The follow-up a spoken question asked (kind question)"),
  kind: z.enum(VOICE_NOTE_KINDS),
  language: z.string().describe("The language spoken: en, hi, bn or ta"),
  mimeType: z
    .string()
    .describe("As the bytes say: audio/webm, audio/ogg, audio/mp4, audio/mpeg or audio/wav"),
  size: z.number().int(),
  durationMs: z.number().int().describe("Read from the container"),
  heardNote: z.string().nullable().describe('The typed "what I heard" by the expert or health worker'),
  createdAt: z.string().datetime(),
  audioUrl: z.string().describe("GET it for the audio (Range requests supported)"),
});

const WHO_READS =
  "those who may open the report's file: the patient, a family manager or centre worker acting for them, Admin, approved Experts (any while pending; once reviewed its reviewer, claimant or follow-up expert)";

export const VOICE_ENDPOINTS: Endpoint[] = [
  {
    method: "post",
    path: "/voice-notes",
    who: "description and question: the patient or whoever acts for the profile; explanation: the approved Expert holding the report (its live claim, or its reviewer or follow-up expert once reviewed)",
    summary:
      "Add a voice note (WebM/Opus, Ogg/Opus, MP4/AAC, MP3 or WAV, decided by the bytes; at most VOICE_MAX_SECONDS, 120 by default, read from the container). A question becomes a follow-up (same count and window as typed ones; its text may be empty). 400 when the audio cannot be read or is too long, or `language` is not one of en, hi, bn, ta (left out: en); 415 when it is not audio",
    auth: true,
    multipart: {
      fileField: "audio",
      types: "audio/webm, audio/ogg, audio/mp4, audio/mpeg, audio/wav",
      fields: z.object({
        reportId: z.string(),
        kind: z.enum(VOICE_NOTE_KINDS),
        language: z.enum(["en", "hi", "bn", "ta"]).optional(),
        question: z
          .string()
          .max(2000)
          .optional()
          .describe("kind question: the words typed beside it (optional)"),
      }),
    },
    data: voiceNoteObject,
    status: 201,
    errors: [400, 401, 403, 404, 409, 413, 415],
    idempotent: true,
    held: true,
  },
  {
    method: "get",
    path: "/voice-notes",
    who: WHO_READS,
    summary:
      "A report's voice notes, oldest first. The expert's explanation reaches the patient's side only once the written opinion is there",
    auth: true,
    query: z.object({ reportId: z.string() }),
    data: z.array(voiceNoteObject),
    errors: [401, 403, 404],
  },
  {
    method: "get",
    path: "/voice-notes/{voiceNoteId}/audio",
    who: WHO_READS,
    summary:
      "The audio, decrypted, with its real content type; one `Range: bytes=…` gives 206 with Content-Range (416 with `Content-Range: bytes */<size>` and no body when it starts beyond the end). Every hearing and every refusal (403) is recorded and spends one of the account's hearings (600 in 10 minutes by default; 429 with Retry-After beyond)",
    auth: true,
    binary: true,
    errors: [401, 403, 404, 416, 429],
  },
  {
    method: "patch",
    path: "/voice-notes/{voiceNoteId}",
    who: "the approved Expert holding the report (its live claim, or its reviewer or follow-up expert once reviewed), or a health worker of the patient's centre",
    summary:
      'Write the typed "what I heard" beside a patient\'s voice note; `heardNote` is required (400 without it): null or an empty text clears it',
    auth: true,
    body: z.object({ heardNote: z.string().max(2000).nullable() }),
    data: voiceNoteObject,
    errors: [400, 401, 403, 404],
  },
];
