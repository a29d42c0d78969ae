import { createHmac, timingSafeEqual } from "node:crypto";
import { eq } from "drizzle-orm";
import { config } from "~/config.server";
import { db, first } from "~/db/client.server";
import { phoneCalls, type PhoneCallRow } from "~/db/schema";
import { log } from "~/lib/log.server";
import { maskPhone } from "~/lib/phone.server";
import { updateCallingCall } from "./queue.server";
import { DomainError } from "../platform/errors";
import { receiveMissedCall } from "./intake.server";
import { FINAL_PROMPTS, pressKey, startIvr, type IvrState, type Prompt } from "./ivr";
import { planFor } from "./plan.server";
import { promptAudio } from "./prompts.server";
import { giveUpCall, settleCall, type CallEnd, type CallLine } from "./sender.server";

/**
 * An HTTP voice provider (decision 0080), in the style of Exotel, Plivo and Twilio: VOICE_URL is
 * the provider's "place a call" endpoint with the account's key and token as its user and password.
 * CareBridge posts the number, its caller id and an answer address; the provider fetches the answer
 * (XML: play this, gather keys), posts the keys, fetches each sound, and posts the call's status
 * at its end. Every address it is given carries a signature of the call and the step (HMAC with
 * VOICE's webhook secret), so nobody else can drive or hear a call; the opinion's sound is served
 * only after the right digits were posted for that call. Missed calls arrive at /voice/missed.
 */

const PROVIDER_TIMEOUT_MS = 10_000;

export function signature(callId: string, step: string): string {
  return createHmac("sha256", config().voice.webhookSecret)
    .update(`${callId}:${step}`)
    .digest("base64url")
    .slice(0, 32);
}

function checkSignature(callId: string, step: string, given: string | null) {
  const want = Buffer.from(signature(callId, step));
  const got = Buffer.from(given ?? "");
  if (got.length !== want.length || !timingSafeEqual(got, want))
    throw new DomainError("forbidden", "phonecall.badSignature");
}

const url = (p: string, callId: string, step: string) =>
  `${config().appUrl}${p}?sig=${encodeURIComponent(signature(callId, step))}`;
const answerUrl = (id: string) => url(`/voice/${encodeURIComponent(id)}/answer`, id, "answer");
const keysUrl = (id: string) => url(`/voice/${encodeURIComponent(id)}/keys`, id, "keys");
const statusUrl = (id: string) => url(`/voice/${encodeURIComponent(id)}/status`, id, "status");
const soundUrl = (id: string, p: Prompt) => url(`/voice/${encodeURIComponent(id)}/sound/${p}.wav`, id, p);

/** The address a provider posts missed calls to (given to the provider once; logged at start). */
export function missedCallUrl(): string {
  return url("/voice/missed", "missed", "missed");
}

export class ProviderLine implements CallLine {
  async place(row: PhoneCallRow): Promise<CallEnd | { pending: string }> {
    const v = config().voice;
    const endpoint = new URL(v.url!.href);
    const auth = endpoint.username
      ? `Basic ${Buffer.from(`${decodeURIComponent(endpoint.username)}:${decodeURIComponent(endpoint.password)}`).toString("base64")}`
      : undefined;
    endpoint.username = "";
    endpoint.password = "";
    const body = new URLSearchParams({
      From: row.number,
      To: row.number,
      CallerId: v.number ?? "",
      Url: answerUrl(row.id),
      Method: "POST",
      StatusCallback: statusUrl(row.id),
      StatusCallbackMethod: "POST",
      CustomField: row.id,
    });
    let res: Response;
    try {
      res = await fetch(endpoint, {
        method: "POST",
        headers: {
          "Content-Type": "application/x-www-form-urlencoded",
          ...(auth ? { Authorization: auth } : {}),
        },
        body,
        signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
      });
    } catch (err) {
      const why = (err as Error)?.name === "TimeoutError" ? "did not answer in time" : "unreachable";
      return {
        answered: false,
        failed: `voice provider ${why}`,
        state: null,
        answeredAt: null,
        durationMs: 0,
      };
    }
    const text = (await res.text().catch(() => "")).slice(0, 4096);
    if (!res.ok)
      return {
        answered: false,
        failed: `voice provider answered HTTP ${res.status}`,
        state: null,
        answeredAt: null,
        durationMs: 0,
      };
    let ref: string | undefined;
    try {
      const json = JSON.parse(text) as Record<string, any>;
      ref = json?.Call?.Sid ?? json?.sid ?? json?.request_uuid ?? json?.call_uuid;
    } catch {
      ref = /<Sid>([^<]+)<\/Sid>/.exec(text)?.[1];
    }
    return { pending: String(ref ?? `${row.id}:${row.attempts}`) };
  }
}

type Stored = { state: IvrState; play: Prompt };

async function callingRow(callId: string): Promise<PhoneCallRow> {
  const row = await first(db().select().from(phoneCalls).where(eq(phoneCalls.id, callId)));
  if (!row || row.status !== "calling") throw new DomainError("not_found", "errors.notFound");
  return row;
}

const xmlEscape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/"/g, "&quot;");

function twiml(callId: string, play: Prompt, state: IvrState, secretLength: number): string {
  const sound = `<Play>${xmlEscape(soundUrl(callId, play))}</Play>`;
  const body = FINAL_PROMPTS.includes(play)
    ? `${sound}<Hangup/>`
    : `<Gather numDigits="${state.step === "identify" ? secretLength : 1}" timeout="12" method="POST" action="${xmlEscape(keysUrl(callId))}">${sound}</Gather><Hangup/>`;
  return `<?xml version="1.0" encoding="UTF-8"?><Response>${body}</Response>`;
}

async function save(callId: string, stored: Stored, extra: Partial<PhoneCallRow> = {}) {
  await updateCallingCall(callId, { ivrState: JSON.stringify(stored), ...extra });
}

/** The provider fetched the answer address: the person picked up. The first prompt. */
export async function answerCall(callId: string, sig: string | null): Promise<string> {
  checkSignature(callId, "answer", sig);
  const row = await callingRow(callId);
  const plan = await planFor(row);
  const { state, play } = startIvr(plan);
  await save(callId, { state, play }, { answeredAt: row.answeredAt ?? new Date() });
  return twiml(callId, play, state, plan.secret?.length ?? 4);
}

/** The keys she pressed (a Gather's Digits). The next prompt; the same one again on no usable key. */
export async function callKeys(callId: string, sig: string | null, digits: string): Promise<string> {
  checkSignature(callId, "keys", sig);
  const row = await callingRow(callId);
  const plan = await planFor(row);
  const stored = readStored(row);
  let { state, play } = stored ?? startIvr(plan);
  let next: Prompt | null = null;
  for (const key of String(digits ?? "").slice(0, 16)) {
    const r = pressKey(plan, state, key);
    state = r.state;
    if (r.play) next = r.play;
  }
  if (next) play = next;
  await save(callId, { state, play }, state.verified && !row.verifiedAt ? { verifiedAt: new Date() } : {});
  return twiml(callId, play, state, plan.secret?.length ?? 4);
}

function readStored(row: PhoneCallRow): Stored | null {
  if (!row.ivrState) return null;
  try {
    return JSON.parse(row.ivrState) as Stored;
  } catch {
    return null;
  }
}

/**
 * The sound of a prompt, as the provider fetches it. Nothing but the prompt the call is at may be
 * fetched, and the opinion only once the call's digits were right.
 */
export async function providerSound(callId: string, prompt: string, sig: string | null): Promise<Buffer> {
  checkSignature(callId, prompt, sig);
  const row = await callingRow(callId);
  const stored = readStored(row);
  if (!stored || stored.play !== prompt) throw new DomainError("not_found", "errors.notFound");
  // What is told (an opinion, a next step's reminder) only once the digits were right.
  if ((prompt === "content" || prompt === "step") && !(stored.state.verified && row.verifiedAt))
    throw new DomainError("forbidden", "phonecall.badSignature");
  const plan = await planFor(row);
  return promptAudio(plan, prompt as Prompt, { waitForKeys: false });
}

const ENDED: Record<string, Partial<CallEnd>> = {
  completed: {},
  busy: { busy: true },
  "no-answer": {},
  noanswer: {},
  canceled: {},
  failed: { failed: "the provider could not connect the call" },
};

/** The provider's report of the call's end. */
export async function callStatus(
  callId: string,
  sig: string | null,
  status: string,
  durationSeconds: number,
): Promise<void> {
  checkSignature(callId, "status", sig);
  const row = await first(db().select().from(phoneCalls).where(eq(phoneCalls.id, callId)));
  if (!row) throw new DomainError("not_found", "errors.notFound");
  const s = String(status ?? "").toLowerCase();
  if (!(s in ENDED)) return; // ringing, in-progress …: not an end
  const stored = readStored(row);
  const answered = !!row.answeredAt && s === "completed";
  const plan = await planFor(row);
  const settled = await settleCall(callId, plan, {
    answered,
    ...ENDED[s],
    state: answered ? (stored?.state ?? null) : null,
    answeredAt: answered ? row.answeredAt : null,
    durationMs:
      answered && Number.isFinite(durationSeconds) ? Math.max(0, Math.round(durationSeconds * 1000)) : 0,
  });
  if (settled === "failed") await giveUpCall(callId);
}

/** A missed call reported by the provider: recorded, answered later; the provider is told to reject it. */
export async function providerMissedCall(
  sig: string | null,
  from: string,
  ref: string | null,
): Promise<string> {
  checkSignature("missed", "missed", sig);
  if (!from) throw new DomainError("invalid", "phonecall.noNumber");
  await receiveMissedCall(from, { providerRef: ref ? `in:${ref}` : null });
  log("info", "missed call from the provider", { from: maskPhone(from) });
  return `<?xml version="1.0" encoding="UTF-8"?><Response><Reject reason="busy"/></Response>`;
}
