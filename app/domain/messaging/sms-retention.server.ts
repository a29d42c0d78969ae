import { and, inArray, lt } from "drizzle-orm";
import { readdir, readFile, stat, unlink } from "node:fs/promises";
import path from "node:path";
import { config } from "~/config.server";
import { affected, db, exec, type DB, type TxSteps } from "~/db/client.server";
import { smsMessages } from "~/db/schema";
import { log } from "~/lib/log.server";

/**
 * Erasure and retention of outgoing SMS (decision 0022): the queue's rows and the outbox's files
 * (SMS_URL unset) are no archive of a person's numbers and texts. Phone calls (decision 0080) keep
 * numbers too: the call outbox's files go by the same rules here, their rows in the calls context.
 */

/**
 * Inside the erasure's transaction: every message to the person's numbers goes (codes, notices,
 * "will be deleted on …"), whatever its state; a sender holding one finds it gone and writes nothing.
 */
export function* smsErasureSteps(tx: DB, numbers: string[]): TxSteps<void> {
  if (!numbers.length) return;
  yield* exec(tx.delete(smsMessages).where(inArray(smsMessages.to, numbers)));
}

/**
 * Sent and failed messages older than SMS_RETENTION_DAYS are deleted (the rights job): the queue
 * is not an archive of numbers and texts. Queued and sending ones stay until they are settled.
 */
export async function pruneSmsMessages(now = Date.now()): Promise<number> {
  const cutoff = new Date(now - config().smsRetentionMs);
  await pruneOutbox(cutoff.getTime());
  return affected(
    await db()
      .delete(smsMessages)
      // sms_messages_created_idx (created_at, id)
      .where(and(lt(smsMessages.createdAt, cutoff), inArray(smsMessages.status, ["sent", "failed"]))),
  );
}

/** The outbox's message files (SMS_URL unset), as paths; none when there is no outbox. */
async function outboxFiles(): Promise<string[]> {
  const out: string[] = [];
  for (const dir of [config().smsOutboxDir, config().voice.outboxDir]) {
    const names = await readdir(dir).catch(() => [] as string[]);
    out.push(...names.filter((n) => n.endsWith(".json")).map((n) => path.join(dir, n)));
  }
  return out;
}

/**
 * The erasure (decision 0022): the outbox files of messages to any of `numbers` (the person's, as
 * personNumbers gives them) are deleted — the outbox is no archive of a person's numbers and texts.
 */
export async function deleteOutboxFilesTo(numbers: string[]): Promise<number> {
  if (!numbers.length) return 0;
  let n = 0;
  for (const file of await outboxFiles()) {
    try {
      const to = (JSON.parse(await readFile(file, "utf8")) as { to?: unknown }).to;
      if (typeof to === "string" && numbers.includes(to)) {
        await unlink(file);
        n++;
      }
    } catch (err) {
      // Gone already (another node's erasure) or not one of ours: nothing to erase in it.
      if ((err as NodeJS.ErrnoException).code !== "ENOENT" && !(err instanceof SyntaxError))
        log("error", "could not erase an sms outbox file", { file: path.basename(file), error: String(err) });
    }
  }
  return n;
}

/** Outbox files written before `cutoff` (SMS_RETENTION_DAYS, like the rows) are deleted. */
async function pruneOutbox(cutoff: number) {
  for (const file of await outboxFiles()) {
    try {
      if ((await stat(file)).mtimeMs < cutoff) await unlink(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT")
        log("error", "could not prune an sms outbox file", { file: path.basename(file), error: String(err) });
    }
  }
}
