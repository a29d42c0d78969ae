/**
 * One of several processes hammering the same rate-limit store (tests/unit/ratelimit.test.ts).
 * Env: the app's config (DATA_DIR …), START_AT (epoch ms to begin, so processes overlap),
 * WORKER_IP, TRIES. Prints one JSON line: how many tries each check let through.
 */
import { beginLogin, limit } from "~/domain/platform/ratelimit.server";

const client = { ip: process.env.WORKER_IP ?? "127.0.0.1", userAgent: null };
const tries = Number(process.env.TRIES ?? 40);

async function main() {
  const startAt = Number(process.env.START_AT ?? 0);
  await new Promise((r) => setTimeout(r, Math.max(0, startAt - Date.now())));
  const passed = { verify: 0, login: 0 };
  await Promise.all(
    Array.from({ length: tries }, async () => {
      try {
        // One account+address pair from every process (code checks count per pair, decision 0021).
        await limit("verifyCode", "shared@example.test", { ...client, ip: "198.51.100.8" });
        passed.verify++;
      } catch {
        /* refused */
      }
    }),
  );
  await Promise.all(
    Array.from({ length: tries }, async () => {
      try {
        const attempt = await beginLogin("victim@example.test", { ...client, ip: "198.51.100.9" });
        passed.login++;
        await attempt.failed();
      } catch {
        /* refused */
      }
    }),
  );
  process.stdout.write(JSON.stringify(passed) + "\n");
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
