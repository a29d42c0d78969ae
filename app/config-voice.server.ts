import path from "node:path";
import { z } from "zod";

/**
 * Phone calls (decision 0080): the settings, read with the rest of the configuration. Kept beside
 * config.server.ts so that file stays one screen of settings per concern.
 */
export const voiceEnv = {
  /**
   * How calls reach the phone network: `sip://user:password@trunk.example:5060` (baresip registered to an
   * operator's SIP trunk or a GSM gateway) or `https://key:token@api.provider.example/v1/Accounts/ID` (an HTTP
   * voice provider in the style of Exotel, Plivo and Twilio). Unset: calls are written to DATA_DIR/call-outbox/.
   */
  VOICE_URL: z
    .string()
    .regex(/^(sips?|https?):\/\//, "must start with sip://, sips://, http:// or https://")
    .optional(),
  /** The clinic's published number, E.164: the number patients give a missed call to and see calls from. */
  VOICE_NUMBER: z
    .string()
    .regex(/^\+[1-9]\d{6,14}$/, "an international number such as +911140000000")
    .optional(),
  /** Where baresip listens for SIP (missed calls from a trunk or gateway arrive here). */
  VOICE_SIP_LISTEN: z
    .string()
    .regex(/^[^\s:]+:\d{1,5}$/, "host:port, e.g. 127.0.0.1:5062")
    .default("127.0.0.1:5062"),
  /** Diagnostics only: baresip writes what was sent and heard on each call as WAV files here. Never in production. */
  VOICE_SIP_DUMP_DIR: z.string().min(1).optional(),
  /** The callback to a missed call is placed this long after the missed call. */
  VOICE_CALLBACK_SECONDS: z.coerce.number().min(0).max(86_400).default(120),
  /** Attempts of one call (no answer or busy is retried) and the wait between them. */
  VOICE_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(3),
  VOICE_RETRY_SECONDS: z.coerce.number().min(0).max(86_400).default(900),
  /** Ceilings: calls placed per hour (all nodes), calls to one number per day, calls answering unknown callers per day. */
  VOICE_PER_HOUR: z.coerce.number().int().min(1).max(100_000).default(30),
  VOICE_PER_NUMBER_DAY: z.coerce.number().int().min(1).max(100).default(3),
  VOICE_UNKNOWN_PER_DAY: z.coerce.number().int().min(0).max(100_000).default(20),
  /** The call windows in local time, e.g. morning=9-12,afternoon=12-17,evening=17-20. */
  VOICE_WINDOWS: z
    .string()
    .regex(
      /^(morning|afternoon|evening)=\d{1,2}-\d{1,2}(,(morning|afternoon|evening)=\d{1,2}-\d{1,2})*$/,
      "e.g. morning=9-12,afternoon=12-17,evening=17-20",
    )
    .default("morning=9-12,afternoon=12-17,evening=17-20"),
  /** The longest call; a call still open after it is ended. */
  VOICE_MAX_CALL_SECONDS: z.coerce.number().int().min(30).max(3_600).default(300),
};

export type CallWindowName = "morning" | "afternoon" | "evening";

export type VoiceConfig = {
  /** "folder": no VOICE_URL; "sip": baresip; "http": a voice provider. */
  kind: "folder" | "sip" | "http";
  url: URL | undefined;
  number: string | undefined;
  sipListen: string;
  dumpDir: string | undefined;
  outboxDir: string;
  /** baresip's configuration and the prompts of calls in progress. */
  workDir: string;
  callbackDelayMs: number;
  attempts: number;
  retryMs: number;
  perHour: number;
  perNumberDay: number;
  unknownPerDay: number;
  /** Start and end hour (local time) of each window. */
  windows: Record<CallWindowName, [number, number]>;
  maxCallMs: number;
  /** Signs the addresses a voice provider calls back. */
  webhookSecret: string;
};

type VoiceEnv = z.infer<z.ZodObject<typeof voiceEnv>>;

export function voiceConfig(e: VoiceEnv, dataDir: string): Omit<VoiceConfig, "webhookSecret"> {
  const url = e.VOICE_URL ? new URL(e.VOICE_URL) : undefined;
  const windows: Record<CallWindowName, [number, number]> = {
    morning: [9, 12],
    afternoon: [12, 17],
    evening: [17, 20],
  };
  for (const part of e.VOICE_WINDOWS.split(",")) {
    const [name, range] = part.split("=") as [CallWindowName, string];
    const [from, to] = range.split("-").map(Number);
    windows[name] = [Math.min(from, 24), Math.min(to, 24)];
  }
  return {
    kind: !url ? "folder" : url.protocol.startsWith("sip") ? "sip" : "http",
    url,
    number: e.VOICE_NUMBER,
    sipListen: e.VOICE_SIP_LISTEN,
    dumpDir: e.VOICE_SIP_DUMP_DIR ? path.resolve(e.VOICE_SIP_DUMP_DIR) : undefined,
    outboxDir: path.join(dataDir, "call-outbox"),
    workDir: path.join(dataDir, "voice"),
    callbackDelayMs: Math.round(e.VOICE_CALLBACK_SECONDS * 1000),
    attempts: e.VOICE_ATTEMPTS,
    retryMs: Math.round(e.VOICE_RETRY_SECONDS * 1000),
    perHour: e.VOICE_PER_HOUR,
    perNumberDay: e.VOICE_PER_NUMBER_DAY,
    unknownPerDay: e.VOICE_UNKNOWN_PER_DAY,
    windows,
    maxCallMs: e.VOICE_MAX_CALL_SECONDS * 1000,
  };
}
