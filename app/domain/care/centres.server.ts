import { asc, eq, sql, type SQL } from "drizzle-orm";
import type { z } from "zod";
import { db, exec, first, rows, transaction } from "~/db/client.server";
import { centres, healthWorkers, reports, users, type CentreRow } from "~/db/schema";
import type { CentreKind } from "~/db/types";
import { centreSchema, centreUpdateSchema } from "~/schemas/centres";
import { newId } from "~/utils/ids.server";
import { auditInsert } from "../platform/audit.server";
import { DomainError, zodFieldErrors } from "../platform/errors";
import type { Paged, PageQuery } from "../platform/paging";
import { overdueReports, PRIORITIES, type ApiReport } from "../consultation/reports.server";
import { turnaroundFigures, type TurnaroundFigures } from "../consultation/turnaround.server";
import type { Actor } from "../accounts/sessions.server";
import { COUNT_KEYS, listCount, listCountsOf } from "../platform/list-counts.server";

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

export type CentreStats = TurnaroundFigures & {
  /** Patient profiles registered at the centre. */
  patients: number;
  /** Reports with an opinion, ever. */
  reviewed: number;
  /** Health workers by state of their account. */
  workers: { approved: number; pending: number; suspended: number };
};

export type ApiCentreWithStats = ApiCentre & { stats: CentreStats };

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

function requireAdmin(actor: Actor) {
  if (actor.accountType !== "Admin") throw new DomainError("forbidden", "centres.adminsOnly");
}

export async function findCentre(centreId: string): Promise<CentreRow | undefined> {
  if (typeof centreId !== "string" || !centreId || centreId.length > 64) return undefined;
  return first(db().select().from(centres).where(eq(centres.id, centreId)));
}

async function requireCentre(centreId: string): Promise<CentreRow> {
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

/**
 * The reports of a centre: those of the patient profiles it registered (each report carries its
 * profile's centre, copied by a trigger; decision 0046).
 */
export function centreReports(centreId: string): SQL {
  return eq(reports.centreId, centreId);
}

async function statsOf(centreId: string, now: number): Promise<CentreStats> {
  // Registered profiles and reviewed reports from the list counters: never a count of the archive.
  const keys = [
    COUNT_KEYS.centreRegistered(centreId),
    ...PRIORITIES.map((p) => COUNT_KEYS.centreReportsOf(centreId, "Reviewed", p)),
  ];
  const [figures, [registered, ...reviewed], workers] = await Promise.all([
    turnaroundFigures(centreId, now),
    listCountsOf(keys),
    db()
      .select({
        approved: sql<number>`sum(case when ${users.approved} and ${users.suspendedAt} is null then 1 else 0 end)`,
        suspended: sql<number>`sum(case when ${users.suspendedAt} is not null then 1 else 0 end)`,
        pending: sql<number>`sum(case when not ${users.approved} and ${users.suspendedAt} is null then 1 else 0 end)`,
      })
      .from(healthWorkers)
      .innerJoin(users, eq(users.id, healthWorkers.userId))
      .where(eq(healthWorkers.centreId, centreId)),
  ]);
  const w = workers[0];
  return {
    ...figures,
    patients: registered,
    reviewed: reviewed.reduce((a, b) => a + b, 0),
    workers: {
      approved: Number(w?.approved ?? 0),
      pending: Number(w?.pending ?? 0),
      suspended: Number(w?.suspended ?? 0),
    },
  };
}

/** Admin: the centres (by state, district, name), each with its figures. */
export async function listCentres(
  actor: Actor,
  { page, pageSize }: PageQuery,
  now = Date.now(),
): Promise<Paged<ApiCentreWithStats>> {
  requireAdmin(actor);
  const total = await listCount(COUNT_KEYS.centresAll);
  const found = await db()
    .select()
    .from(centres)
    .orderBy(asc(centres.state), asc(centres.district), asc(centres.name), asc(centres.id))
    .limit(pageSize)
    .offset((page - 1) * pageSize);
  // Each centre's figures at once: on PostgreSQL their statements overlap on the pool's connections.
  const items: ApiCentreWithStats[] = await Promise.all(
    found.map(async (c) => ({ ...toApiCentre(c), stats: await statsOf(c.id, now) })),
  );
  return { items, total, page, pageSize };
}

/** Admin: one centre. */
export async function getCentre(actor: Actor, centreId: string): Promise<ApiCentre> {
  requireAdmin(actor);
  return toApiCentre(await requireCentre(centreId));
}

/** Admin: one centre with its figures. */
export async function getCentreWithStats(
  actor: Actor,
  centreId: string,
  now = Date.now(),
): Promise<ApiCentreWithStats> {
  const centre = await getCentre(actor, centreId);
  return { ...centre, stats: await statsOf(centreId, now) };
}

/** Admin: one centre's figures (the same definitions as the Turnaround screen's). */
export async function centreStats(actor: Actor, centreId: string, now = Date.now()): Promise<CentreStats> {
  requireAdmin(actor);
  await requireCentre(centreId);
  return statsOf(centreId, now);
}

/** Admin: a centre's overdue reports, urgent first, then oldest (at most 100). */
export async function centreOverdue(actor: Actor, centreId: string, now = Date.now()): Promise<ApiReport[]> {
  requireAdmin(actor);
  await requireCentre(centreId);
  return overdueReports(100, now, centreReports(centreId));
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
  requireAdmin(actor);
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
  requireAdmin(actor);
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
