import {
  and,
  asc,
  count,
  desc,
  eq,
  gt,
  gte,
  isNotNull,
  isNull,
  lt,
  lte,
  ne,
  or,
  sql,
  type SQL,
} from "drizzle-orm";
import { alias, aliasInSql } from "~/db/alias";
import { createHash, randomBytes } from "node:crypto";
import type { Readable } from "node:stream";
import { config } from "~/config.server";
import {
  constantInt,
  constantText,
  db,
  exec,
  first,
  isUniqueViolation,
  inList,
  listParam,
  opaqueText,
  preparedOnce,
  prepareQuery,
  rows,
  textList,
  timeParam,
  transaction,
  type DB,
} from "~/db/client.server";
import { expertProfiles, patients, reports, users, voiceNotes, type ReportRow } from "~/db/schema";
import type { Agreement } from "~/db/types";
import {
  REPORT_TYPES,
  reviewSchema,
  uploadReportFormSchema,
  uploadReportSchema,
  type ReportType,
  type ReviewInput,
  type UploadReportInput,
} from "~/schemas/reports";
import { formSchema } from "~/schemas/strict";
import { COUNT_KEYS, counterColumn, listCountsOf } from "../platform/list-counts.server";
import { decodeCursor, encodeCursor, type CursorShape, type CursorValue } from "../platform/cursor.server";
import type { Paged, PageQuery } from "../platform/paging";
import { newId } from "~/utils/ids.server";
import { log } from "~/utils/log.server";
import {
  audit,
  auditInsert,
  accessTrailColumns,
  accessTrailFromColumns,
  accessTrailsForReports,
  labelLinkOpens,
  type FileView,
  type LinkOpen,
} from "../platform/audit.server";
import { DomainError, zodFieldErrors } from "../platform/errors";
import {
  expertDetailsFor,
  specialtiesOf,
  specialtiesColumn,
  specialtiesFromColumn,
  expertRecipientsFor,
  type Actor,
  reportTypesFor,
  SPECIALTIES,
} from "../accounts/index.server";
import { notify } from "../messaging/notify.server";
import {
  deleteObjects,
  deleteReportFileIfUnused,
  deleteStored,
  openDecrypted,
  type StoredFile,
} from "../records/files.server";
import {
  draftObjects,
  insertStudy,
  inspectStudy,
  loadStudy,
  studyObjects,
  type Study,
  type StudyDraft,
} from "../records/dicom.server";
import { kickPacsSender } from "../records/dicom-pacs.server";
import {
  followUpAllowance,
  followUpsColumn,
  followUpsFor,
  followUpsFromColumn,
  type ApiFollowUp,
} from "./followups.server";
import {
  hidePhonesOfFlagged,
  hidePhonesOfRefusers,
  refusesCallsColumn,
  reviewConsentForUpload,
} from "../rights/index.server";
import { hasConsentFor, patientAccess, requirePatientAccessKind, traceAccess } from "../care/patients.server";
import { notifyOpinionReady } from "../care/notices.server";

/**
 * Reports: upload (with urgency), the patient's own list, the experts' queues (urgent first, then
 * oldest; matching specialties first), claims ("Start review"), structured reviews, the reviewed
 * lists, deletion and the authorised file download. Every rule of the API contract lives here once;
 * screens and /api/v1 routes both call these functions.
 */

export const MASKED_NAME = "******";
export const MASKED_PHONE = "**********";
/** What an expert awaiting approval sees instead of the file's original name. */
export const MASKED_FILE_NAME = "******";

type ApiPerson = { _id: string; firstName: string; lastName: string };

export type ApiReport = {
  _id: string;
  reportType: string;
  description: string | null;
  phoneNumber: string;
  /** The contract's two values: a claimed report is still "Pending" (see claimedBy). */
  status: "Pending" | "Reviewed";
  review: string | null;
  reportUrl: string;
  resourceType: "raw" | "image";
  fileName: string;
  mimeType: string;
  size: number;
  patient: { _id: string; firstName: string; lastName: string; email: string };
  /** The reviewer, with what the opinion letter prints about them. */
  expert:
    | null
    | (ApiPerson & { registrationNumber: string; registrationCouncil: string; specialties: string[] });
  createdAt: string;
  updatedAt: string;
  reviewedAt: string | null;
  // The consultation's fields (decision 0013): new fields only, so old clients ignore them.
  urgent: boolean;
  urgentReason: string | null;
  /** The expert reviewing it now (a live claim), else null. */
  claimedBy: ApiPerson | null;
  claimedAt: string | null;
  findings: string | null;
  recommendations: string | null;
  seeDoctorSoon: boolean;
  /** When the review is due (REVIEW_TARGET_HOURS, urgent REVIEW_TARGET_HOURS_URGENT) and whether that has passed. */
  dueAt: string;
  overdue: boolean;
  /** The signed opinion letter (PDF), once reviewed. */
  opinionUrl: string | null;
  /** The letter's verification code and public /verify address, once reviewed (for those who may fetch the letter). */
  letter: { verifyCode: string; verifyUrl: string } | null;
  /** Only for experts: the report's type is read by one of their specialties. */
  matchesSpecialties?: boolean;
  /** Only for those who may read the thread: the patient, the expert holding it, admins. */
  followUps?: ApiFollowUp[];
  /** Medical images (a DICOM file or a ZIP of one study): given with the upload and by GET …/study. */
  study?: Study;
  /** With followUps: how many more questions the patient may ask, and until when. */
  followUpsLeft?: number;
  followUpsUntil?: string | null;
  // A second opinion (decision 0038): new fields only. On a second opinion, the case's first report,
  // the specialty asked for and why; once given, the second expert's view of the first opinion.
  secondOf: string | null;
  secondSpecialty: string | null;
  secondNote: string | null;
  agreement: Agreement | null;
  agreementReason: string | null;
  /** On a case's first report, for those who see the case: the second opinions asked for it. */
  secondOpinions?: ApiReport[];
  /** On a second opinion, for its expert: the first opinion they are asked about (read-only). */
  firstOpinion?: ApiReport | null;
};

export type PatientReport = ApiReport & {
  fileViews: FileView[];
  /** Openings through the patient's sharing links ("Opened via your link on …"). */
  linkOpens: LinkOpen[];
};

type PersonLite = { id: string; firstName: string; lastName: string; email?: string };

export function reportFileUrl(reportId: string) {
  return `/api/v1/report/${encodeURIComponent(reportId)}/file`;
}

export function opinionUrl(reportId: string) {
  return `/api/v1/report/${encodeURIComponent(reportId)}/opinion.pdf`;
}

/** Where anyone confirms a letter: printed on the PDF, given in the API. */
export function letterVerifyUrl(code: string) {
  return `${config().appUrl}/verify/${code}`;
}

/** When a report's review is due: its upload time plus the target for its priority. */
export function dueAt(row: Pick<ReportRow, "createdAt" | "priority">): Date {
  const c = config();
  return new Date(row.createdAt.getTime() + (row.priority === 0 ? c.reviewTargetUrgentMs : c.reviewTargetMs));
}

export function liveClaim(row: ReportRow, now = Date.now()) {
  return (
    row.status === "Pending" && !!row.claimedBy && !!row.claimExpiresAt && row.claimExpiresAt.getTime() > now
  );
}

/**
 * The contract's Report object. `mask` hides the patient from experts awaiting approval:
 * everything that identifies or describes them (names, e-mail, phone, patient id, the
 * free-text description, the urgency reason and the file's original name) is replaced; type,
 * status and dates stay.
 */
export function toApiReport(
  row: ReportRow,
  patient: PersonLite | null,
  expert: PersonLite | null,
  opts: { mask?: boolean; claimer?: PersonLite | null } = {},
): ApiReport {
  const p = {
    _id: patient?.id ?? row.patientId,
    firstName: patient?.firstName ?? "",
    lastName: patient?.lastName ?? "",
    email: patient?.email ?? "",
  };
  if (opts.mask) {
    p._id = "";
    p.firstName = MASKED_NAME;
    p.lastName = "";
    p.email = "";
  }
  const now = Date.now();
  const claimed = liveClaim(row, now) && opts.claimer?.id;
  const due = dueAt(row);
  return {
    _id: row.id,
    reportType: row.reportType,
    description: opts.mask ? null : row.description,
    phoneNumber: opts.mask ? MASKED_PHONE : row.phoneNumber,
    status: row.status,
    review: row.review,
    reportUrl: reportFileUrl(row.id),
    resourceType: row.mimeType === "application/pdf" ? "raw" : "image",
    fileName: opts.mask ? MASKED_FILE_NAME : row.fileName,
    mimeType: row.mimeType,
    size: row.size,
    patient: p,
    // What the letter prints: the signer as they were at signing (decision 0023); specialties are added later.
    expert: expert
      ? {
          _id: expert.id,
          firstName: row.signerFirstName ?? expert.firstName,
          lastName: row.signerLastName ?? expert.lastName,
          registrationNumber: row.signerRegistrationNumber ?? "",
          registrationCouncil: row.signerRegistrationCouncil ?? "",
          specialties: [],
        }
      : null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    reviewedAt: row.reviewedAt ? row.reviewedAt.toISOString() : null,
    urgent: row.priority === 0,
    urgentReason: opts.mask ? null : row.urgentReason,
    claimedBy: claimed
      ? { _id: opts.claimer!.id, firstName: opts.claimer!.firstName, lastName: opts.claimer!.lastName }
      : null,
    claimedAt: claimed ? row.claimedAt!.toISOString() : null,
    findings: row.findings,
    recommendations: row.recommendations,
    seeDoctorSoon: row.seeDoctorSoon,
    dueAt: due.toISOString(),
    overdue: row.status === "Pending" && due.getTime() < now,
    opinionUrl: row.status === "Reviewed" ? opinionUrl(row.id) : null,
    letter:
      row.status === "Reviewed" && row.letterCode
        ? { verifyCode: row.letterCode, verifyUrl: letterVerifyUrl(row.letterCode) }
        : null,
    secondOf: row.secondOf ?? null,
    secondSpecialty: row.secondSpecialty ?? null,
    secondNote: opts.mask ? null : (row.secondNote ?? null),
    agreement: row.agreement ?? null,
    agreementReason: row.agreementReason ?? null,
  };
}

// ---------------------------------------------------------------------------------------
// Queries

const patientUser = alias(users, "patient");
const expertUser = alias(users, "expert");
const claimerUser = alias(users, "claimer");

function selectReports() {
  return selectReportsWith({});
}

/** The joined report rows with `extra` columns beside them (e.g. the list's total). */
function selectReportsWith<E extends Record<string, SQL>>(extra: E) {
  return db()
    .select({
      ...extra,
      // Whether the patient refuses calls (the contact gate), so no list asks for it separately.
      refusesCalls: refusesCallsColumn(patients.id),
      // The reviewer's specialties (ordered by fromJoined), so that no list asks for them apart.
      reviewerSpecialties: specialtiesColumn(reports.expertId),
      report: reports,
      // The report's person is its patient profile (decision 0030); the e-mail is their own account's.
      patient: {
        id: patients.id,
        firstName: patients.firstName,
        lastName: patients.lastName,
        email: sql<string>`coalesce(${patientUser.email}, '')`,
      },
      expert: { id: expertUser.id, firstName: expertUser.firstName, lastName: expertUser.lastName },
      claimer: { id: claimerUser.id, firstName: claimerUser.firstName, lastName: claimerUser.lastName },
    })
    .from(reports)
    .innerJoin(patients, eq(patients.id, reports.patientId))
    .leftJoin(patientUser, eq(patientUser.id, patients.accountId))
    .leftJoin(expertUser, eq(expertUser.id, reports.expertId))
    .leftJoin(claimerUser, eq(claimerUser.id, reports.claimedBy));
}

type Joined = Awaited<ReturnType<typeof selectReports>>[number];

const byCreated = [desc(reports.createdAt), desc(reports.id)];
const byReviewed = [desc(reports.reviewedAt), desc(reports.id)];
/** The review queue: urgent first (priority 0), then oldest. */
const byQueue = [asc(reports.priority), asc(reports.createdAt), asc(reports.id)];

/**
 * Each order's keyset: the row-value comparison "after this row" on the order's columns (served
 * by the same index as the order), the cursor's values and how a row gives them. Times travel as
 * epoch milliseconds.
 */
const k = (i: number) => sql.placeholder(`k${i}`);
const SORTS = {
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

/**
 * A page size or offset written into the statement as a literal. PostgreSQL plans a prepared
 * statement for unknown LIMIT/OFFSET parameters as if a tenth of the matching rows were wanted,
 * finds that plan dearer than the custom ones and so re-plans on every execution — planning cost
 * more than running (1.3 of 1.9 ms for the pending page at 100,000 reports). With both known, the
 * generic plan is the index walk of the custom ones and is kept after five executions (decision 0042).
 */
const literal = (n: number) => sql.raw(String(Math.trunc(n))) as unknown as number;
/** At most this many (limit, offset) statements per list; further ones take parameters. */
const LITERAL_VARIANTS = 48;

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
  const variants = new Map<string, typeof after | typeof page>();
  const variant = <T>(key: string, make: () => T, fallback: T): T => {
    const found = variants.get(key) as T | undefined;
    if (found) return found;
    if (variants.size >= LITERAL_VARIANTS) return fallback;
    const made = make();
    variants.set(key, made as typeof after);
    return made;
  };
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
type Segment = {
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

function preparedSegment(kind: ListKind, key: string | null): Segment {
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
function typesSegment(types: string[], inSet: boolean): Segment {
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
function secondsSegment(specialties: readonly string[], inSet: boolean): Segment {
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

/**
 * One page across consecutive segments (e.g. matching reports, then the others), by page number
 * or after a cursor ([segment, ...sort values of the last row]), and the cursor of its last row.
 */
async function pageOfSegments(segments: Segment[], query: PageQuery) {
  if (segments.length === 1 && segments[0].rowsWithTotal) return pageOfOne(segments[0], query);
  const { page, pageSize, cursor } = query;
  const keys = segments.flatMap((s) => s.totals);
  const values = await listCountsOf(keys);
  const byKey = new Map(keys.map((key, i) => [key, values[i]]));
  const totals = segments.map((s) => s.totals.reduce((sum, key) => sum + (byKey.get(key) ?? 0), 0));
  const total = totals.reduce((a, b) => a + b, 0);
  const sort = SORTS[segments[0]?.sort ?? "created"];
  const found: (Joined & CaseColumns)[] = [];
  let lastSegment = 0;
  let need = pageSize;
  if (cursor) {
    const [segment, ...after] = decodeCursor(cursor, ["number", ...sort.shape]);
    if ((segment as number) < 0 || (segment as number) >= segments.length)
      throw new DomainError("invalid", "api.badCursor", { fieldErrors: { cursor: ["api.badCursor"] } });
    for (let i = segment as number; i < segments.length && need > 0; i++) {
      const got = await segments[i].rows(need, 0, i === segment ? after : undefined);
      if (got.length) lastSegment = i;
      found.push(...got);
      need -= got.length;
    }
  } else {
    let offset = (page - 1) * pageSize;
    for (let i = 0; i < segments.length && need > 0; i++) {
      if (offset >= totals[i]) {
        offset -= totals[i];
        continue;
      }
      const got = await segments[i].rows(need, offset);
      if (got.length) lastSegment = i;
      found.push(...got);
      need -= got.length;
      offset = 0;
    }
  }
  const last = found.at(-1);
  const more = found.length === pageSize && (cursor ? true : (page - 1) * pageSize + found.length < total);
  const nextCursor = last && more ? encodeCursor([lastSegment, ...sort.key(last.report)]) : null;
  return { found, total, page, pageSize, nextCursor };
}

/**
 * One segment's page in one statement: the rows bring the total along. A window past the end (or
 * an empty list) has no row to carry it, and only then is the counter read on its own.
 */
async function pageOfOne(segment: Segment, { page, pageSize, cursor }: PageQuery) {
  const sort = SORTS[segment.sort];
  let got: (Joined & { listTotal: number | null })[];
  if (cursor) {
    const [index, ...after] = decodeCursor(cursor, ["number", ...sort.shape]);
    if (index !== 0)
      throw new DomainError("invalid", "api.badCursor", { fieldErrors: { cursor: ["api.badCursor"] } });
    got = await segment.rowsWithTotal!(pageSize, 0, after);
  } else {
    got = await segment.rowsWithTotal!(pageSize, (page - 1) * pageSize);
  }
  const total = got.length ? Number(got[0].listTotal ?? 0) : (await listCountsOf(segment.totals))[0];
  const found: (Joined & CaseColumns)[] = got;
  const last = found.at(-1);
  const more = found.length === pageSize && (cursor ? true : (page - 1) * pageSize + found.length < total);
  const nextCursor = last && more ? encodeCursor([0, ...sort.key(last.report)]) : null;
  return { found, total, page, pageSize, nextCursor };
}

/** What a list's row may bring about its case (LISTS' `columns`). */
type CaseColumns = {
  followUpList?: string | null;
  secondIds?: string | null;
  fileViewList?: string | null;
  linkOpenList?: string | null;
};

/** A reviewed report's thread, with how many more questions the patient may ask and until when. */
function setFollowUps(r: ApiReport, thread: ApiFollowUp[]) {
  r.followUps = thread;
  const allowance = followUpAllowance(
    { status: r.status, reviewedAt: r.reviewedAt ? new Date(r.reviewedAt) : null },
    thread.length,
  );
  r.followUpsLeft = allowance.left;
  r.followUpsUntil = allowance.until;
}

/**
 * The threads the rows brought (followUpsColumn) on their reviewed items — `items[i]` is made
 * from `found[i]` — for a viewer who may read them (see canSeeFollowUps); `only` narrows further.
 */
function withFollowUpsOf<T extends ApiReport>(
  items: T[],
  found: CaseColumns[],
  only?: (r: T, i: number) => boolean,
) {
  items.forEach((r, i) => {
    if (r.status === "Reviewed" && (!only || only(r, i)))
      setFollowUps(r, followUpsFromColumn(found[i].followUpList));
  });
  return items;
}

/** The follow-up threads, asked for on their own, for a viewer who may read them all. */
async function withFollowUps<T extends ApiReport>(items: T[]): Promise<T[]> {
  const reviewed = items.filter((r) => r.status === "Reviewed");
  if (!reviewed.length) return items;
  const threads = await followUpsFor(reviewed.map((r) => r._id));
  for (const r of reviewed) setFollowUps(r, threads.get(r._id) ?? []);
  return items;
}

const secondReport = aliasInSql(reports, "second_report");

/** The ids of a report's second opinions (reports_second_of_idx), as one column: comma-separated hex ids. */
function secondIdsColumn() {
  return textList(
    secondReport.as.id,
    sql`from ${secondReport.from} where ${secondReport.as.secondOf} = ${reports.id}`,
    ",",
  );
}

function secondIdsOf(row: CaseColumns): string[] {
  return row.secondIds ? row.secondIds.split(",") : [];
}

/**
 * The second opinions of these case's first reports, oldest request first, with their reviewers'
 * details and follow-ups — for viewers who see the whole case (the patient and those acting for
 * them, admins, the letter). `asked`: the first reports known to have any (the others are not
 * asked about; none, no statement).
 */
export async function withSecondOpinions<T extends ApiReport>(items: T[], asked?: Set<string>): Promise<T[]> {
  const roots = items.filter((r) => !r.secondOf && (!asked || asked.has(r._id)));
  for (const r of items) if (!r.secondOf) r.secondOpinions = [];
  if (!roots.length) return items;
  // reports_second_of_idx; a case has a few, put in request order here rather than by a sort in SQL.
  const ids = roots.map((r) => r._id);
  const query = preparedOnce("second_opinions_of_reports", () =>
    selectReportsWith({ followUpList: followUpsColumn(reports.id) }).where(inList(reports.secondOf, "ids")),
  );
  const found = (await query.execute({ ids: listParam(ids) })).sort(
    (a, b) =>
      a.report.createdAt.getTime() - b.report.createdAt.getTime() || (a.report.id < b.report.id ? -1 : 1),
  );
  const seconds = withFollowUpsOf(
    found.map((r) => fromJoined(r)),
    found,
  );
  for (const r of roots) r.secondOpinions = seconds.filter((x) => x.secondOf === r._id);
  return items;
}

/** The contact gate on a page of joined rows: they carry the patient's refusal already. */
function hidePhonesOfJoined<T extends { patient: { _id: string }; phoneNumber: string }>(
  viewer: Actor,
  items: T[],
  found: Joined[],
): T[] {
  const refusing = new Set(found.filter((r) => Number(r.refusesCalls) === 1).map((r) => r.patient.id));
  return hidePhonesOfFlagged(viewer, items, (r) => refusing.has(r.patient._id));
}

export function fromJoined(r: Joined, mask = false) {
  const item = toApiReport(r.report, r.patient, r.expert, { mask, claimer: r.claimer });
  if (item.expert) item.expert.specialties = specialtiesFromColumn(r.reviewerSpecialties);
  return item;
}

export async function findJoined(reportId: string): Promise<Joined | undefined> {
  if (typeof reportId !== "string" || !reportId || reportId.length > 100) return undefined;
  return first(selectReports().where(eq(reports.id, reportId)));
}

export async function findRow(reportId: string): Promise<ReportRow | undefined> {
  if (typeof reportId !== "string" || !reportId || reportId.length > 100) return undefined;
  return first(db().select().from(reports).where(eq(reports.id, reportId)));
}

/** Whether a report is for an expert of these specialties: a second opinion by the specialty asked for, else by its type. */
export function matches(
  report: Pick<ApiReport, "reportType" | "secondSpecialty">,
  specialties: readonly string[],
) {
  if (report.secondSpecialty) return specialties.includes(report.secondSpecialty);
  return reportTypesFor(specialties).includes(report.reportType as ReportType);
}

/** Experts whose account is not approved yet see patients masked. */
function masksFor(actor: Actor) {
  return actor.accountType === "Expert" && !actor.approved;
}

function requireApprovedExpert(actor: Actor) {
  if (actor.accountType !== "Expert") throw new DomainError("forbidden", "reports.onlyExperts");
  if (!actor.approved) throw new DomainError("forbidden", "reports.awaitApproval");
}

// ---------------------------------------------------------------------------------------
// Upload

/**
 * Patients (for themselves or a family member they manage) and approved health workers (for their
 * centre's patients) upload. Routes call this before reading the body, createReport again.
 */
export function assertCanUpload(actor: Actor | null): asserts actor is Actor {
  if (!actor) throw new DomainError("not_authenticated", "errors.loginFirstUpload");
  if (actor.accountType === "HealthWorker" && !actor.approved)
    throw new DomainError("forbidden", "care.awaitApproval");
  if (actor.accountType !== "Patient" && actor.accountType !== "HealthWorker")
    throw new DomainError("forbidden", "reports.patientsOnly");
}

/**
 * Whose report an upload files: the profile named (`patientId`) if the uploader may act for it,
 * else the uploader's own profile. A health worker must name one of their centre's patients. A
 * profile someone else acts for needs the consent given for it (facilitated or a guardian's).
 */
export async function uploadTarget(actor: Actor, patientId: unknown) {
  const id =
    typeof patientId === "string" && patientId ? patientId : actor.accountType === "Patient" ? actor.id : "";
  if (!id) {
    throw new DomainError("invalid", "reports.uploadFailed", {
      fieldErrors: { patientId: ["care.choosePatient"] },
    });
  }
  const access = await patientAccess(actor, id);
  if (!access || access.kind === "admin") {
    throw new DomainError("invalid", "reports.uploadFailed", {
      fieldErrors: { patientId: ["care.notYourPatient"] },
    });
  }
  if (access.kind !== "self" && !(await hasConsentFor(id))) {
    throw new DomainError("invalid", "reports.uploadFailed", {
      fieldErrors: { patientId: ["care.consentMissing"] },
    });
  }
  return access;
}

/** "+CC" + digits when a country code is given and the number carries none; else as typed. */
export function composePhoneNumber(phoneNumber: string, countryCode?: string | null): string {
  const cleaned = phoneNumber.replace(/[\s\-().]/g, "");
  if (cleaned.startsWith("+") || !countryCode) return cleaned;
  return `${countryCode}${cleaned}`;
}

/**
 * A patient files a report for an already stored (encrypted) file. Validates the fields
 * with the upload schema (`form: true` adds the screen's required country code and
 * consent); a missing file is the field error "reports.fileRequired". On any failure the
 * stored file is deleted, so there is never a file without a row. On success the experts
 * whose specialties read this type (all approved experts when none does) are told by mail,
 * one message each (no medical content), and the new report is returned.
 */
export async function createReport(
  actor: Actor,
  input: UploadReportInput | Record<string, unknown>,
  file: StoredFile | null | undefined,
  opts: { form?: boolean; ip?: string | null; consentGivenAt?: Date; patientId?: string | null } = {},
): Promise<ApiReport> {
  let row: ReportRow;
  let access: Awaited<ReturnType<typeof uploadTarget>>;
  let study: StudyDraft | null = null;
  try {
    assertCanUpload(actor);
    access = await uploadTarget(actor, opts.patientId ?? (input as Record<string, unknown>)?.patientId);
    // The fields are text (multipart or upload metadata): read as a form reads them.
    const parsed = formSchema(opts.form ? uploadReportFormSchema : uploadReportSchema).safeParse(input);
    const errors = parsed.success ? {} : zodFieldErrors(parsed.error);
    if (!file) errors.report = ["reports.fileRequired"];
    if (!parsed.success || !file) {
      throw new DomainError("invalid", "reports.uploadFailed", { fieldErrors: errors });
    }
    const data = parsed.data;
    // Medical images are read and checked (a ZIP entry by entry) before the report exists.
    study = await inspectStudy(file);
    const now = new Date();
    row = {
      id: newId(),
      patientId: access.patient.id,
      centreId: access.patient.centreId ?? null,
      reportType: data.reportType,
      description: data.description ? data.description : null,
      phoneNumber: composePhoneNumber(data.phoneNumber, data.countryCode),
      fileKey: file.key,
      fileName: file.fileName,
      mimeType: file.mimeType,
      size: file.size,
      consentAt: now,
      status: "Pending",
      review: null,
      expertId: null,
      reviewedAt: null,
      priority: data.urgent ? 0 : 1,
      urgentReason: data.urgent ? data.urgentReason || null : null,
      claimedBy: null,
      claimedAt: null,
      claimExpiresAt: null,
      findings: null,
      recommendations: null,
      seeDoctorSoon: false,
      letterCode: null,
      claimRenewals: 0,
      signerFirstName: null,
      signerLastName: null,
      signerRegistrationNumber: null,
      signerRegistrationCouncil: null,
      followupExpertId: null,
      overdueNotifiedAt: null,
      secondOf: null,
      secondSpecialty: null,
      secondNote: null,
      secondRequestedBy: null,
      agreement: null,
      agreementReason: null,
      createdAt: now,
      updatedAt: now,
    };
    const inserted = row;
    const consentGiven = data.consent !== undefined;
    await transaction(function* (tx) {
      // Review consent is recorded with the upload, or refused once withdrawn; for someone else's
      // profile the consent given for them at registration stands (uploadTarget checked it).
      if (access.kind === "self") yield* reviewConsentForUpload(tx, actor, consentGiven, opts.consentGivenAt);
      yield* exec(tx.insert(reports).values(inserted));
      if (study) yield* insertStudy(tx, inserted.id, study);
      yield* exec(
        auditInsert(
          tx,
          actor,
          "report.upload",
          "report",
          inserted.id,
          {
            mimeType: inserted.mimeType,
            size: inserted.size,
            urgent: inserted.priority === 0,
            ...(access.kind === "self" ? {} : { for: inserted.patientId, by: access.kind }),
          },
          opts.ip,
        ),
      );
    });
  } catch (err) {
    if (file) {
      await deleteStored(file.key).catch((e) =>
        log("error", "could not remove file of failed upload", { key: file.key, error: String(e) }),
      );
    }
    await deleteObjects(draftObjects(study));
    throw err;
  }
  if (study) kickPacsSender();
  for (const expert of await expertRecipientsFor(row.reportType)) {
    notify(expert, {
      subject: row.priority === 0 ? "mail.newUrgentReportSubject" : "mail.newReportSubject",
      body: "mail.newReportBody",
      action: "mail.newReportAction",
      path: "/dashboard/pending-report",
    });
  }
  await traceAccess(actor, access, "patient.report_upload", { reportId: row.id }, opts.ip);
  const p = access.patient;
  const made = toApiReport(
    row,
    {
      id: p.id,
      firstName: p.firstName,
      lastName: p.lastName,
      email: actor.id === p.accountId ? actor.email : "",
    },
    null,
  );
  // The uploader is shown at once what the images carry about the person.
  if (study) made.study = (await loadStudy(row.id)) ?? undefined;
  return made;
}

// ---------------------------------------------------------------------------------------
// Lists

/** That patient or an Admin: the patient's reports, newest first, with who opened each file and the follow-ups. */
export async function listPatientReports(
  actor: Actor,
  patientId: string,
  page: PageQuery,
): Promise<Paged<PatientReport>> {
  // The page is asked for beside the access check (both keyed by the profile id) and thrown away
  // unless access is granted: a refusal wins over anything the page would have said.
  const [access, paged] = await Promise.allSettled([
    requirePatientAccessKind(actor, patientId),
    pageOfSegments([preparedSegment("patient", patientId)], page),
  ]);
  if (access.status === "rejected") throw access.reason;
  if (paged.status === "rejected") throw paged.reason;
  const { found, total, nextCursor } = paged.value;
  const listed = withFollowUpsOf(
    found.map((r) => fromJoined(r)),
    found,
  );
  // Each case's trail came with its row. A case's file is opened through its second opinions too
  // (their experts): their ids came with the rows, so their rows and trails are asked for side by
  // side, and only for the cases that have any.
  const trails = found.map(accessTrailFromColumns);
  const secondIds = found.flatMap(secondIdsOf);
  const asked = new Set(listed.filter((_, i) => found[i].secondIds).map((r) => r._id));
  const [seconds] = await Promise.all([
    secondIds.length ? accessTrailsForReports(secondIds, []) : undefined,
    withSecondOpinions(listed, asked),
    labelLinkOpens(trails.map((t) => t.opens)),
    traceAccess(actor, access.value, "patient.reports_open"),
  ]);
  const items = hidePhonesOfJoined(actor, listed, found);
  const viewsOf = (i: number) =>
    [...trails[i].views, ...secondIdsOf(found[i]).flatMap((id) => seconds?.views.get(id) ?? [])].sort(
      (a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0),
    );
  return {
    items: items.map((r, i) => ({ ...r, fileViews: viewsOf(i), linkOpens: trails[i].opens })),
    total,
    page: page.page,
    pageSize: page.pageSize,
    nextCursor,
  };
}

export type PendingOptions = {
  reportType?: ReportType | null;
  /** "newest" (the contract's default order) or "queue" (urgent first, then oldest). */
  sort?: "newest" | "queue";
  /** For experts: reports their specialties read "first" (then the rest), "only" those, or "all" alike. */
  match?: "all" | "first" | "only";
};

/**
 * Experts and Admins: reports waiting for a review — newest first (the contract), or as a queue
 * (urgent first, then oldest); experts may put the reports their specialties read first, or see
 * only those. A report someone is reviewing is in the list with `claimedBy` set.
 */
export async function listPendingReports(
  actor: Actor,
  page: PageQuery,
  opts: PendingOptions | ReportType | null = {},
): Promise<Paged<ApiReport>> {
  if (actor.accountType !== "Expert" && actor.accountType !== "Admin") {
    throw new DomainError("forbidden", "reports.expertsOrAdmins");
  }
  const o: PendingOptions = typeof opts === "string" || opts === null ? { reportType: opts } : opts;
  const queue = o.sort === "queue";
  const mySpecialties =
    actor.accountType === "Expert" ? (actor.specialties ?? (await specialtiesOf(actor.id))) : [];
  const mine = reportTypesFor(mySpecialties);
  let segments: Segment[];
  if (o.reportType) {
    segments = [preparedSegment(queue ? "queueOfType" : "pendingOfType", o.reportType)];
    if (o.match === "only" && actor.accountType === "Expert" && !mine.includes(o.reportType)) segments = [];
  } else if (actor.accountType === "Expert" && (o.match === "first" || o.match === "only")) {
    // Second opinions asked of the expert's specialties come first; those asked of others last.
    segments =
      o.match === "only"
        ? [secondsSegment(mySpecialties, true), typesSegment(mine, true)]
        : [
            secondsSegment(mySpecialties, true),
            typesSegment(mine, true),
            typesSegment(mine, false),
            secondsSegment(mySpecialties, false),
          ];
  } else {
    segments = [preparedSegment(queue ? "queue" : "pending", null)];
  }
  if (!segments.length)
    return { items: [], total: 0, page: page.page, pageSize: page.pageSize, nextCursor: null };
  const { found, total, nextCursor } = await pageOfSegments(segments, page);
  const mask = masksFor(actor);
  const items = found.map((r) => {
    const item = fromJoined(r, mask);
    if (actor.accountType === "Expert") item.matchesSpecialties = matches(item, mySpecialties);
    return item;
  });
  return {
    items: hidePhonesOfJoined(actor, items, found),
    total,
    page: page.page,
    pageSize: page.pageSize,
    nextCursor,
  };
}

/** Expert: the reports they reviewed, with their follow-ups; Admin: every reviewed report. Newest review first. */
export async function listReviewedByExpert(actor: Actor, page: PageQuery): Promise<Paged<ApiReport>> {
  if (actor.accountType === "Admin") return listAllReviewed(actor, page);
  if (actor.accountType !== "Expert") throw new DomainError("forbidden", "reports.expertsOrAdmins");
  const { found, total, nextCursor } = await pageOfSegments([preparedSegment("expert", actor.id)], page);
  // Follow-ups reach the expert who holds them (the reviewer, unless an admin reassigned them).
  const items = withFollowUpsOf(
    found.map((r) => fromJoined(r, masksFor(actor))),
    found,
    (_, i) => found[i].report.followupExpertId === actor.id,
  );
  return {
    items: hidePhonesOfJoined(actor, items, found),
    total,
    page: page.page,
    pageSize: page.pageSize,
    nextCursor,
  };
}

/** Admin: every reviewed report with patient and expert names and follow-ups, newest review first. */
export async function listAllReviewed(actor: Actor, page: PageQuery): Promise<Paged<ApiReport>> {
  if (actor.accountType !== "Admin") throw new DomainError("forbidden", "reports.adminsOnly");
  const { found, total, nextCursor } = await pageOfSegments([preparedSegment("reviewed", null)], page);
  const items = withFollowUpsOf(
    found.map((r) => fromJoined(r)),
    found,
  );
  return {
    items: hidePhonesOfJoined(actor, items, found),
    total,
    page: page.page,
    pageSize: page.pageSize,
    nextCursor,
  };
}

/** Expert: the reviewed reports whose follow-up questions they hold (their own, or reassigned to them). */
export async function listFollowUpThreads(actor: Actor, page: PageQuery): Promise<Paged<ApiReport>> {
  requireApprovedExpert(actor);
  const { found, total, nextCursor } = await pageOfSegments([preparedSegment("followups", actor.id)], page);
  const items = withFollowUpsOf(
    found.map((r) => fromJoined(r)),
    found,
  );
  return {
    items: hidePhonesOfJoined(actor, items, found),
    total,
    page: page.page,
    pageSize: page.pageSize,
    nextCursor,
  };
}

// ---------------------------------------------------------------------------------------
// Claims and reviews

/*
 * A claim's columns (decision 0023): `claimed_by` is the expert who last held the claim
 * and `claim_expires_at` when it ends; the claim is live while that time is ahead. A release ends
 * it at once (the time becomes "now") and keeps who held it, so the same expert's cool-down can be
 * told from the row; a review or a withdrawn approval clears it. Every condition below is written
 * so that a NULL column never turns it into NULL (which a WHERE reads as false).
 */

/** The claim has ended, or there is none: no holder, no end time, or the end time has passed. */
function claimEnded(now: Date): SQL {
  return or(isNull(reports.claimedBy), isNull(reports.claimExpiresAt), lte(reports.claimExpiresAt, now))!;
}

/** A claim is free for `actor` when nobody holds it live, or it is theirs. */
function claimIsFree(actorId: string, now: Date): SQL {
  return or(claimEnded(now), eq(reports.claimedBy, actorId))!;
}

/** Not `actor`'s own live claim (so no renewal is being asked for). */
function notOwnLiveClaim(actorId: string, now: Date): SQL {
  return or(claimEnded(now), ne(reports.claimedBy, actorId))!;
}

/**
 * Not in `actor`'s cool-down: the expert whose claim on a report ended (released, or lapsed) cannot
 * claim that report again for one claim period (CLAIM_TTL_MINUTES) after it ended, unless another
 * expert claimed it meanwhile — so release and claim again cannot reset the renewal count.
 */
function notCoolingDown(actorId: string, now: Date, cooldownMs: number): SQL {
  return or(
    isNull(reports.claimedBy),
    ne(reports.claimedBy, actorId),
    isNull(reports.claimExpiresAt),
    gt(reports.claimExpiresAt, now),
    lte(reports.claimExpiresAt, new Date(now.getTime() - cooldownMs)),
  )!;
}

/** Why a claim or review failed, read after the conditional update matched nothing. */
async function explainRefusal(reportId: string): Promise<never> {
  const joined = await findJoined(reportId);
  if (!joined) throw new DomainError("not_found", "reports.notFound");
  if (joined.report.status === "Reviewed") throw new DomainError("conflict", "reports.alreadyReviewed");
  if (!joined.claimer?.id || !liveClaim(joined.report)) {
    throw new DomainError("conflict", "reports.claimedBySomeone");
  }
  const who = `${joined.claimer.firstName} ${joined.claimer.lastName}`.trim();
  throw new DomainError("conflict", "reports.claimedByOther", { values: { name: who } });
}

/**
 * A second opinion is for an expert of the specialty asked for, and never for the expert of the
 * first opinion (its reviewer, or whoever holds its claim while it is being written) — a panel of
 * one is no second opinion (decision 0038). Returns the row when it is a second opinion, else null.
 */
async function assertMayReviewSecond(actor: Actor, reportId: string): Promise<ReportRow | null> {
  const row = await findRow(reportId);
  if (!row?.secondOf) return null;
  const specialties = actor.specialties ?? (await specialtiesOf(actor.id));
  if (!row.secondSpecialty || !specialties.includes(row.secondSpecialty)) {
    throw new DomainError("forbidden", "panel.notYourSpecialty");
  }
  const firstRow = await findRow(row.secondOf);
  if (
    firstRow &&
    (firstRow.expertId === actor.id || (liveClaim(firstRow) && firstRow.claimedBy === actor.id))
  ) {
    throw new DomainError("forbidden", "panel.firstExpertCannot");
  }
  return row;
}

/**
 * An approved expert starts reviewing a pending report ("Start review"): one conditional update
 * decides, so of several experts claiming at once exactly one wins; the others get conflict
 * "reports.claimedByOther". Claiming one's own live claim again renews it, at most
 * CLAIM_RENEW_MAX times ("reports.claimRenewLimit"); then it lapses after CLAIM_TTL_MINUTES and
 * the report is back in the queue for everyone. An expert holds at most CLAIM_MAX live claims
 * ("reports.claimLimit", decision 0023). The expert whose claim ended (released or lapsed) cannot take
 * the same report again for one claim period unless another expert claimed it meanwhile
 * ("reports.claimCooldown"), so releasing and claiming again does not reset the renewals. An
 * expert without a registration number (approved before approval required one) cannot sign, so
 * cannot claim either ("reports.registrationToSign").
 *
 * The cap is counted inside the transaction after a write to the expert's own users row: on
 * SQLite BEGIN IMMEDIATE already runs one transaction at a time; on PostgreSQL that row lock
 * makes one expert's concurrent claims wait for each other, and the count (a new snapshot per
 * statement under READ COMMITTED) sees the claims committed before. The same write re-checks
 * that the expert is still approved.
 */
export async function claimReport(
  actor: Actor,
  reportId: string,
  opts: { ip?: string | null } = {},
): Promise<ApiReport> {
  requireApprovedExpert(actor);
  const c = config();
  const now = new Date();
  const id = String(reportId ?? "");
  await assertMayReviewSecond(actor, id);
  const ownLive = and(eq(reports.claimedBy, actor.id), gt(reports.claimExpiresAt, now))!;
  const outcome = await transaction(function* (tx) {
    const still = yield* rows(
      tx
        .update(users)
        .set({ approved: sql`${users.approved}` })
        .where(and(eq(users.id, actor.id), eq(users.approved, true)))
        .returning({ id: users.id }),
    );
    if (still.length !== 1) return "unapproved" as const;
    const [profile] = yield* rows(
      tx
        .select({ registrationNumber: expertProfiles.registrationNumber })
        .from(expertProfiles)
        .where(eq(expertProfiles.userId, actor.id)),
    );
    if (!profile?.registrationNumber?.trim()) return "unregistered" as const;
    const held = yield* rows(
      tx
        .select({ n: count() })
        .from(reports)
        .where(
          and(
            eq(reports.claimedBy, actor.id),
            gt(reports.claimExpiresAt, now),
            eq(reports.status, "Pending"),
            ne(reports.id, id),
          ),
        ),
    );
    if ((held[0]?.n ?? 0) >= c.claimMax) return "cap" as const;
    const updated = yield* rows(
      tx
        .update(reports)
        .set({
          claimedBy: actor.id,
          claimedAt: now,
          claimExpiresAt: new Date(now.getTime() + c.claimTtlMs),
          claimRenewals: sql`CASE WHEN ${ownLive} THEN ${reports.claimRenewals} + 1 ELSE 0 END`,
        })
        .where(
          and(
            eq(reports.id, id),
            eq(reports.status, "Pending"),
            claimIsFree(actor.id, now),
            or(notOwnLiveClaim(actor.id, now), lt(reports.claimRenewals, c.claimRenewMax)),
            notCoolingDown(actor.id, now, c.claimTtlMs),
          ),
        )
        .returning({ id: reports.id, renewals: reports.claimRenewals }),
    );
    if (updated.length !== 1) return "refused" as const;
    yield* exec(
      auditInsert(
        tx,
        actor,
        "report.claim",
        "report",
        updated[0].id,
        updated[0].renewals ? { renewal: updated[0].renewals } : null,
        opts.ip,
      ),
    );
    return "won" as const;
  });
  if (outcome === "unapproved") throw new DomainError("forbidden", "reports.awaitApproval");
  if (outcome === "unregistered") throw new DomainError("forbidden", "reports.registrationToSign");
  if (outcome === "cap") {
    throw new DomainError("conflict", "reports.claimLimit", { values: { max: c.claimMax } });
  }
  if (outcome === "refused") {
    const row = await findRow(id);
    if (row && row.status === "Pending" && row.claimedBy === actor.id && row.claimExpiresAt) {
      if (liveClaim(row)) {
        throw new DomainError("conflict", "reports.claimRenewLimit", { values: { max: c.claimRenewMax } });
      }
      const wait = row.claimExpiresAt.getTime() + c.claimTtlMs - Date.now();
      if (wait > 0) {
        throw new DomainError("conflict", "reports.claimCooldown", {
          values: { minutes: Math.max(1, Math.ceil(wait / 60_000)) },
        });
      }
    }
    await explainRefusal(id);
  }
  return getReportForReview(actor, reportId);
}

/** The claimant (or an admin) gives a report back to the queue. */
export async function releaseReport(
  actor: Actor,
  reportId: string,
  opts: { ip?: string | null } = {},
): Promise<ApiReport> {
  if (actor.accountType === "Expert") requireApprovedExpert(actor);
  else if (actor.accountType !== "Admin") throw new DomainError("forbidden", "reports.onlyExperts");
  const now = new Date();
  const released = await transaction(function* (tx) {
    const updated = yield* rows(
      tx
        .update(reports)
        // The claim ends now; claimed_by keeps who held it, for their cool-down (see notCoolingDown).
        .set({ claimExpiresAt: now, claimRenewals: 0 })
        .where(
          and(
            eq(reports.id, String(reportId ?? "")),
            eq(reports.status, "Pending"),
            isNotNull(reports.claimedBy),
            gt(reports.claimExpiresAt, now),
            actor.accountType === "Admin" ? undefined : eq(reports.claimedBy, actor.id),
          ),
        )
        .returning({ id: reports.id }),
    );
    if (updated.length === 1)
      yield* exec(auditInsert(tx, actor, "report.release", "report", updated[0].id, null, opts.ip));
    return updated.length === 1;
  });
  if (!released) {
    const row = await findRow(String(reportId ?? ""));
    if (!row) throw new DomainError("not_found", "reports.notFound");
    if (row.status === "Reviewed") throw new DomainError("conflict", "reports.alreadyReviewed");
    throw new DomainError("conflict", "reports.notYourClaim");
  }
  const joined = (await findJoined(String(reportId)))!;
  return (await hidePhonesOfRefusers(actor, [fromJoined(joined)]))[0];
}

const CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"; // Crockford base32: no I, L, O, U

/** A letter's verification code: 60 random bits as XXXX-XXXX-XXXX. */
export function newLetterCode(): string {
  const bytes = randomBytes(12);
  let out = "";
  for (let i = 0; i < 12; i++) out += CODE_ALPHABET[bytes[i] & 31];
  return `${out.slice(0, 4)}-${out.slice(4, 8)}-${out.slice(8, 12)}`;
}

/**
 * An approved Expert submits the structured opinion. One conditional update decides: it matches
 * only while the report is Pending and no other expert holds a live claim, so the first review
 * wins and a report claimed by someone else is refused (conflict "reports.claimedByOther"); a
 * reviewed report gets conflict "reports.alreadyReviewed". The patient is told by mail that the
 * opinion is ready (and, when flagged, that it is important to read it soon) — never its content.
 */
export async function addReview(
  actor: Actor,
  reportId: string,
  input: ReviewInput | Record<string, unknown>,
  opts: { ip?: string | null } = {},
): Promise<ApiReport> {
  requireApprovedExpert(actor);
  const parsed = reviewSchema.safeParse(input);
  if (!parsed.success) {
    throw new DomainError("invalid", "reports.reviewFailed", { fieldErrors: zodFieldErrors(parsed.error) });
  }
  if (typeof reportId !== "string" || !reportId || reportId.length > 100) {
    throw new DomainError("not_found", "reports.notFound");
  }
  const now = new Date();
  const data = parsed.data;
  const second = await assertMayReviewSecond(actor, reportId);
  // A second opinion says how it stands to the first, and why; a first opinion has nothing to agree with.
  const agreementErrors: Record<string, string[]> = {};
  if (second) {
    if (!data.agreement) agreementErrors.agreement = ["panel.agreementRequired"];
    if (!data.agreementReason) agreementErrors.agreementReason = ["panel.reasonRequired"];
  } else if (data.agreement || data.agreementReason) {
    agreementErrors.agreement = ["panel.agreementOnlySecond"];
  }
  if (Object.keys(agreementErrors).length) {
    throw new DomainError("invalid", "reports.reviewFailed", { fieldErrors: agreementErrors });
  }
  let won: boolean | "unapproved" | "unregistered" = false;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      won = await transaction(function* (tx) {
        // The signer as the letter prints them, read in the transaction that signs (decision 0023); an
        // expert sent back to admin review since this request began cannot sign.
        const [signer] = yield* rows(
          tx
            .select({
              approved: users.approved,
              firstName: users.firstName,
              lastName: users.lastName,
              registrationNumber: expertProfiles.registrationNumber,
              registrationCouncil: expertProfiles.registrationCouncil,
            })
            .from(users)
            .leftJoin(expertProfiles, eq(expertProfiles.userId, users.id))
            .where(eq(users.id, actor.id)),
        );
        if (!signer?.approved) return "unapproved" as const;
        // Approval needs a registration number (decision 0023), but experts approved before that rule
        // may have none: they cannot sign until they add it in Settings (which sends them back to
        // admin review), so no letter says "Reg. No. not given".
        if (!signer.registrationNumber?.trim()) return "unregistered" as const;
        const updated = yield* rows(
          tx
            .update(reports)
            .set({
              signerFirstName: signer.firstName,
              signerLastName: signer.lastName,
              signerRegistrationNumber: signer.registrationNumber ?? "",
              signerRegistrationCouncil: signer.registrationCouncil ?? "",
              status: "Reviewed",
              review: data.review,
              findings: data.findings ?? null,
              recommendations: data.recommendations ?? null,
              seeDoctorSoon: !!data.seeDoctorSoon,
              agreement: second ? data.agreement : null,
              agreementReason: second ? data.agreementReason : null,
              expertId: actor.id,
              followupExpertId: actor.id,
              claimedBy: actor.id,
              claimExpiresAt: null,
              letterCode: newLetterCode(),
              reviewedAt: now,
              updatedAt: now,
            })
            .where(and(eq(reports.id, reportId), eq(reports.status, "Pending"), claimIsFree(actor.id, now)))
            .returning({ id: reports.id }),
        );
        if (updated.length === 1)
          yield* exec(
            auditInsert(
              tx,
              actor,
              "report.review",
              "report",
              reportId,
              second
                ? {
                    seeDoctorSoon: !!data.seeDoctorSoon,
                    secondOf: second.secondOf,
                    agreement: data.agreement,
                  }
                : { seeDoctorSoon: !!data.seeDoctorSoon },
              opts.ip,
            ),
          );
        return updated.length === 1;
      });
      break;
    } catch (err) {
      // A letter code already in use (one in 2^60): draw another.
      if (!isUniqueViolation(err) || attempt === 2) throw err;
    }
  }
  if (won === "unapproved") throw new DomainError("forbidden", "reports.awaitApproval");
  if (won === "unregistered") throw new DomainError("forbidden", "reports.registrationToSign");
  if (!won) await explainRefusal(reportId);
  const joined = (await findJoined(reportId))!;
  await notifyOpinionReady(joined.report.patientId, { seeDoctorSoon: !!data.seeDoctorSoon });
  const report = fromJoined(joined);
  return (await hidePhonesOfRefusers(actor, [report]))[0];
}

// ---------------------------------------------------------------------------------------
// Delete and download

/** The owning Patient or an Admin deletes a report: the row first, then its file. */
export async function deleteReport(
  actor: Actor,
  reportId: string,
  opts: { ip?: string | null } = {},
): Promise<void> {
  if (
    actor.accountType !== "Patient" &&
    actor.accountType !== "Admin" &&
    actor.accountType !== "HealthWorker"
  ) {
    throw new DomainError("forbidden", "reports.deleteNotAllowed");
  }
  const row = await findRow(reportId);
  if (!row) throw new DomainError("not_found", "reports.notFound");
  const access = await patientAccess(actor, row.patientId);
  if (!access) throw new DomainError("forbidden", "reports.deleteNotAllowed");
  // A study's instances and previews (their rows go with the report's).
  const studyKeys = await studyObjects([row.id]);
  // Its voice notes' rows go with the report (on delete cascade); their audio is removed after.
  const voiceKeys = (
    await db().select({ k: voiceNotes.fileKey }).from(voiceNotes).where(eq(voiceNotes.reportId, row.id))
  ).map((v) => v.k);
  const deleted = await transaction(function* (tx) {
    const gone = yield* rows(tx.delete(reports).where(eq(reports.id, row.id)).returning({ id: reports.id }));
    if (gone.length === 1)
      yield* exec(
        auditInsert(tx, actor, "report.delete", "report", row.id, { by: actor.accountType }, opts.ip),
      );
    return gone.length === 1;
  });
  if (!deleted) throw new DomainError("not_found", "reports.notFound");
  // Its second opinions went with it (the foreign key cascades); a second opinion deleted alone
  // leaves the file to its case. A failure here leaves an unreferenced file that sweepLeftovers() removes later.
  await deleteReportFileIfUnused(row.fileKey).catch((err) =>
    log("error", "could not delete report file", { reportId: row.id, error: String(err?.message ?? err) }),
  );
  await deleteObjects(studyKeys.filter((k) => k !== row.fileKey));
  await deleteObjects(voiceKeys);
}

/**
 * The report row for one who may open its file (fileAccessRefusal), else forbidden, recorded as
 * "report.file_refused" like any refused opening. Medical images (imaging.server.ts) use it, so
 * the images follow the file's rule exactly.
 */
export async function reportForFileAccess(actor: Actor, reportId: string, ip?: string | null) {
  const row = await findRow(reportId);
  if (!row) throw new DomainError("not_found", "reports.notFound");
  const refusal = await fileAccessRefusal(actor, row);
  if (refusal) {
    await audit(actor, "report.file_refused", "report", row.id, { status: row.status }, ip);
    throw new DomainError("forbidden", refusal);
  }
  return row;
}

export type OpenedReportFile = { stream: Readable; mimeType: string; fileName: string; size: number };

/** What decides who may open a report's file: read from the report's own row, never from a caller. */
type FileAccessFacts = Pick<
  ReportRow,
  "patientId" | "status" | "expertId" | "claimedBy" | "followupExpertId"
>;

/**
 * Who may open a report's file (decision 0023), the one place this rule lives: the owning patient;
 * admins; approved experts while the report is pending (to decide whether to claim it), and once
 * reviewed only its reviewer (expert_id), the expert whose claim became the review (claimed_by)
 * and the expert holding its follow-ups (followup_expert_id, the reviewer unless an admin
 * reassigned them). Returns the refusal's message key, or null when allowed. It takes the row
 * itself, so the file route and the add-review screen (reviewScreenReport) cannot disagree.
 * (Sharing links serve files by their own token.)
 */
export async function fileAccessRefusal(actor: Actor, row: FileAccessFacts): Promise<string | null> {
  if (actor.accountType === "Admin") return null;
  if (actor.accountType === "Patient" || actor.accountType === "HealthWorker")
    return (await patientAccess(actor, row.patientId)) ? null : "reports.notYourReport";
  if (actor.accountType !== "Expert") return "reports.notYourReport";
  if (!actor.approved) return "reports.awaitApprovalFile";
  if (row.status === "Pending") return null;
  if ([row.expertId, row.claimedBy, row.followupExpertId].includes(actor.id)) return null;
  return "reports.fileNotYours";
}

/**
 * The decrypted file for those fileAccessRefusal allows; records who opened it
 * ("report.file_open"). Any refused actor gets forbidden and is recorded ("report.file_refused").
 */
export async function openReportFile(
  actor: Actor,
  reportId: string,
  ip?: string | null,
): Promise<OpenedReportFile> {
  const row = await findRow(reportId);
  if (!row) throw new DomainError("not_found", "reports.notFound");
  const refusal = await fileAccessRefusal(actor, row);
  if (refusal) {
    // Every refused opening by a signed-in actor is recorded — patients probing other patients'
    // reports as much as experts; strangers never get here (401 without a session).
    await audit(actor, "report.file_refused", "report", row.id, { status: row.status }, ip);
    throw new DomainError("forbidden", refusal);
  }
  const stream = await openDecrypted(row.fileKey);
  try {
    await audit(actor, "report.file_open", "report", row.id, null, ip);
    // A family manager's or a health worker's opening is in the profile's access trail too.
    const access = actor.accountType === "Admin" ? null : await patientAccess(actor, row.patientId);
    if (access) await traceAccess(actor, access, "patient.file_open", { reportId: row.id }, ip);
  } catch (err) {
    stream.destroy();
    throw err;
  }
  return { stream, mimeType: row.mimeType, fileName: row.fileName, size: row.size };
}

/**
 * The add-review screen: one report for an approved Expert (same rules as addReview: other
 * account types → forbidden "reports.onlyExperts", experts awaiting approval → forbidden
 * "reports.awaitApproval", unknown id → not_found). A report that is already reviewed is
 * returned too, so the screen can say so; its opinion only to the expert who wrote it.
 */
export async function getReportForReview(actor: Actor, reportId: string): Promise<ApiReport> {
  return (await reviewScreenReport(actor, reportId)).report;
}

/**
 * getReportForReview for the add-review screen, with whether the actor may open the report's file
 * — decided from the same row by the same rule as GET /api/v1/report/:id/file.
 */
export async function reviewScreenReport(
  actor: Actor,
  reportId: string,
): Promise<{ report: ApiReport; fileAllowed: boolean }> {
  requireApprovedExpert(actor);
  const joined = await findJoined(reportId);
  if (!joined) throw new DomainError("not_found", "reports.notFound");
  const report = fromJoined(joined);
  if (report.status === "Reviewed" && joined.report.expertId !== actor.id) {
    report.review = null;
    report.findings = null;
    report.recommendations = null;
    report.letter = null;
  }
  report.matchesSpecialties = matches(report, actor.specialties ?? (await specialtiesOf(actor.id)));
  const fileAllowed = !(await fileAccessRefusal(actor, joined.report));
  // A second opinion's expert reads the first opinion under the rule that lets them open the file
  // (the same medical content of the same case), and the reading is recorded like a file opening.
  if (joined.report.secondOf && fileAllowed) {
    const firstJoined = await findJoined(joined.report.secondOf);
    if (firstJoined?.report.status === "Reviewed") {
      report.firstOpinion = fromJoined(firstJoined);
      await audit(actor, "report.first_opinion_open", "report", firstJoined.report.id, {
        secondOf: joined.report.id,
      });
    } else report.firstOpinion = null;
  }
  // The expert of the first opinion sees what they asked of other specialties.
  const firstExpert =
    joined.report.expertId === actor.id || (liveClaim(joined.report) && joined.report.claimedBy === actor.id);
  if (!joined.report.secondOf && firstExpert) await withSecondOpinions([report]);
  return { report: (await hidePhonesOfRefusers(actor, [report]))[0], fileAllowed };
}

/**
 * The report behind an opinion letter, for those who may fetch it: the owning patient, the
 * reviewing expert and admins. Records the fetch ("report.letter_open").
 */
export async function reportForLetter(actor: Actor, reportId: string, ip?: string | null) {
  const joined = await findJoined(reportId);
  if (!joined) throw new DomainError("not_found", "reports.notFound");
  const r = joined.report;
  const access =
    actor.accountType === "Patient" || actor.accountType === "HealthWorker"
      ? await patientAccess(actor, r.patientId)
      : null;
  const allowed =
    actor.accountType === "Admin" ||
    !!access ||
    (actor.accountType === "Expert" && actor.approved && r.expertId === actor.id);
  if (!allowed) throw new DomainError("forbidden", "letters.notAllowed");
  if (r.status !== "Reviewed" || !r.letterCode) throw new DomainError("not_found", "letters.notReviewedYet");
  // The letter is the case's (decision 0038): its first opinion and every second opinion given,
  // whichever of them was asked for; it keeps the code of the row asked for.
  const root = r.secondOf ? await findJoined(r.secondOf) : joined;
  const main = root && root.report.status === "Reviewed" ? root : joined;
  const [report] = await withSecondOpinions(await withFollowUps([fromJoined(main)]));
  report.secondOpinions = (report.secondOpinions ?? []).filter((x) => x.status === "Reviewed");
  // The letter is in the patient's language: their profile's (their own account's for their own).
  const patientLocale = await first(
    db().select({ locale: patients.locale }).from(patients).where(eq(patients.id, r.patientId)),
  );
  await audit(actor, "report.letter_open", "report", r.id, null, ip);
  if (access) await traceAccess(actor, access, "patient.letter_open", { reportId: r.id }, ip);
  return { report, letterCode: r.letterCode, patientLocale: patientLocale?.locale ?? "en" };
}

/**
 * Public: what /verify/{code} may say about a letter — that it exists, when and who signed it, as
 * the signer was when signing (decision 0023: a later change of registration does not rewrite it).
 */
export async function verifyLetter(code: string) {
  const normal = String(code ?? "")
    .toUpperCase()
    .replace(/[^0-9A-Z]/g, "");
  if (normal.length !== 12) return null;
  const pretty = `${normal.slice(0, 4)}-${normal.slice(4, 8)}-${normal.slice(8, 12)}`;
  const columns = {
    id: reports.id,
    secondOf: reports.secondOf,
    secondSpecialty: reports.secondSpecialty,
    reviewedAt: reports.reviewedAt,
    expertId: reports.expertId,
    first: reports.signerFirstName,
    last: reports.signerLastName,
    registrationNumber: reports.signerRegistrationNumber,
    registrationCouncil: reports.signerRegistrationCouncil,
  };
  const found = await first(
    db()
      .select(columns)
      .from(reports)
      .where(and(eq(reports.letterCode, pretty), eq(reports.status, "Reviewed"))),
  );
  if (!found) return null;
  // Every signed opinion of the case (decision 0038): the first, then the second opinions given.
  const root = found.secondOf ?? found.id;
  const signed = await db()
    .select(columns)
    .from(reports)
    .where(and(or(eq(reports.id, root), eq(reports.secondOf, root)), eq(reports.status, "Reviewed")))
    .orderBy(asc(reports.reviewedAt), asc(reports.id));
  const ids = [...new Set(signed.map((r) => r.expertId).filter((x): x is string => !!x))];
  const details = ids.length ? await expertDetailsFor(ids) : new Map();
  // Null once the signing expert's account is deleted: the letter stays genuine, the signer unnamed.
  const signer = (r: typeof found) =>
    r.expertId
      ? {
          firstName: r.first ?? "",
          lastName: r.last ?? "",
          registrationNumber: r.registrationNumber ?? "",
          registrationCouncil: r.registrationCouncil ?? "",
          specialties: (details.get(r.expertId)?.specialties ?? []) as string[],
        }
      : null;
  return {
    code: pretty,
    reviewedAt: found.reviewedAt?.toISOString() ?? null,
    expert: signer(found),
    /** The case's signed opinions: who signed each and when — never what they said. */
    opinions: signed.map((r) => ({
      kind: r.secondOf ? ("second" as const) : ("first" as const),
      specialty: r.secondSpecialty,
      reviewedAt: r.reviewedAt?.toISOString() ?? null,
      expert: signer(r),
    })),
  };
}

// ---------------------------------------------------------------------------------------
// Overdue reports

/** The priorities a report can have: 0 urgent, 1 routine — each with its own review target. */
export const PRIORITIES = [0, 1] as const;

/** A pending report of `priority` uploaded before this is overdue. */
export function dueCutoff(priority: number, now: number): Date {
  const c = config();
  return new Date(now - (priority === 0 ? c.reviewTargetUrgentMs : c.reviewTargetMs));
}

/** Pending reports past their due time (by priority's target), oldest first. */
export function overdueCondition(now = Date.now()): SQL {
  return and(
    eq(reports.status, "Pending"),
    or(
      and(eq(reports.priority, 0), lt(reports.createdAt, dueCutoff(0, now))),
      and(gt(reports.priority, 0), lt(reports.createdAt, dueCutoff(1, now))),
    ),
  )!;
}

/**
 * The pending reports of `priority` not overdue yet — overdueCondition's complement among the
 * pending, for one priority (an equality and a range on reports_queue_idx): the uploads of the last
 * review-target hours, however large the archive (decision 0046). `since` is `dueCutoff(priority, now)`
 * or a prepared statement's moment.
 */
export function notYetDueCondition(priority: number, since: Date | SQL): SQL {
  return and(
    eq(reports.status, constantText("Pending")),
    eq(reports.priority, constantInt(priority)),
    gte(reports.createdAt, since),
  )!;
}

/** The overdue list (urgent first, then oldest), for the Turnaround screen; `where` narrows it (a centre's). */
export async function overdueReports(limit: number, now = Date.now(), where?: SQL): Promise<ApiReport[]> {
  const found = await selectReports()
    .where(where ? and(overdueCondition(now), where) : overdueCondition(now))
    .orderBy(...byQueue)
    .limit(limit);
  // Admins see the overdue list: numbers of patients who refused calls are hidden.
  return hidePhonesOfRefusers(
    null,
    found.map((r) => fromJoined(r)),
  );
}
