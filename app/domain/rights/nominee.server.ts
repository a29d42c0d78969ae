import { eq } from "drizzle-orm";
import { db, exec, first, rows, transaction } from "~/db/client.server";
import { nominees } from "~/db/schema";
import type { NomineeInput } from "~/schemas/rights";
import { lockPerson } from "./consent.server";
import { auditInsert } from "../platform/index.server";
import { DomainError } from "../platform/errors";
import type { Actor } from "../platform/index.server";
// ---------------------------------------------------------------------------------------------
// Nominee

export type ApiNominee = { name: string; relationship: string; contact: string; updatedAt: string };

export async function getNominee(actor: Actor): Promise<ApiNominee | null> {
  const row = await first(db().select().from(nominees).where(eq(nominees.userId, actor.id)));
  return row
    ? {
        name: row.name,
        relationship: row.relationship,
        contact: row.contact,
        updatedAt: row.updatedAt.toISOString(),
      }
    : null;
}

/** Names or changes the person's nominee (one per account). */
export async function setNominee(
  actor: Actor,
  input: NomineeInput,
  opts: { ip?: string | null } = {},
): Promise<ApiNominee> {
  const now = new Date();
  const values = {
    name: input.name,
    relationship: input.relationship ?? "",
    contact: input.contact,
    updatedAt: now,
  };
  await transaction(function* (tx) {
    if (!(yield* lockPerson(tx, actor.id)))
      throw new DomainError("not_authenticated", "api.notAuthenticated");
    const [before] = yield* rows(
      tx.select({ id: nominees.userId }).from(nominees).where(eq(nominees.userId, actor.id)),
    );
    yield* exec(
      tx
        .insert(nominees)
        .values({ userId: actor.id, ...values })
        .onConflictDoUpdate({ target: nominees.userId, set: values }),
    );
    yield* exec(
      auditInsert(
        tx,
        actor,
        before ? "account.nominee_change" : "account.nominee_add",
        "user",
        actor.id,
        null,
        opts.ip,
      ),
    );
  });
  return { ...values, updatedAt: now.toISOString() };
}

/** Removes the nominee; not_found when there is none. */
export async function removeNominee(actor: Actor, opts: { ip?: string | null } = {}): Promise<void> {
  const removed = await transaction(function* (tx) {
    const gone = yield* rows(
      tx.delete(nominees).where(eq(nominees.userId, actor.id)).returning({ id: nominees.userId }),
    );
    if (gone.length)
      yield* exec(auditInsert(tx, actor, "account.nominee_remove", "user", actor.id, null, opts.ip));
    return gone.length > 0;
  });
  if (!removed) throw new DomainError("not_found", "rights.noNominee");
}
