import { and, asc, count, eq, getTableColumns, isNotNull, isNull, sql, type SQL } from "drizzle-orm";
import type { z } from "zod";
import { db, exec, first, preparedOnce, rows, transaction } from "~/db/client.server";
import { centres, healthWorkers, reports, users, type CentreRow } from "~/db/schema";
import type { CentreKind } from "~/db/types";
import { centreSchema, centreUpdateSchema } from "~/schemas/centres";
import { newId } from "~/utils/ids.server";
import { auditInsert } from "../platform/audit.server";
import { DomainError, zodFieldErrors } from "../platform/errors";
import type { Paged, PageQuery } from "../platform/paging";
import {
  centreFigures,
  inReviewByCentre,
  notDuePlaceholders,
  notDueValues,
  overdueReports,
  PRIORITIES,
  queueFrom,
  waitingColumns,
  type ApiReport,
  type TurnaroundFigures,
} from "../consultation/index.server";
import type { Actor } from "../platform/index.server";
import { centreKey, COUNT_KEYS, counterColumn, listCount } from "../platform/list-counts.server";

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

/**
 * Every figure of a centre but its 30-day times, as columns of the statement that reads the centre
 * (`centre` its id column): its queue's counts (the Turnaround screen's own), its version, its
 * registered profiles and reviewed reports (counters: never a count of the archive) and its health
 * workers by state of their account. A page of centres is one statement (decision 0047).
 */
function figureColumns() {
  const workers = (c: SQL) =>
    sql<number>`(${db()
      .select({ n: count() })
      .from(healthWorkers)
      .innerJoin(users, eq(users.id, healthWorkers.userId))
      .where(and(eq(healthWorkers.centreId, centres.id), c))})`;
  const counter = (make: (id: string) => string) => counterColumn(centreKey(make, centres.id));
  return {
    ...waitingColumns(centres.id, notDuePlaceholders),
    version: counter(COUNT_KEYS.centreVersion),
    registered: counter(COUNT_KEYS.centreRegistered),
    ...Object.fromEntries(
      PRIORITIES.map((p) => [`reviewed${p}`, counter((id) => COUNT_KEYS.centreReportsOf(id, "Reviewed", p))]),
    ),
    workersApproved: workers(and(sql`${users.approved}`, isNull(users.suspendedAt))!),
    workersPending: workers(and(sql`not ${users.approved}`, isNull(users.suspendedAt))!),
    workersSuspended: workers(isNotNull(users.suspendedAt)),
  };
}

/** The directory's order: by state, district, name. */
const DIRECTORY_ORDER = [asc(centres.state), asc(centres.district), asc(centres.name), asc(centres.id)];

/**
 * A page of centres with their figures and the count of every centre, or one centre with its
 * figures: each one statement, built and prepared once (asked for on every visit of the admin's
 * centres screen and API). Its constants are written in and its moments are opaque, so that
 * PostgreSQL keeps one generic plan instead of planning nine sub-selects on every request (at
 * 1,000,000 reports that planning cost more than running it); the reports in review come beside it
 * (`inReviewByCentre`).
 */
const centresPage = (skip: boolean) =>
  preparedOnce(skip ? "centres_page" : "centres_first_page", (d) => {
    const page = d
      .select({
        centre: getTableColumns(centres),
        figures: figureColumns(),
        total: counterColumn(COUNT_KEYS.centresAll),
      })
      .from(centres)
      .orderBy(...DIRECTORY_ORDER)
      .limit(sql.placeholder("limit"));
    // An unknown OFFSET makes the generic plan look dearer than any custom one: the first page
    // (nearly every visit) has none.
    return skip ? page.offset(sql.placeholder("offset")) : page;
  });
const centreById = () =>
  preparedOnce("centre_with_figures", (d) =>
    d
      .select({ centre: getTableColumns(centres), figures: figureColumns() })
      .from(centres)
      .where(eq(centres.id, sql.placeholder("id"))),
  );

/**
 * A centre read with its figures, completed with its reports in review (`inReview`, by centre) and
 * its turnaround figures (kept by the node while its version holds).
 */
async function withStats(
  now: number,
  { centre, figures: row }: { centre: CentreRow; figures: Record<string, unknown> },
  inReview: Map<string, number>,
): Promise<ApiCentreWithStats> {
  const n = (k: string) => Number(row[k] ?? 0);
  const queue = queueFrom({ ...row, inReview: inReview.get(centre.id) ?? 0 });
  const figures = await centreFigures(centre.id, n("version"), queue, now);
  const stats: CentreStats = {
    ...figures,
    patients: n("registered"),
    reviewed: PRIORITIES.reduce<number>((sum, p) => sum + n(`reviewed${p}`), 0),
    workers: {
      approved: n("workersApproved"),
      pending: n("workersPending"),
      suspended: n("workersSuspended"),
    },
  };
  return { ...toApiCentre(centre), stats };
}

async function centreWithStats(centreId: string, now: number): Promise<ApiCentreWithStats> {
  const [[found], inReview] = await Promise.all([
    centreById().execute({ id: centreId, ...notDueValues(now) }),
    inReviewByCentre(now),
  ]);
  if (!found) throw new DomainError("not_found", "centres.notFound");
  return withStats(now, found, inReview);
}

/** Admin: the centres (by state, district, name), each with its figures. */
export async function listCentres(
  actor: Actor,
  page: PageQuery,
  now = Date.now(),
): Promise<Paged<ApiCentreWithStats>> {
  requireAdmin(actor);
  const [found, inReview] = await Promise.all([
    centresPage(page.page > 1).execute({
      limit: page.pageSize,
      offset: (page.page - 1) * page.pageSize,
      ...notDueValues(now),
    }),
    inReviewByCentre(now),
  ]);
  // The count of every centre came with each row; a page past the end asks for it alone.
  const total = found.length ? Number(found[0].total ?? 0) : await listCount(COUNT_KEYS.centresAll);
  const items = await Promise.all(found.map((row) => withStats(now, row, inReview)));
  return { items, total, page: page.page, pageSize: page.pageSize };
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
  requireAdmin(actor);
  return centreWithStats(centreId, now);
}

/** Admin: one centre's figures (the same definitions as the Turnaround screen's). */
export async function centreStats(actor: Actor, centreId: string, now = Date.now()): Promise<CentreStats> {
  requireAdmin(actor);
  return (await centreWithStats(centreId, now)).stats;
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
