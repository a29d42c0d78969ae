import path from "node:path";
import { isIP } from "node:net";
import { z } from "zod";

/** One entry of VOICE_SIP_TRUSTED: an IP address, a CIDR range (address/prefix) or a host name. */
export function trustedEntry(entry: string): boolean {
  const [address, prefix, more] = entry.split("/");
  if (more !== undefined) return false;
  const family = isIP(address);
  if (prefix !== undefined)
    return family !== 0 && /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
  return (
    family !== 0 ||
    /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}))*\.?$/.test(address)
  );
}

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
  /**
   * More user parts the clinic's line answers to (decision 0093), comma-separated, e.g. `clinic,1800123456`:
   * besides the VOICE_URL user and VOICE_NUMBER in its international (+911140000000, 911140000000,
   * 00911140000000), national (01140000000) and bare (1140000000) forms, which are always answered.
   */
  VOICE_SIP_USERS: z
    .string()
    .regex(
      /^[A-Za-z0-9+._-]{1,64}(,[A-Za-z0-9+._-]{1,64})*$/,
      "user parts separated by commas, e.g. clinic,1800123456",
    )
    .optional(),
  /**
   * Where the SIP line takes missed calls from (decision 0101): the trunk's or gateway's addresses,
   * comma-separated — IP addresses, CIDR ranges or host names, e.g. `203.0.113.10,198.51.100.0/24,sip.operator.example`.
   * Unset: the address(es) the host of VOICE_URL resolves to. A call from anywhere else is refused, never called back.
   */
  VOICE_SIP_TRUSTED: z
    .string()
    .refine(
      (v) => v.split(",").every(trustedEntry),
      "IP addresses, CIDR ranges or host names separated by commas, e.g. 203.0.113.10,198.51.100.0/24",
    )
    .optional(),
  /** The UDP ports the sound of calls (RTP) uses: open them on the firewall towards the trunk (decision 0093). */
  VOICE_RTP_PORTS: z
    .string()
    .regex(/^\d{4,5}-\d{4,5}$/, "a range of UDP ports, e.g. 10000-10099")
    .refine((v) => {
      const [from, to] = v.split("-").map(Number);
      return from >= 1024 && to <= 65535 && to - from >= 3;
    }, "from 1024 to 65535, the first below the last, at least 4 ports")
    .default("10000-10099"),
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
  /** VOICE_SIP_USERS: more user parts the "in" line answers to. */
  sipUsers: string[];
  /** VOICE_SIP_TRUSTED: where missed calls are taken from (empty: the host of VOICE_URL). */
  sipTrusted: string[];
  /** VOICE_RTP_PORTS: the first and last UDP port of the calls' sound. */
  rtpPorts: [number, number];
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
    sipUsers: e.VOICE_SIP_USERS ? e.VOICE_SIP_USERS.split(",") : [],
    sipTrusted: e.VOICE_SIP_TRUSTED ? e.VOICE_SIP_TRUSTED.split(",") : [],
    rtpPorts: e.VOICE_RTP_PORTS.split("-").map(Number) as [number, number],
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
