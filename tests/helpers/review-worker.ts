/**
 * One of several processes reviewing the same reports at once (tests/unit/reports-domain.test.ts):
 * each is an expert on a connection of its own. Args: the expert's id, the instant to begin (epoch
 * ms, so the processes overlap), then the report ids. Prints one line, RESULT and JSON: per report
 * "ok" or the refusal's code.
 */
import { findUserById } from "~/domain/accounts/users.server";
import type { Actor } from "~/domain/accounts/sessions.server";
import { addReview } from "~/domain/consultation/report-review.server";

const [expertId, startAt, ...ids] = process.argv.slice(2);
const user = (await findUserById(expertId))!;
const actor = { ...user, sessionId: "worker" } as unknown as Actor;
await new Promise((r) => setTimeout(r, Math.max(0, Number(startAt) - Date.now())));
const out: Record<string, string> = {};
for (const id of ids) {
  try {
    await addReview(actor, id, { review: `from ${expertId}` });
    out[id] = "ok";
  } catch (e) {
    out[id] = (e as { code?: string })?.code ?? String(e);
  }
}
console.log(`RESULT ${JSON.stringify(out)}`);
