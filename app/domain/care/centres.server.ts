import { asc, eq } from "drizzle-orm";
import type { z } from "zod";
import { db, exec, first, rows, transaction } from "~/db/client.server";
import { centres, type CentreRow } from "~/db/schema";
import type { CentreKind } from "~/db/types";
import { centreSchema, centreUpdateSchema } from "~/schemas/centres";
import { newId } from "~/lib/ids.server";
import { auditInsert } from "../platform/index.server";
import { DomainError, zodFieldErrors } from "../platform/errors";
import type { Actor } from "../platform/index.server";

/**
 * Centres (decision 0030): the places health workers register patients and send their reports —
 * a Health & Wellness Centre, a PHC or CHC, a clinic, a Common Service Centre. Admins create and
 * edit them and watch each one's queue: counts, turnaround (the Turnaround screen's own
 * definitions, computed by the same function over the centre's reports), health workers and the
 * overdue list. A centre's reports are those whose patient profile belongs to it.
 */

export type ApiCentre = {
  _id: string;
  name: string;
  kind: CentreKind;
  district: string;
  state: string;
  pinCode: string;
  createdAt: string;
  updatedAt: string;
};

/** What anyone may know of a centre (the signup form's list). */
export type PublicCentre = Pick<ApiCentre, "_id" | "name" | "kind" | "district" | "state">;

export function toApiCentre(c: CentreRow): ApiCentre {
  return {
    _id: c.id,
    name: c.name,
    kind: c.kind,
    district: c.district,
    state: c.state,
    pinCode: c.pinCode,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}

/** Admin only: the centres screens and API (their figures too, in consultation). */
export function requireCentreAdmin(actor: Actor) {
  if (actor.accountType !== "Admin") throw new DomainError("forbidden", "centres.adminsOnly");
}

export async function findCentre(centreId: string): Promise<CentreRow | undefined> {
  if (typeof centreId !== "string" || !centreId || centreId.length > 64) return undefined;
  return first(db().select().from(centres).where(eq(centres.id, centreId)));
}

export async function requireCentre(centreId: string): Promise<CentreRow> {
  const c = await findCentre(centreId);
  if (!c) throw new DomainError("not_found", "centres.notFound");
  return c;
}

/** Every centre's id, name, kind and place, by state, district and name: the signup form's select. */
export async function centreDirectory(): Promise<PublicCentre[]> {
  const found = await db()
    .select({
      id: centres.id,
      name: centres.name,
      kind: centres.kind,
      district: centres.district,
      state: centres.state,
    })
    .from(centres)
    .orderBy(asc(centres.state), asc(centres.district), asc(centres.name), asc(centres.id));
  return found.map(toPublicCentre);
}

/** What anyone may know of a centre: the directory, a patient's slip and page. */
export function toPublicCentre(
  c: Pick<CentreRow, "id" | "name" | "kind" | "district" | "state">,
): PublicCentre {
  return { _id: c.id, name: c.name, kind: c.kind, district: c.district, state: c.state };
}

/** Admin: one centre. */
export async function getCentre(actor: Actor, centreId: string): Promise<ApiCentre> {
  requireCentreAdmin(actor);
  return toApiCentre(await requireCentre(centreId));
}

/** The domain reads its input again with the screens' and the API's schema. */
function parse<S extends z.ZodTypeAny>(schema: S, input: unknown): z.infer<S> {
  const r = schema.safeParse(input);
  if (!r.success)
    throw new DomainError("invalid", "centres.invalid", { fieldErrors: zodFieldErrors(r.error) });
  return r.data;
}

/** Admin: a new centre. */
export async function createCentre(actor: Actor, input: unknown, ip?: string | null): Promise<ApiCentre> {
  requireCentreAdmin(actor);
  const v = parse(centreSchema, input);
  const id = newId();
  const now = new Date();
  await transaction(function* (tx) {
    yield* exec(tx.insert(centres).values({ id, ...v, createdAt: now, updatedAt: now }));
    yield* exec(auditInsert(tx, actor, "centre.create", "centre", id, { name: v.name, kind: v.kind }, ip));
  });
  return toApiCentre((await findCentre(id))!);
}

/** Admin: changes a centre's name, kind or place. */
export async function updateCentre(
  actor: Actor,
  centreId: string,
  input: unknown,
  ip?: string | null,
): Promise<ApiCentre> {
  requireCentreAdmin(actor);
  await requireCentre(centreId);
  const v = parse(centreUpdateSchema, input);
  const set = Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined));
  await transaction(function* (tx) {
    const changed = yield* rows(
      tx
        .update(centres)
        .set({ ...set, updatedAt: new Date() })
        .where(eq(centres.id, centreId))
        .returning({ id: centres.id }),
    );
    if (changed.length)
      yield* exec(
        auditInsert(tx, actor, "centre.update", "centre", centreId, { changed: Object.keys(set) }, ip),
      );
  });
  return toApiCentre(await requireCentre(centreId));
}
