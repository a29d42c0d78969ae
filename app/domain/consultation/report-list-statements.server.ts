import { and, eq, isNull, sql, type SQL } from "drizzle-orm";
import { literal, literalVariants } from "~/db/literal-window";
import { createHash } from "node:crypto";
import { db, opaqueText, prepareQuery, timeParam, type DB } from "~/db/client.server";
import { reports, type ReportRow } from "~/db/schema";
import { REPORT_TYPES } from "~/schemas/reports";
import { COUNT_KEYS, counterColumn } from "../platform/index.server";
import type { CursorShape, CursorValue } from "../platform/index.server";
import { accessTrailColumns } from "../platform/index.server";
import { followUpsColumn } from "./followups.server";
import { SPECIALTIES } from "~/schemas/specialties";
import { secondIdsColumn, type CaseColumns } from "./report-case.server";
import {
  byCreated,
  byQueue,
  byReviewed,
  selectReports,
  selectReportsWith,
  type Joined,
} from "./report-rows.server";

/**
 * The report lists as prepared statements: each list's index-backed `where` and order, its
 * keyset (cursor) comparison, its counter row, and the segments an expert's queue is made of
 * (matching types and specialties first). Plan tuning for PostgreSQL (literal windows) comes from
 * ~/db/literal-window.
 */

/**
 * Each order's keyset: the row-value comparison "after this row" on the order's columns (served
 * by the same index as the order), the cursor's values and how a row gives them. Times travel as
 * epoch milliseconds.
 */
const k = (i: number) => sql.placeholder(`k${i}`);
export const SORTS = {
  created: {
    after: () => sql`(${reports.createdAt}, ${reports.id}) < (${k(0)}, ${k(1)})`,
    shape: ["number", "string"] as CursorShape,
    key: (r: ReportRow): CursorValue[] => [r.createdAt.getTime(), r.id],
    params: (v: CursorValue[]) => ({ k0: timeParam(v[0] as number), k1: v[1] }),
  },
  reviewed: {
    after: () => sql`(${reports.reviewedAt}, ${reports.id}) < (${k(0)}, ${k(1)})`,
    shape: ["number", "string"] as CursorShape,
    key: (r: ReportRow): CursorValue[] => [r.reviewedAt?.getTime() ?? 0, r.id],
    params: (v: CursorValue[]) => ({ k0: timeParam(v[0] as number), k1: v[1] }),
  },
  queue: {
    after: () =>
      sql`(${reports.priority}, ${reports.createdAt}, ${reports.id}) > (${k(0)}, ${k(1)}, ${k(2)})`,
    shape: ["number", "number", "string"] as CursorShape,
    key: (r: ReportRow): CursorValue[] => [r.priority, r.createdAt.getTime(), r.id],
    params: (v: CursorValue[]) => ({ k0: v[0], k1: timeParam(v[1] as number), k2: v[2] }),
  },
};
type SortKind = keyof typeof SORTS;

/**
 * The report lists. Each `where` + `orderBy` is a matching index prefix + its sort columns (see
 * the reports_* indexes in the schema, which end in id), so the page never scans the table or
 * sorts; id breaks ties within one millisecond. `key` is the list's one parameter (patient id,
 * report type, expert id); `total` names the list's counter row (platform/list-counts.server.ts),
 * kept by triggers, so no list counts its rows per request.
 */
const LISTS = {
  // reports_patient_created_idx (patient_id, created_at, id)
  patient: {
    // First opinions only: a second opinion is shown inside its case (decision 0038).
    // The profile's id opaque to PostgreSQL's planner: a profile with many reports is a common value
    // in its statistics, and custom plans for it would be re-planned on every request (0044).
    where: () => and(eq(reports.patientId, opaqueText(sql.placeholder("key"))), isNull(reports.secondOf))!,
    orderBy: byCreated,
    sort: "created" as SortKind,
    total: (key: string) => COUNT_KEYS.reportsOfPatient(key),
    // The case comes whole: each row's follow-ups, its access trail, and its second opinions' ids
    // (so that their rows and trails are asked for side by side, and only when there are any).
    columns: () => ({
      followUpList: followUpsColumn(reports.id),
      secondIds: secondIdsColumn(),
      ...accessTrailColumns(reports.id),
    }),
  },
  // reports_status_created_idx (status, created_at, id): the contract's newest-first pending list
  pending: {
    where: () => eq(reports.status, "Pending"),
    orderBy: byCreated,
    sort: "created" as SortKind,
    total: () => COUNT_KEYS.reportsOfStatus("Pending"),
  },
  // reports_status_type_created_idx (status, report_type, created_at, id)
  // First opinions only: second opinions are queued by the specialty asked for (secondQueue).
  pendingOfType: {
    where: () =>
      and(
        eq(reports.status, "Pending"),
        eq(reports.reportType, sql.placeholder("key")),
        isNull(reports.secondOf),
      )!,
    orderBy: byCreated,
    sort: "created" as SortKind,
    total: (key: string) => COUNT_KEYS.reportsOfStatusType("Pending", key),
  },
  // reports_queue_idx (status, priority, created_at, id)
  queue: {
    where: () => eq(reports.status, "Pending"),
    orderBy: byQueue,
    sort: "queue" as SortKind,
    total: () => COUNT_KEYS.reportsOfStatus("Pending"),
  },
  // reports_queue_type_idx (status, report_type, priority, created_at, id)
  queueOfType: {
    where: () =>
      and(
        eq(reports.status, "Pending"),
        eq(reports.reportType, sql.placeholder("key")),
        isNull(reports.secondOf),
      )!,
    orderBy: byQueue,
    sort: "queue" as SortKind,
    total: (key: string) => COUNT_KEYS.reportsOfStatusType("Pending", key),
  },
  // reports_second_queue_idx (status, second_specialty, priority, created_at, id)
  secondQueue: {
    where: () => and(eq(reports.status, "Pending"), eq(reports.secondSpecialty, sql.placeholder("key")))!,
    orderBy: byQueue,
    sort: "queue" as SortKind,
    total: (key: string) => COUNT_KEYS.secondOfStatusSpecialty("Pending", key),
  },
  // reports_expert_reviewed_idx (expert_id, reviewed_at, id); only reviewed reports have an expert.
  expert: {
    where: () => eq(reports.expertId, sql.placeholder("key")),
    orderBy: byReviewed,
    sort: "reviewed" as SortKind,
    total: (key: string) => COUNT_KEYS.reportsOfExpert(key),
    columns: () => ({ followUpList: followUpsColumn(reports.id) }),
  },
  // reports_followup_expert_idx (followup_expert_id, reviewed_at, id)
  followups: {
    where: () => eq(reports.followupExpertId, sql.placeholder("key")),
    orderBy: byReviewed,
    sort: "reviewed" as SortKind,
    total: (key: string) => COUNT_KEYS.followupsOfExpert(key),
    columns: () => ({ followUpList: followUpsColumn(reports.id) }),
  },
  // reports_status_reviewed_idx (status, reviewed_at, id)
  reviewed: {
    where: () => eq(reports.status, "Reviewed"),
    orderBy: byReviewed,
    sort: "reviewed" as SortKind,
    total: () => COUNT_KEYS.reportsOfStatus("Reviewed"),
    columns: () => ({ followUpList: followUpsColumn(reports.id) }),
  },
};
type ListKind = keyof typeof LISTS;

function prepareList(kind: ListKind) {
  const where = LISTS[kind].where();
  const orderBy = LISTS[kind].orderBy;
  // Each row carries the list's total (its counter row): one statement per page, not two.
  const list = LISTS[kind] as { columns?: () => Record<string, SQL> };
  const withTotal = () =>
    selectReportsWith({ ...list.columns?.(), listTotal: counterColumn(sql.placeholder("countKey")) });
  const afterOf = (limit: number | ReturnType<typeof sql.placeholder>, name: string) =>
    prepareQuery(
      name,
      withTotal()
        .where(and(where, SORTS[LISTS[kind].sort].after()))
        .orderBy(...orderBy)
        .limit(limit),
    );
  const pageOf = (
    limit: number | ReturnType<typeof sql.placeholder>,
    offset: number | ReturnType<typeof sql.placeholder> | undefined,
    name: string,
  ) => {
    const q = withTotal()
      .where(where)
      .orderBy(...orderBy)
      .limit(limit);
    return prepareQuery(name, offset === undefined ? q : q.offset(offset));
  };
  // After a cursor: the same index range from the cursor's row on, no OFFSET.
  const after = afterOf(sql.placeholder("limit"), `reports_${kind}_after`);
  const page = pageOf(sql.placeholder("limit"), sql.placeholder("offset"), `reports_${kind}_page`);
  const variant = literalVariants();
  return {
    after: (limit: number) =>
      variant(`a${limit}`, () => afterOf(literal(limit), `reports_${kind}_after_${limit}`), after),
    page: (limit: number, offset: number) =>
      variant(
        `p${limit}_${offset}`,
        () =>
          pageOf(
            literal(limit),
            offset ? literal(offset) : undefined,
            `reports_${kind}_page_${limit}_${offset}`,
          ),
        page,
      ),
  };
}

/** Statements are built once per database handle (building a query costs more than running it). */
let prepared:
  | {
      handle: DB;
      lists: Map<ListKind, ReturnType<typeof prepareList>>;
      queueOfTypes: Map<string, ReturnType<typeof prepareQueueOfTypes>>;
    }
  | undefined;
function statements() {
  const handle = db();
  if (prepared?.handle !== handle) prepared = { handle, lists: new Map(), queueOfTypes: new Map() };
  return prepared;
}

/** A piece of a list: the counter rows whose sum is its total, and a window of its rows, in order. */
export type Segment = {
  totals: string[];
  sort: SortKind;
  /** `after`: the cursor's sort values; the window then starts after that row (offset 0). */
  rows: (limit: number, offset: number, after?: CursorValue[]) => Promise<Joined[]>;
  /** The same window, each row carrying the segment's total (null when its counter row is missing). */
  rowsWithTotal?: (
    limit: number,
    offset: number,
    after?: CursorValue[],
  ) => Promise<(Joined & CaseColumns & { listTotal: number | null })[]>;
};

export function preparedSegment(kind: ListKind, key: string | null): Segment {
  const st = statements();
  let list = st.lists.get(kind);
  if (!list) st.lists.set(kind, (list = prepareList(kind)));
  const l = list;
  const sort = LISTS[kind].sort;
  const countKey = LISTS[kind].total(key ?? "");
  const rows: NonNullable<Segment["rowsWithTotal"]> = (limit, offset, after) =>
    after
      ? l.after(limit).execute({ key, countKey, limit, ...SORTS[sort].params(after) })
      : l.page(limit, offset).execute({ key, countKey, limit, offset });
  return { totals: [countKey], sort, rows, rowsWithTotal: rows };
}

/**
 * The pending queue (urgent first, then oldest) of the reports whose type is in `types`: one
 * ordered range of reports_queue_type_idx per type, each cut at offset + limit, merged in queue
 * order — however rare the types are among a million pending reports, no more than
 * types × (offset + limit) index entries are read, and the rows are then fetched by id.
 */
function queueOfTypes(types: readonly string[]): Segment {
  if (types.length === 1) return preparedSegment("queueOfType", types[0]);
  return {
    totals: types.map((t) => COUNT_KEYS.reportsOfStatusType("Pending", t)),
    sort: "queue",
    rows: async (limit, offset, after) => {
      if (!types.length) return [];
      const st = queueOfTypesStatement(types, !!after, limit, offset);
      return st.execute(after ? SORTS.queue.params(after) : {});
    },
  };
}

/**
 * The statement of `queueOfTypes` for one set of types, built and prepared once: an expert's
 * specialties give the same set on every visit of their queue, and building this union (and, on
 * SQLite, compiling it) cost more than running it. The sets in use are few; the cache is bounded
 * all the same.
 */
function queueOfTypesStatement(types: readonly string[], after: boolean, limit: number, offset: number) {
  const st = statements();
  // The window is written in as literals (see `literal`): the set of types, the page size and the
  // offset an expert uses are few.
  const key = `${types.join(",")}${after ? ":after" : ""}:${limit}:${offset}`;
  let found = st.queueOfTypes.get(key);
  if (found) return found;
  if (st.queueOfTypes.size >= 200) st.queueOfTypes.clear();
  const from = after ? sql` and ${SORTS.queue.after()}` : sql``;
  const each = literal(offset + limit);
  const parts = types.map(
    (t, i) =>
      sql`select id, priority, created_at from (select ${reports.id} as id, ${reports.priority} as priority, ${reports.createdAt} as created_at from ${reports} where ${reports.status} = ${"Pending"} and ${reports.reportType} = ${t} and ${reports.secondOf} is null${from} order by ${reports.priority}, ${reports.createdAt}, ${reports.id} limit ${each}) as ${sql.raw(`t${i}`)}`,
  );
  const ids = sql`select id from (${sql.join(parts, sql` union all `)}) as merged order by priority, created_at, id limit ${literal(limit)} offset ${literal(offset)}`;
  const name = `reports_queue_types_${createHash("sha256").update(key).digest("hex").slice(0, 16)}`;
  found = prepareQueueOfTypes(name, ids);
  st.queueOfTypes.set(key, found);
  return found;
}

function prepareQueueOfTypes(name: string, ids: SQL) {
  return prepareQuery(
    name,
    selectReports()
      .where(sql`${reports.id} in (${ids})`)
      .orderBy(...byQueue),
  );
}

/**
 * The specialty segments of an expert's queue: the pending reports of the types their specialties
 * read (`inSet`), or of every other type.
 */
export function typesSegment(types: string[], inSet: boolean): Segment {
  const set = inSet
    ? REPORT_TYPES.filter((t) => types.includes(t))
    : REPORT_TYPES.filter((t) => !types.includes(t));
  // Even for every type, one range per type: the whole queue would hold the second opinions too,
  // which have segments of their own (secondsSegment).
  return queueOfTypes(set);
}

/**
 * The pending second opinions asked of the given specialties (`inSet`), or of every other
 * specialty: one ordered range of reports_second_queue_idx per specialty, merged in queue order.
 */
export function secondsSegment(specialties: readonly string[], inSet: boolean): Segment {
  const set = SPECIALTIES.filter((s) => specialties.includes(s) === inSet);
  if (set.length === 1) return preparedSegment("secondQueue", set[0]);
  return {
    totals: set.map((s) => COUNT_KEYS.secondOfStatusSpecialty("Pending", s)),
    sort: "queue",
    rows: async (limit, offset, after) => {
      if (!set.length) return [];
      const from = after
        ? sql` and (${reports.priority}, ${reports.createdAt}, ${reports.id}) > (${after[0]}, ${timeParam(after[1] as number)}, ${after[2]})`
        : sql``;
      const ids = sql`select ${reports.id} from ${reports} where ${reports.status} = ${"Pending"} and ${reports.secondSpecialty} in (${sql.join(
        set.map((x) => sql`${x}`),
        sql`, `,
      )})${from} order by ${reports.priority}, ${reports.createdAt}, ${reports.id} limit ${limit} offset ${offset}`;
      return selectReports()
        .where(sql`${reports.id} in (${ids})`)
        .orderBy(...byQueue);
    },
  };
}
