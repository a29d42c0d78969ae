/**
 * One of several processes sending the same SMS queue (tests/integration/sms.test.ts).
 * Env: the app's config (DATA_DIR or DATABASE_URL, SMS_URL …). Opens the database, prints
 * "ready", waits for a line on stdin (so the processes start together), sends until no message is
 * queued or being sent, then prints one JSON line: how many this process sent, retried, gave up.
 */
import { inArray } from "drizzle-orm";
import { closeDatabase, db } from "~/db/client.server";
import { smsMessages } from "~/db/schema";
import { processSmsQueue, type SmsRound } from "~/domain/messaging/sms.server";

const unsent = () =>
  db()
    .select({ id: smsMessages.id })
    .from(smsMessages)
    .where(inArray(smsMessages.status, ["queued", "sending"]))
    .limit(1);

async function main() {
  await unsent(); // the database is open before the start, so the processes really start together
  process.stdout.write("ready\n");
  await new Promise((r) => process.stdin.once("data", r));
  process.stdin.pause();
  const total: SmsRound = { sent: 0, retrying: 0, failed: 0 };
  const deadline = Date.now() + 60_000;
  for (;;) {
    const round = await processSmsQueue();
    for (const k of Object.keys(total) as (keyof SmsRound)[]) total[k] += round[k];
    const left = await unsent();
    if (!left.length || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  await closeDatabase();
  process.stdout.write(JSON.stringify(total) + "\n");
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
