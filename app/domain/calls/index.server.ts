/**
 * Calls: a phone call from the request to the hang-up (decisions 0080, 0118). Below care and
 * consultation: they ask for a call with `queueCall` and hand this context what a call says and
 * whom it is for (`provideCallSources`, sources.server.ts); it owns `phone_calls`.
 *
 * - queue: the calls waiting to be placed, the missed calls, their jobs, erasure and retention.
 * - calls-admin: the admins' list of calls.
 * - sender: the runner's kind "phone-call" (decision 0113): places each due call on the configured
 *   line, settles it (retries as its next job, the trail).
 * - sip-line (baresip over a SIP trunk or GSM gateway), provider (an HTTP voice provider), the
 *   folder line (no VOICE_URL); intake: missed calls; ivr: the keypad menu; prompts: the sounds.
 * - line-status: what the admins' Calls tab says of the line (set up? registered?).
 */
import { config } from "~/config.server";
import { log } from "~/lib/log.server";
import { receiveMissedCall } from "./intake.server";
import { missedCallUrl, ProviderLine } from "./provider.server";
import { folderLine, startCallSender, stopCallSender, setCallLine } from "./sender.server";
import { SipLine } from "./sip-line.server";

export { receiveMissedCall } from "./intake.server";
export { answerCall, callKeys, callStatus, providerMissedCall, providerSound } from "./provider.server";
export { processCallQueue, repollCallSender, setCallLine, sweepCalls, type CallLine } from "./sender.server";
export { phoneLine, type PhoneLine, type PhoneLineNode } from "./line-status.server";
export {
  abandonedCalls,
  askForCall,
  askForDueCalls,
  CALL_KIND,
  callErasureSteps,
  callJobKey,
  callJobs,
  deferCall,
  nextWindowStart,
  pruneCalls,
  queueCall,
  recordIncomingCall,
  refusedCallsToday,
  startPlacing,
  unknownCallsToday,
  updateCallingCall,
  type CallJob,
  type CallPurpose,
  type QueuedCall,
} from "./queue.server";
export { listPhoneCalls, type ApiPhoneCall } from "./calls-admin.server";
export {
  provideCallSources,
  type CallPatient,
  type CallSources,
  type CallStep,
  type PhoneOpinion,
} from "./sources.server";

let sip: SipLine | null = null;

/** The owner process of a node: the line calls go out on, and the sender. */
export async function startCalls(): Promise<void> {
  const v = config().voice;
  if (v.kind === "sip") {
    sip = new SipLine(receiveMissedCall);
    try {
      await sip.start();
    } catch (err) {
      // Calls wait in the queue (and are retried) until the line works; the app serves on.
      log("error", "the SIP line could not start", { error: String((err as Error)?.message ?? err) });
    }
    setCallLine(sip);
  } else if (v.kind === "http") {
    setCallLine(new ProviderLine());
    log("info", "voice provider: give it this address for missed calls", {
      url: missedCallUrl().replace(/sig=.*/, "sig=…"),
    });
  } else setCallLine(folderLine);
  startCallSender();
}

export async function stopCalls(): Promise<void> {
  await stopCallSender();
  await sip?.stop();
  sip = null;
}
