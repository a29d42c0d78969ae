import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { and, count, eq, gte, or } from "drizzle-orm";
import { config } from "~/config.server";
import { db, first } from "~/db/client.server";
import { phoneCalls, type PhoneCallRow } from "~/db/schema";
import { log } from "~/lib/log.server";
import { maskPhone } from "~/lib/phone.server";
import { savePhoneCallbackRequest } from "../messaging/index.server";
import {
  audit,
  defineSchedule,
  PermanentJobError,
  startJobs,
  type JobContext,
} from "../platform/index.server";
import { outcomeOf, type IvrState } from "./ivr";
import { planFor, type CallPlan } from "./plan.server";
import {
  abandonedCalls,
  askForCall,
  askForDueCalls,
  CALL_KIND,
  callJobs,
  deferCall,
  nextWindowStart,
  noteCallRef,
  onPlaceCall,
  startPlacing,
  updateCallingCall,
  type CallJob,
} from "./queue.server";
import { source } from "./sources.server";

/**
 * The call sender (decision 0080), the handler of the runner's kind "phone-call" (decision 0113).
 * The owner process of each node runs the kind: each time a call falls due is one job (keyed by
 * the call and that time), held by one process at a time, so no call is placed twice across
 * nodes. It places the call on the configured line and settles it: heard, or retried after
 * VOICE_RETRY_SECONDS on no answer or busy (the call's next job) until VOICE_ATTEMPTS, then failed
 * for the admins to see, and its job dead with the last error on the Service screen. A SIP line
 * places one call at a time; a provider places it and reports the end later (provider.server.ts),
 * on any node.
 */

/** How a call ended, as a line reports it. */
export type CallEnd = {
  answered: boolean;
  busy?: boolean;
  /** The line could not place the call (a network or provider error); retried like no answer. */
  failed?: string;
  /** Its placing was cut off (the process died, or no end was ever reported); retried like no answer. */
  lost?: boolean;
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

/** The line calls go out on (set by the start of the sender; tests set their own). */
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

/** What one run of the kind did ("placed" counts a call placed; see `processCallQueue`). */
type Placing = "placed" | "retry" | "held" | "not-needed" | "ended" | "settled" | "gone";

const ended = (e: Partial<CallEnd>): CallEnd => ({
  answered: false,
  state: null,
  answeredAt: null,
  durationMs: 0,
  ...e,
});

/**
 * One call's job (kind "phone-call", decision 0113): the call placed once, on this process's line.
 * Run again after its runner died mid-call (the lease ran out), it does not ring again: a call she
 * answered ends with what her keys left on the row, one nobody answered counts as lost (retried).
 */
async function placeJob(job: CallJob, ctx: JobContext): Promise<Placing> {
  const row = await first(db().select().from(phoneCalls).where(eq(phoneCalls.id, job.callId)));
  if (!row || row.direction !== "out") return "gone";
  if (job.givenUp) throw new PermanentJobError(givenUpError(row.attempts, row.lastError ?? row.outcome));
  if (row.status === "calling") {
    // Our own earlier attempt died with its process, or an old hold ran out: end it, never ring again.
    if (ctx.attempt === 1 && row.lockedUntil && row.lockedUntil.getTime() > Date.now()) return "settled";
    if ((await endAbandoned(row)) === "failed")
      throw new PermanentJobError(givenUpError(row.attempts, "lost"));
    return "ended";
  }
  if (row.status !== "queued") return "settled";
  const now = new Date();
  if (row.nextAttemptAt.getTime() > now.getTime() + 1000) return "settled"; // its own job is due later
  if ((await placedLastHour(now)) >= config().voice.perHour) {
    log("warn", "call held back: the hour's ceiling is reached", { perHour: config().voice.perHour });
    await deferCall(row.id, new Date(now.getTime() + HELD_MS));
    return "held";
  }
  // An opinion call waits for the person's window (a retry may fall outside it).
  if (row.purpose === "opinion-ready" && row.patientId) {
    const patient = await source("patient")(row.patientId);
    const opens = nextWindowStart(patient?.callWindow ?? null);
    if (opens.getTime() > Date.now() + 1000) {
      await deferCall(row.id, opens);
      return "held";
    }
  }
  // Held long enough for the longest call and a provider's late status report.
  const calling = await startPlacing(row.id, config().voice.maxCallMs + 60_000);
  if (!calling) return "settled";
  const who = { id: row.id, to: maskPhone(row.number), purpose: row.purpose, attempt: calling.attempts };
  const plan = await planFor(calling);
  if (calling.purpose === "step-reminder" && !plan.step) {
    // Its step was closed (or its reminders switched off) since it was asked for: no call.
    await settleCall(calling.id, plan, ended({ failed: "not-needed" }));
    return "not-needed";
  }
  let end: CallEnd;
  try {
    const result = await (line ?? folderLine).place(calling, plan);
    if ("pending" in result) {
      await noteCallRef(calling.id, result.pending);
      log("info", "call placed with the provider", who);
      return "placed";
    }
    end = result;
  } catch (err) {
    log("error", "placing a call failed", { ...who, error: String((err as Error)?.message ?? err) });
    end = ended({ failed: "could not place the call" });
  }
  const status = await settleCall(calling.id, plan, end);
  if (status === "failed")
    throw new PermanentJobError(
      givenUpError(calling.attempts, end.failed ?? (end.busy ? "busy" : "no-answer")),
    );
  return status === "queued" ? "retry" : "placed";
}

/** A hold on the row while the ceiling is reached: looked at again after this. */
const HELD_MS = 60_000;

/** The dead job's last error: the call's last outcome and attempts (never her number). */
function givenUpError(attempts: number, why: string | null) {
  return `call not completed after ${attempts} attempt${attempts === 1 ? "" : "s"}: ${why ?? "not answered"}`;
}

/**
 * Ends a call whose placing was cut off (its process died, or a provider never reported its end):
 * answered (the line wrote when), with the state her keys left; else lost, and retried as usual.
 */
async function endAbandoned(row: PhoneCallRow): Promise<string | null> {
  const plan = await planFor(row);
  let state: IvrState | null = null;
  try {
    state = row.ivrState ? ((JSON.parse(row.ivrState) as { state?: IvrState }).state ?? null) : null;
  } catch {
    state = null;
  }
  const answered = !!row.answeredAt;
  log("warn", "a call's placing was cut off", { id: row.id, to: maskPhone(row.number), answered });
  return settleCall(
    row.id,
    plan,
    ended(answered ? { answered, state, answeredAt: row.answeredAt } : { lost: true }),
  );
}

/**
 * Asks for the jobs of due calls that have none, and ends the calls whose hold ran out (a
 * provider's report that never came). Idempotent: every owner process may do it.
 */
export async function sweepCalls(now = new Date()): Promise<void> {
  await askForDueCalls(now);
  for (const row of await abandonedCalls(now))
    if ((await endAbandoned(row)) === "failed") await giveUpCall(row.id);
}

/** A call that failed for good outside a job (a provider's report): a dead job says so to the admins. */
export async function giveUpCall(callId: string): Promise<void> {
  await callJobs.enqueue({ callId, givenUp: true }, { key: `${callId}:failed` });
}

/**
 * Places every due call, one at a time (the runner's kind; tests drive it with this): how many
 * were placed. Its sweep first, so a call written without its job is placed too.
 */
export async function processCallQueue(stop: () => boolean = () => false): Promise<number> {
  await sweepCalls();
  const round = await callJobs.runDue(stop);
  return (round.outcomes.placed ?? 0) + (round.outcomes.retry ?? 0) + round.dead;
}

/**
 * Writes how a call ended and what follows: a retry, the end of the queue row, the access trail
 * of a heard opinion, the callback she asked for. `plan` is the one the call was placed with.
 */
export async function settleCall(
  callId: string,
  plan: CallPlan,
  end: CallEnd,
): Promise<"queued" | "failed" | "done" | null> {
  const row = await first(db().select().from(phoneCalls).where(eq(phoneCalls.id, callId)));
  if (!row || row.status !== "calling") return null; // settled already (a late or repeated report)
  const c = config().voice;
  // Written to the call outbox (no line), or not needed (a reminder's step closed meanwhile): ended, not failed.
  const written = end.failed === "written" || end.failed === "not-needed";
  const outcome = written
    ? end.failed!
    : end.failed
      ? "failed"
      : end.lost
        ? "lost"
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
  } else values.status = RETRYABLE.has(outcome) ? "failed" : "done";
  if (!(await updateCallingCall(callId, values))) return null;
  if (retry) {
    // The retry is the call's next job, placed when it falls due, not at the next poll.
    await askForCall(callId, values.nextAttemptAt!);
    setTimeout(() => callJobs.kick(), c.retryMs + 20).unref();
  }
  const who = { id: callId, to: maskPhone(row.number), purpose: row.purpose, attempt: row.attempts, outcome };
  log(
    values.status === "failed" ? "error" : "info",
    retry ? "call not answered; will retry" : "call ended",
    who,
  );
  await followUp(row, plan, end, outcome);
  return values.status;
}

/** What a settled call brings: her trail's lines, her keypad answer, the callback she asked for. */
async function followUp(row: PhoneCallRow, plan: CallPlan, end: CallEnd, outcome: string) {
  const callId = row.id;
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
    await source("answerStep")(row.stepId, end.state.stepAnswer, plan.locale);
  if (end.state?.callbackAsked) {
    const patient = await source("patient")(row.patientId);
    await savePhoneCallbackRequest({
      name: patient?.firstName ?? "",
      number: row.number,
      patientId: row.patientId,
    });
  }
}

onPlaceCall(placeJob);

/** How often an owner process's loop polls and the queue is swept (`sweepCalls`); tests shorten it. */
let pollMs = 5_000;

/** The sweep on the runner's clock (decision 0113): one per period for the whole cluster. */
const sweepSchedule = defineSchedule("phone-sweep", {
  run: () => sweepCalls(),
  everyMs: () => Math.max(pollMs, 2_000),
  lookMs: () => Math.max(pollMs, 2_000),
  maxAttempts: 1,
});

/** Starts this process's call sender (the owner process of a node): the kind's loop and the sweep. */
export function startCallSender(): void {
  callJobs.configure({ pollMs });
  startJobs([CALL_KIND]);
  sweepSchedule.start();
}

export async function stopCallSender(): Promise<void> {
  await Promise.all([sweepSchedule.stop(), callJobs.stop()]);
}

/** For tests: a shorter poll (and sweep). */
export function repollCallSender(ms: number) {
  pollMs = ms;
  callJobs.configure({ pollMs: ms });
  sweepSchedule.relook();
}
