import { db } from "~/db/client.server";
import { smsMessages } from "~/db/schema";
import { newId } from "~/utils/ids.server";

/**
 * Outgoing SMS (issue 13). `queueSms` only adds a row to the persisted queue (table sms_messages);
 * a background sender delivers it through Kannel's sendsms interface (SMS_URL) or, unset, writes
 * it to data/sms-outbox/, retrying failures with backoff. A request never waits for the gateway.
 */
export type SmsPurpose =
  | "signup-code"
  | "login-code"
  | "reset-code"
  | "opinion-ready"
  | "followup-answered"
  | "notice";

export async function queueSms(message: { to: string; text: string; purpose: SmsPurpose }): Promise<void> {
  await db().insert(smsMessages).values({
    id: newId(),
    to: message.to,
    text: message.text,
    purpose: message.purpose,
    status: "queued",
    nextAttemptAt: new Date(),
  });
}
