import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { and, count, eq, gte, or } from "drizzle-orm";
import { config } from "~/config.server";
import { db, first } from "~/db/client.server";
import { phoneCalls, type PhoneCallRow } from "~/db/schema";
import { log } from "~/lib/log.server";
import { maskPhone } from "~/lib/phone.server";
import { findPatient } from "../care/index.server";
import { answerStepByCall } from "../consultation/index.server";
import {
  claimNextCall,
  deferCall,
  nextWindowStart,
  noteCallRef,
  onCallQueued,
  savePhoneCallbackRequest,
  updateCallingCall,
} from "../messaging/index.server";
import { audit, backgroundLoop } from "../platform/index.server";
import { outcomeOf, type IvrState } from "./ivr";
import { planFor, type CallPlan } from "./plan.server";

/**
 * The call sender (decision 0080). The owner process of each node runs it: it claims one due call
 * with one conditional update (so no call is placed twice across nodes), places it on the
 * configured line, and settles it: heard, or retried after VOICE_RETRY_SECONDS on no answer or
 * busy until VOICE_ATTEMPTS, then failed for the admins to see. A SIP line places one call at a
 * time; a provider places it and reports the end later (provider.server.ts), on any node.
 */

/** How a call ended, as a line reports it. */
export type CallEnd = {
  answered: boolean;
  busy?: boolean;
  /** The line could not place the call (a network or provider error); retried like no answer. */
  failed?: string;
  state: IvrState | null;
  answeredAt: Date | null;
  durationMs: number;
};

/** A line that places calls: it ends them itself (SIP, the folder) or later (a provider). */
export type CallLine = {
  place(row: PhoneCallRow, plan: CallPlan): Promise<CallEnd | { pending: string }>;
};

const RETRYABLE = new Set(["no-answer", "busy", "failed", "lost"]);
const HOUR = 3_600_000;

let line: CallLine | null = null;

/** The line calls go out on (set by the start of the sender; tests of a provider set it too). */
export function setCallLine(l: CallLine | null) {
  line = l;
}

/** The folder line (no VOICE_URL): a call is written down, like the SMS outbox, and counts as placed. */
export const folderLine: CallLine = {
  async place(row) {
    const dir = config().voice.outboxDir;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = path.join(dir, `${row.createdAt.toISOString().replace(/[:.]/g, "-")}-${row.id}.json`);
    const body = {
      id: row.id,
      to: row.number,
      purpose: row.purpose,
      locale: row.locale,
      createdAt: row.createdAt,
    };
    writeFileSync(file, JSON.stringify(body, null, 2) + "\n", { mode: 0o600 });
    log("info", "call written to the call outbox", { to: maskPhone(row.number), purpose: row.purpose });
    return { answered: false, state: null, answeredAt: null, durationMs: 0, failed: "written" };
  },
};

/** Calls placed in the last hour, all nodes (the VOICE_PER_HOUR ceiling). */
async function placedLastHour(now: Date): Promise<number> {
  const row = await first(
    db()
      .select({ n: count() })
      .from(phoneCalls)
      .where(
        and(
          eq(phoneCalls.direction, "out"),
          or(eq(phoneCalls.status, "calling"), gte(phoneCalls.endedAt, new Date(now.getTime() - HOUR))),
        ),
      ),
  );
  return row?.n ?? 0;
}

/**
 * Places every due call, one at a time, until none is due or the hour's ceiling is reached. A
 * call claimed again after its hold ran out (the node died, or no status came) counts as lost.
 */
export async function processCallQueue(stop: () => boolean = () => false): Promise<number> {
  let placed = 0;
  while (!stop()) {
    const now = new Date();
    if ((await placedLastHour(now)) >= config().voice.perHour) {
      log("warn", "calls held back: the hour's ceiling is reached", { perHour: config().voice.perHour });
      break;
    }
    // Locked long enough for the longest call and a provider's late status report.
    const row = await claimNextCall(now, config().voice.maxCallMs + 60_000);
    if (!row) break;
    placed++;
    await placeOne(row);
  }
  return placed;
}

async function placeOne(row: PhoneCallRow) {
  const who = { id: row.id, to: maskPhone(row.number), purpose: row.purpose, attempt: row.attempts };
  // An opinion call waits for the person's window (a retry may fall outside it).
  if (row.purpose === "opinion-ready" && row.patientId) {
    const patient = await findPatient(row.patientId);
    const opens = nextWindowStart(patient?.callWindow ?? null);
    if (opens.getTime() > Date.now() + 1000) {
      await deferCall(row.id, opens);
      return;
    }
  }
  const plan = await planFor(row);
  if (row.purpose === "step-reminder" && !plan.step) {
    // Its step was closed (or its reminders switched off) since it was asked for: no call.
    await settleCall(row.id, plan, {
      answered: false,
      failed: "not-needed",
      state: null,
      answeredAt: null,
      durationMs: 0,
    });
    return;
  }
  try {
    const result = await (line ?? folderLine).place(row, plan);
    if ("pending" in result) {
      await noteCallRef(row.id, result.pending);
      log("info", "call placed with the provider", who);
      return;
    }
    await settleCall(row.id, plan, result);
  } catch (err) {
    log("error", "placing a call failed", { ...who, error: String((err as Error)?.message ?? err) });
    await settleCall(row.id, plan, {
      answered: false,
      failed: "could not place the call",
      state: null,
      answeredAt: null,
      durationMs: 0,
    });
  }
}

/**
 * Writes how a call ended and what follows: a retry, the end of the queue row, the access trail
 * of a heard opinion, the callback she asked for. `plan` is the one the call was placed with.
 */
export async function settleCall(callId: string, plan: CallPlan, end: CallEnd): Promise<void> {
  const row = await first(db().select().from(phoneCalls).where(eq(phoneCalls.id, callId)));
  if (!row || row.status !== "calling") return; // settled already (a late or repeated report)
  const c = config().voice;
  // Written to the call outbox (no line), or not needed (a reminder's step closed meanwhile): ended, not failed.
  const written = end.failed === "written" || end.failed === "not-needed";
  const outcome = written
    ? end.failed!
    : end.failed
      ? "failed"
      : end.busy
        ? "busy"
        : outcomeOf(end.state, end.answered, plan.general);
  const now = new Date();
  const retry = RETRYABLE.has(outcome) && row.attempts < c.attempts;
  const values: Partial<PhoneCallRow> = {
    outcome,
    lockedUntil: null,
    answeredAt: end.answeredAt,
    endedAt: now,
    durationMs: end.durationMs,
    lastError: end.failed && !written ? end.failed : row.lastError,
    ivrState: null,
    verifiedAt: end.state?.verified ? (row.verifiedAt ?? now) : null,
  };
  if (retry) {
    values.status = "queued";
    values.nextAttemptAt = new Date(now.getTime() + c.retryMs);
    // The retry is placed when it falls due, not at the next poll.
    setTimeout(() => sender.kick(), c.retryMs + 20).unref();
  } else values.status = RETRYABLE.has(outcome) ? "failed" : "done";
  if (!(await updateCallingCall(callId, values))) return;
  const who = { id: callId, to: maskPhone(row.number), purpose: row.purpose, attempt: row.attempts, outcome };
  log(
    values.status === "failed" ? "error" : "info",
    retry ? "call not answered; will retry" : "call ended",
    who,
  );
  if (!row.patientId) return;
  // Someone answered and keyed a wrong year twice: the person sees it in her trail (a shared phone).
  if (outcome === "not-verified")
    await audit(null, "patient.call_unverified", "patient", row.patientId, {
      callId,
      number: maskPhone(row.number),
    });
  if (end.state?.heard)
    for (const o of plan.opinions)
      await audit(null, "patient.call_heard", "patient", row.patientId, {
        reportId: o.reportId,
        callId,
        number: maskPhone(row.number),
      });
  // Her keypad answer to a next step's reminder, as an SMS reply is written (decision 0115).
  if (end.state?.stepAnswer && row.stepId)
    await answerStepByCall(row.stepId, end.state.stepAnswer, plan.locale);
  if (end.state?.callbackAsked) {
    const patient = await findPatient(row.patientId);
    await savePhoneCallbackRequest({
      name: patient?.firstName ?? "",
      number: row.number,
      patientId: row.patientId,
    });
  }
}

const sender = backgroundLoop("call sender", (stopping) => processCallQueue(stopping));

/** Starts this process's call sender (the owner process of a node): a poll every few seconds plus kicks. */
export function startCallSender(pollMs = 5_000): void {
  onCallQueued(() => sender.kick());
  sender.start(pollMs);
}

export function stopCallSender(): Promise<void> {
  return sender.stop();
}

/** For tests: a shorter poll. */
export function repollCallSender(pollMs: number) {
  sender.repoll(pollMs);
}
