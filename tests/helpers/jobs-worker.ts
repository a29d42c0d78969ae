/**
 * A second process running background jobs beside the test's own (tests/domain/jobs.test.ts,
 * decision 0113). Env: the app's config (DATA_DIR or DATABASE_URL). argv[2]:
 * - "count": prints "ready", waits for a line on stdin (so the processes start together), runs
 *   the kind "test.count" until none is queued or running, then prints the ids it ran as JSON.
 * - "remind": prints "ready", waits for a line, scans for the step reminders due and sends them,
 *   then prints what it asked for and sent as JSON (tests/domain/step-reminders.test.ts).
 * - "slot": defines the schedule "test.slot" (argv[3] "own": one per process), prints "ready", waits
 *   for a line, asks for the slot due at argv[4] (epoch ms) and runs what is due, then prints the
 *   slots it ran as JSON (tests/domain/schedules.test.ts).
 * - "hang": runs the kind "test.crash" (lease 1.5 s), whose handler prints "running <pid>"
 *   and never ends — the test kills that process mid-job.
 */
import { closeDatabase } from "~/db/client.server";
import { defineJobKind, jobFigures } from "~/domain/platform/jobs.server";
import { defineSchedule } from "~/domain/platform/schedules.server";

async function main() {
  const mode = process.argv[2];
  if (mode === "remind") {
    // Step reminders (decision 0114): this process scans and sends beside the test's own.
    const { runStepReminders, scanStepReminders } = await import("~/domain/consultation/index.server");
    await jobFigures();
    process.stdout.write("ready\n");
    await new Promise((r) => process.stdin.once("data", r));
    process.stdin.pause();
    const asked = await scanStepReminders();
    const round = await runStepReminders();
    await closeDatabase();
    process.stdout.write(JSON.stringify({ asked, sent: round.outcomes.sent ?? 0 }) + "\n");
    process.exit(0);
  }
  if (mode === "slot") {
    const ran: number[] = [];
    const schedule = defineSchedule(`test.slot.${process.argv[3]}`, {
      run: async (slot) => {
        ran.push(slot);
        await new Promise((r) => setTimeout(r, 50));
      },
      everyMs: () => 60_000,
      perProcess: process.argv[3] === "own",
    });
    await jobFigures();
    process.stdout.write("ready\n");
    await new Promise((r) => process.stdin.once("data", r));
    process.stdin.pause();
    await schedule.askDue(Number(process.argv[4]));
    await schedule.job.runDue();
    await closeDatabase();
    process.stdout.write(JSON.stringify(ran) + "\n");
    process.exit(0);
  }
  if (mode === "hang") {
    const kind = defineJobKind("test.crash", {
      run: () => {
        process.stdout.write(`running ${process.pid}\n`);
        return new Promise<void>(() => {});
      },
      maxAttempts: 3,
      backoff: [10],
      leaseMs: 1_500,
    });
    await kind.runDue();
    return;
  }
  const ran: string[] = [];
  const kind = defineJobKind<{ n: number }>("test.count", {
    run: async (_p, job) => {
      ran.push(job.id);
      await new Promise((r) => setTimeout(r, 2));
    },
    maxAttempts: 3,
    backoff: [10],
    leaseMs: 10_000,
  });
  await jobFigures(); // the database is open before the start
  process.stdout.write("ready\n");
  await new Promise((r) => process.stdin.once("data", r));
  process.stdin.pause();
  const deadline = Date.now() + 60_000;
  for (;;) {
    await kind.runDue();
    const f = (await jobFigures()).find((x) => x.kind === "test.count");
    if (!f || (f.queued === 0 && f.running === 0) || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  await closeDatabase();
  process.stdout.write(JSON.stringify(ran) + "\n");
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
