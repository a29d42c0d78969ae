import { and, eq, inArray } from "drizzle-orm";
import { z } from "zod";
import { db } from "~/db/client.server";
import { labValues } from "~/db/schema";
import { DomainError, zodFieldErrors } from "../platform/errors";
import { CONFIDENT } from "../records/labs";
import { confirmUnchecked } from "../records/index.server";
import type { Actor } from "../platform/index.server";
import { heldReport, toApiLabValue, type ApiLabValue } from "./lab-values.server";

/**
 * The expert's quick path through a clean report (decision 0090): every unchecked value she has
 * seen confirmed in one step. Only values the reader vouches for go in bulk; one read with doubt
 * is confirmed on its own, after a look at the page.
 */

/** Read with doubt: the reader does not vouch for the number (below CONFIDENT), or said nothing. */
export function readWithDoubt(v: { confidence: number | null; page: number | null }): boolean {
  // An expert's own value (no page, no confidence) is hers, not the reader's: no doubt to clear.
  if (v.confidence == null) return v.page != null;
  return v.confidence < CONFIDENT;
}

/** May this value be confirmed with the others in one step: unchecked and read without doubt. */
export function confirmableInBulk(v: { status: string; confidence: number | null; page: number | null }) {
  return v.status === "read" && !readWithDoubt(v);
}

const MAX_IDS = 500;
const confirmAllSchema = z.object({
  valueIds: z
    .array(z.string().min(1).max(100), { errorMap: () => ({ message: "labs.valuesRequired" }) })
    .min(1, "labs.valuesRequired")
    .max(MAX_IDS, "labs.valuesTooMany"),
});
export type ConfirmAllInput = z.input<typeof confirmAllSchema> | Record<string, unknown>;

export type ConfirmAllResult = {
  /** The values this step confirmed. */
  confirmed: ApiLabValue[];
  /** Those left as they were: already checked or removed (also by a step at the same time), or read with doubt. */
  skipped: { _id: string; reason: "checked" | "doubt" }[];
};

/**
 * Confirms, in one step, the values the expert holding the report saw unchecked (`valueIds`: the
 * list she was shown, so a value read since is never confirmed unseen). A value already checked or
 * removed is left as it is; one read with doubt is left for its own check. An id that is not a
 * value of this report refuses the whole step (404), and nothing changes. Each value is confirmed
 * once: of two steps at once, each confirms those the other had not.
 */
export async function confirmValues(
  actor: Actor,
  reportId: string,
  input: ConfirmAllInput,
): Promise<ConfirmAllResult> {
  const report = await heldReport(actor, reportId);
  const parsed = confirmAllSchema.safeParse(input ?? {});
  if (!parsed.success)
    throw new DomainError("invalid", "labs.valuesRequired", { fieldErrors: zodFieldErrors(parsed.error) });
  const ids = [...new Set(parsed.data.valueIds)];
  const rows = await db()
    .select()
    .from(labValues)
    .where(and(eq(labValues.reportId, report.id), inArray(labValues.id, ids)));
  if (rows.length !== ids.length) throw new DomainError("not_found", "labs.valueNotFound");
  const bulk = rows.filter(confirmableInBulk).map((r) => r.id);
  // Still unchecked when the statement runs: a step at the same time confirmed the rest.
  const confirmed = await confirmUnchecked(report.id, bulk, actor.id);
  const done = new Set(confirmed.map((r) => r.id));
  return {
    confirmed: confirmed.map(toApiLabValue),
    skipped: rows
      .filter((r) => !done.has(r.id))
      .map((r) => ({ _id: r.id, reason: r.status === "read" && readWithDoubt(r) ? "doubt" : "checked" })),
  };
}
