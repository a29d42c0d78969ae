import { and, count, desc, eq, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import type { Readable } from "node:stream";
import type { z } from "zod";
import { dataVersion, db, exec, first, prepareQuery, rows, transaction, type DB } from "~/db/client.server";
import { reports, users, type ReportRow } from "~/db/schema";
import {
  reviewSchema,
  uploadReportFormSchema,
  uploadReportSchema,
  type ReportType,
  type ReviewInput,
  type UploadReportInput,
} from "~/schemas/reports";
import type { Paged, PageQuery } from "~/utils/api.server";
import { newId } from "~/utils/ids.server";
import { log } from "~/utils/log.server";
import { audit, auditInsert, fileViewsForReports, type FileView } from "./audit.server";
import { DomainError } from "./errors";
import { approvedExpertRecipients, notifyUser } from "./experts.server";
import { deleteStored, openDecrypted, type StoredFile } from "./files.server";
import type { Actor } from "./sessions.server";

/**
 * Reports: upload, the patient's own list, the experts' pending queue, reviews, the
 * reviewed lists, deletion and the authorised file download. Every rule of the API
 * contract lives here once; screens and /api/v1 routes both call these functions.
 */

export const MASKED_NAME = "******";
export const MASKED_PHONE = "**********";
/** What an expert awaiting approval sees instead of the file's original name. */
export const MASKED_FILE_NAME = "******";

export type ApiReport = {
  _id: string;
  reportType: string;
  description: string | null;
  phoneNumber: string;
  status: "Pending" | "Reviewed";
  review: string | null;
  reportUrl: string;
  resourceType: "raw" | "image";
  fileName: string;
  mimeType: string;
  size: number;
  patient: { _id: string; firstName: string; lastName: string; email: string };
  expert: null | { _id: string; firstName: string; lastName: string };
  createdAt: string;
  updatedAt: string;
  reviewedAt: string | null;
};

export type PatientReport = ApiReport & { fileViews: FileView[] };

type PersonLite = { id: string; firstName: string; lastName: string; email?: string };

export function reportFileUrl(reportId: string) {
  return `/api/v1/report/${encodeURIComponent(reportId)}/file`;
}

/**
 * The contract's Report object. `mask` hides the patient from experts awaiting approval:
 * everything that identifies or describes them (names, e-mail, phone, patient id, the
 * free-text description and the file's original name) is replaced; type, status and dates stay.
 */
export function toApiReport(
  row: ReportRow,
  patient: PersonLite | null,
  expert: PersonLite | null,
  opts: { mask?: boolean } = {},
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
    expert: expert ? { _id: expert.id, firstName: expert.firstName, lastName: expert.lastName } : null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    reviewedAt: row.reviewedAt ? row.reviewedAt.toISOString() : null,
  };
}

// ---------------------------------------------------------------------------------------
// Queries

const patientUser = alias(users, "patient");
const expertUser = alias(users, "expert");

function selectReports(q: DB = db()) {
  return q
    .select({
      report: reports,
      patient: {
        id: patientUser.id,
        firstName: patientUser.firstName,
        lastName: patientUser.lastName,
        email: patientUser.email,
      },
      expert: { id: expertUser.id, firstName: expertUser.firstName, lastName: expertUser.lastName },
    })
    .from(reports)
    .innerJoin(patientUser, eq(patientUser.id, reports.patientId))
    .leftJoin(expertUser, eq(expertUser.id, reports.expertId));
}

type Joined = Awaited<ReturnType<typeof selectReports>>[number];

const byCreated = [desc(reports.createdAt), desc(reports.id)];
const byReviewed = [desc(reports.reviewedAt), desc(reports.id)];

/**
 * The five report lists. Each `where` + `orderBy` is a matching index prefix + its sort
 * columns (see the reports_* indexes in the schema, which end in created_at/reviewed_at, id),
 * so neither the count nor the page scans the table or sorts; id breaks ties within one
 * millisecond. `key` is the list's one parameter (patient id, report type, expert id).
 */
const LISTS = {
  // reports_patient_created_idx (patient_id, created_at)
  patient: { where: () => eq(reports.patientId, sql.placeholder("key")), orderBy: byCreated },
  // reports_status_created_idx (status, created_at)
  pending: { where: () => eq(reports.status, "Pending"), orderBy: byCreated },
  // reports_status_type_created_idx (status, report_type, created_at)
  pendingOfType: {
    where: () => and(eq(reports.status, "Pending"), eq(reports.reportType, sql.placeholder("key")))!,
    orderBy: byCreated,
  },
  // reports_expert_reviewed_idx (expert_id, reviewed_at); only reviewed reports have an expert.
  expert: { where: () => eq(reports.expertId, sql.placeholder("key")), orderBy: byReviewed },
  // reports_status_reviewed_idx (status, reviewed_at)
  reviewed: { where: () => eq(reports.status, "Reviewed"), orderBy: byReviewed },
};
type ListKind = keyof typeof LISTS;

function prepareList(kind: ListKind) {
  const where = LISTS[kind].where();
  return {
    count: prepareQuery(`reports_${kind}_count`, db().select({ n: count() }).from(reports).where(where)),
    page: prepareQuery(
      `reports_${kind}_page`,
      selectReports()
        .where(where)
        .orderBy(...LISTS[kind].orderBy)
        .limit(sql.placeholder("limit"))
        .offset(sql.placeholder("offset")),
    ),
  };
}

/** Statements are built once per database handle (building a query costs more than running it). */
let prepared: { handle: DB; lists: Map<ListKind, ReturnType<typeof prepareList>> } | undefined;
function statements() {
  const handle = db();
  if (prepared?.handle !== handle) {
    prepared = { handle, lists: new Map() };
    counts.clear();
  }
  return prepared;
}

/**
 * Exact totals, reused while nothing at all has been written to the database (dataVersion()): a
 * count walks every matching index entry (about 2 ms for 50,000 pending reports on SQLite), the
 * page only 20. On PostgreSQL there is no such cheap version across nodes, so every list counts.
 */
const counts = new Map<string, number>();
let countsVersion: string | null = "";
const MAX_CACHED_COUNTS = 10_000;

async function pageOf(
  kind: ListKind,
  key: string | null,
  { page, pageSize }: PageQuery,
  mask: boolean,
): Promise<Paged<ApiReport>> {
  const st = statements();
  let list = st.lists.get(kind);
  if (!list) st.lists.set(kind, (list = prepareList(kind)));
  const version = dataVersion();
  if (version === null || version !== countsVersion) {
    counts.clear();
    countsVersion = version;
  }
  const countKey = `${kind}:${key ?? ""}`;
  let total = counts.get(countKey);
  if (total === undefined) {
    total = (await list.count.execute({ key }))[0]?.n ?? 0;
    if (version !== null) {
      if (counts.size >= MAX_CACHED_COUNTS) counts.clear();
      counts.set(countKey, total);
    }
  }
  const found =
    total > (page - 1) * pageSize
      ? await list.page.execute({ key, limit: pageSize, offset: (page - 1) * pageSize })
      : [];
  return { items: found.map((r) => fromJoined(r, mask)), total, page, pageSize };
}

function fromJoined(r: Joined, mask = false) {
  return toApiReport(r.report, r.patient, r.expert, { mask });
}

async function findJoined(reportId: string): Promise<Joined | undefined> {
  if (typeof reportId !== "string" || !reportId || reportId.length > 100) return undefined;
  return first(selectReports().where(eq(reports.id, reportId)));
}

async function findRow(reportId: string): Promise<ReportRow | undefined> {
  if (typeof reportId !== "string" || !reportId || reportId.length > 100) return undefined;
  return first(db().select().from(reports).where(eq(reports.id, reportId)));
}

/** Experts whose account is not approved yet see patients masked. */
function masksFor(actor: Actor) {
  return actor.accountType === "Expert" && !actor.approved;
}

function zodFieldErrors(error: z.ZodError): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const issue of error.issues) {
    const key = issue.path.join(".") || "_";
    (out[key] ??= []).push(issue.message);
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Upload

/** Only patients upload. Routes call this before reading the body, createReport again. */
export function assertCanUpload(actor: Actor | null): asserts actor is Actor {
  if (!actor) throw new DomainError("not_authenticated", "errors.loginFirstUpload");
  if (actor.accountType !== "Patient") throw new DomainError("forbidden", "reports.patientsOnly");
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
 * stored file is deleted, so there is never a file without a row. On success approved
 * experts are told by mail (no medical content) and the new report is returned.
 */
export async function createReport(
  actor: Actor,
  input: UploadReportInput | Record<string, unknown>,
  file: StoredFile | null | undefined,
  opts: { form?: boolean; ip?: string | null } = {},
): Promise<ApiReport> {
  let row: ReportRow;
  try {
    assertCanUpload(actor);
    const parsed = (opts.form ? uploadReportFormSchema : uploadReportSchema).safeParse(input);
    const errors = parsed.success ? {} : zodFieldErrors(parsed.error);
    if (!file) errors.report = ["reports.fileRequired"];
    if (!parsed.success || !file) {
      throw new DomainError("invalid", "reports.uploadFailed", { fieldErrors: errors });
    }
    const data = parsed.data;
    const now = new Date();
    row = {
      id: newId(),
      patientId: actor.id,
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
      createdAt: now,
      updatedAt: now,
    };
    const inserted = row;
    await transaction(function* (tx) {
      yield* exec(tx.insert(reports).values(inserted));
      yield* exec(
        auditInsert(
          tx,
          actor,
          "report.upload",
          "report",
          inserted.id,
          { mimeType: inserted.mimeType, size: inserted.size },
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
    throw err;
  }
  for (const expert of await approvedExpertRecipients()) {
    notifyUser(expert, {
      subject: "mail.newReportSubject",
      body: "mail.newReportBody",
      action: "mail.newReportAction",
      path: "/dashboard/pending-report",
    });
  }
  return toApiReport(row, actor, null);
}

// ---------------------------------------------------------------------------------------
// Lists

/** That patient or an Admin: the patient's reports, newest first, with who opened each file. */
export async function listPatientReports(
  actor: Actor,
  patientId: string,
  page: PageQuery,
): Promise<Paged<PatientReport>> {
  if (actor.accountType === "Admin") {
    const exists = await first(db().select({ id: users.id }).from(users).where(eq(users.id, patientId)));
    if (!exists) throw new DomainError("not_found", "reports.patientNotFound");
  } else if (actor.accountType !== "Patient" || actor.id !== patientId) {
    throw new DomainError("forbidden", "reports.notYourReports");
  }
  const result = await pageOf("patient", patientId, page, false);
  const views = await fileViewsForReports(result.items.map((r) => r._id));
  return { ...result, items: result.items.map((r) => ({ ...r, fileViews: views.get(r._id) ?? [] })) };
}

/** Experts and Admins: reports waiting for a review, newest first, optionally of one type. */
export async function listPendingReports(
  actor: Actor,
  page: PageQuery,
  reportType?: ReportType | null,
): Promise<Paged<ApiReport>> {
  if (actor.accountType !== "Expert" && actor.accountType !== "Admin") {
    throw new DomainError("forbidden", "reports.expertsOrAdmins");
  }
  return reportType
    ? pageOf("pendingOfType", reportType, page, masksFor(actor))
    : pageOf("pending", null, page, masksFor(actor));
}

/** Expert: the reports they reviewed; Admin: every reviewed report. Newest review first. */
export async function listReviewedByExpert(actor: Actor, page: PageQuery): Promise<Paged<ApiReport>> {
  if (actor.accountType === "Admin") return listAllReviewed(actor, page);
  if (actor.accountType !== "Expert") throw new DomainError("forbidden", "reports.expertsOrAdmins");
  return pageOf("expert", actor.id, page, masksFor(actor));
}

/** Admin: every reviewed report with patient and expert names, newest review first. */
export async function listAllReviewed(actor: Actor, page: PageQuery): Promise<Paged<ApiReport>> {
  if (actor.accountType !== "Admin") throw new DomainError("forbidden", "reports.adminsOnly");
  return pageOf("reviewed", null, page, false);
}

// ---------------------------------------------------------------------------------------
// Review

/**
 * An approved Expert reviews a pending report. The first review wins: the update only
 * matches while the report is still Pending, so a second (or concurrent) review gets
 * conflict "reports.alreadyReviewed". The patient is told by mail (no medical content).
 */
export async function addReview(
  actor: Actor,
  reportId: string,
  input: ReviewInput | Record<string, unknown>,
  opts: { ip?: string | null } = {},
): Promise<ApiReport> {
  if (actor.accountType !== "Expert") throw new DomainError("forbidden", "reports.onlyExperts");
  if (!actor.approved) throw new DomainError("forbidden", "reports.awaitApproval");
  const parsed = reviewSchema.safeParse(input);
  if (!parsed.success) {
    throw new DomainError("invalid", "reports.reviewFailed", { fieldErrors: zodFieldErrors(parsed.error) });
  }
  if (typeof reportId !== "string" || !reportId || reportId.length > 100) {
    throw new DomainError("not_found", "reports.notFound");
  }
  const now = new Date();
  const won = await transaction(function* (tx) {
    // One conditional update decides: it matches only while the report is Pending.
    const updated = yield* rows(
      tx
        .update(reports)
        .set({
          status: "Reviewed",
          review: parsed.data.review,
          expertId: actor.id,
          reviewedAt: now,
          updatedAt: now,
        })
        .where(and(eq(reports.id, reportId), eq(reports.status, "Pending")))
        .returning({ id: reports.id }),
    );
    if (updated.length === 1)
      yield* exec(auditInsert(tx, actor, "report.review", "report", reportId, null, opts.ip));
    return updated.length === 1;
  });
  if (!won) {
    if (await findRow(reportId)) throw new DomainError("conflict", "reports.alreadyReviewed");
    throw new DomainError("not_found", "reports.notFound");
  }
  const joined = (await findJoined(reportId))!;
  const patient = await first(
    db()
      .select({
        email: users.email,
        firstName: users.firstName,
        locale: users.locale,
        suspendedAt: users.suspendedAt,
      })
      .from(users)
      .where(eq(users.id, joined.report.patientId)),
  );
  if (patient && !patient.suspendedAt) {
    notifyUser(patient, {
      subject: "mail.reviewedSubject",
      body: "mail.reviewedBody",
      action: "mail.reviewedAction",
      path: `/dashboard/previous-report/${encodeURIComponent(joined.report.patientId)}`,
    });
  }
  return fromJoined(joined);
}

// ---------------------------------------------------------------------------------------
// Delete and download

/** The owning Patient or an Admin deletes a report: the row first, then its file. */
export async function deleteReport(
  actor: Actor,
  reportId: string,
  opts: { ip?: string | null } = {},
): Promise<void> {
  if (actor.accountType !== "Patient" && actor.accountType !== "Admin") {
    throw new DomainError("forbidden", "reports.deleteNotAllowed");
  }
  const row = await findRow(reportId);
  if (!row) throw new DomainError("not_found", "reports.notFound");
  if (actor.accountType === "Patient" && row.patientId !== actor.id) {
    throw new DomainError("forbidden", "reports.deleteNotAllowed");
  }
  const deleted = await transaction(function* (tx) {
    const gone = yield* rows(tx.delete(reports).where(eq(reports.id, row.id)).returning({ id: reports.id }));
    if (gone.length === 1)
      yield* exec(
        auditInsert(tx, actor, "report.delete", "report", row.id, { by: actor.accountType }, opts.ip),
      );
    return gone.length === 1;
  });
  if (!deleted) throw new DomainError("not_found", "reports.notFound");
  // A failure here leaves an unreferenced file that sweepLeftovers() removes later.
  await deleteStored(row.fileKey).catch((err) =>
    log("error", "could not delete report file", { reportId: row.id, error: String(err?.message ?? err) }),
  );
}

export type OpenedReportFile = { stream: Readable; mimeType: string; fileName: string; size: number };

/**
 * The decrypted file for the owning Patient, an approved Expert or an Admin; records who
 * opened it ("report.file_open"). An expert awaiting approval gets "reports.awaitApprovalFile".
 */
export async function openReportFile(
  actor: Actor,
  reportId: string,
  ip?: string | null,
): Promise<OpenedReportFile> {
  const row = await findRow(reportId);
  if (!row) throw new DomainError("not_found", "reports.notFound");
  if (actor.accountType === "Patient") {
    if (row.patientId !== actor.id) throw new DomainError("forbidden", "reports.notYourReport");
  } else if (actor.accountType === "Expert") {
    if (!actor.approved) throw new DomainError("forbidden", "reports.awaitApprovalFile");
  } else if (actor.accountType !== "Admin") {
    throw new DomainError("forbidden", "reports.notYourReport");
  }
  const stream = await openDecrypted(row.fileKey);
  await audit(actor, "report.file_open", "report", row.id, null, ip);
  return { stream, mimeType: row.mimeType, fileName: row.fileName, size: row.size };
}

/**
 * The add-review screen: one report for an approved Expert (same rules as addReview: other
 * account types → forbidden "reports.onlyExperts", experts awaiting approval → forbidden
 * "reports.awaitApproval", unknown id → not_found). A report that is already reviewed is
 * returned too, so the screen can say so; its review text only to the expert who wrote it.
 */
export async function getReportForReview(actor: Actor, reportId: string): Promise<ApiReport> {
  if (actor.accountType !== "Expert") throw new DomainError("forbidden", "reports.onlyExperts");
  if (!actor.approved) throw new DomainError("forbidden", "reports.awaitApproval");
  const joined = await findJoined(reportId);
  if (!joined) throw new DomainError("not_found", "reports.notFound");
  const report = fromJoined(joined);
  if (report.status === "Reviewed" && joined.report.expertId !== actor.id) report.review = null;
  return report;
}
