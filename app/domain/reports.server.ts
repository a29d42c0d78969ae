import type { Statement } from "better-sqlite3";
import { and, count, desc, eq, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import type { Readable } from "node:stream";
import type { z } from "zod";
import { db, sqlite } from "~/db/client.server";
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
import { audit, fileViewsForReports, type FileView } from "./audit.server";
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

function selectReports() {
  return db()
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

type Joined = Awaited<ReturnType<ReturnType<typeof selectReports>["all"]>>[number];

const byCreated = [desc(reports.createdAt), desc(sql`"reports"."rowid"`)];
const byReviewed = [desc(reports.reviewedAt), desc(sql`"reports"."rowid"`)];

/**
 * The five report lists. Each `where` + `orderBy` is a matching index prefix + its sort
 * column (see the reports_* indexes in the schema), so neither the count nor the page scans
 * the table or sorts in a temporary b-tree; rowid breaks ties within one millisecond.
 * `key` is the list's one parameter (patient id, report type, expert id).
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
    count: db().select({ n: count() }).from(reports).where(where).prepare(),
    page: selectReports()
      .where(where)
      .orderBy(...LISTS[kind].orderBy)
      .limit(sql.placeholder("limit"))
      .offset(sql.placeholder("offset"))
      .prepare(),
  };
}

/** Statements are built once per database handle (building a query costs more than running it). */
let prepared:
  | { handle: unknown; lists: Map<ListKind, ReturnType<typeof prepareList>>; version: Statement }
  | undefined;
function statements() {
  const handle = sqlite();
  if (prepared?.handle !== handle) {
    // total_changes(): rows written through this connection (the app's only one);
    // data_version: commits by any other connection (scripts, backup/restore).
    const version = handle
      .prepare("SELECT total_changes() || ':' || (SELECT data_version FROM pragma_data_version())")
      .pluck();
    prepared = { handle, lists: new Map(), version };
    counts.clear();
  }
  return prepared;
}

/**
 * Exact totals, reused while nothing at all has been written to the database: a count walks
 * every matching index entry (about 2 ms for 50,000 pending reports), the page only 20.
 */
const counts = new Map<string, number>();
let countsVersion = "";
const MAX_CACHED_COUNTS = 10_000;

function pageOf(
  kind: ListKind,
  key: string | null,
  { page, pageSize }: PageQuery,
  mask: boolean,
): Paged<ApiReport> {
  const st = statements();
  let list = st.lists.get(kind);
  if (!list) st.lists.set(kind, (list = prepareList(kind)));
  const version = st.version.get() as string;
  if (version !== countsVersion) {
    counts.clear();
    countsVersion = version;
  }
  const countKey = `${kind}:${key ?? ""}`;
  let total = counts.get(countKey);
  if (total === undefined) {
    total = list.count.get({ key })?.n ?? 0;
    if (counts.size >= MAX_CACHED_COUNTS) counts.clear();
    counts.set(countKey, total);
  }
  const rows =
    total > (page - 1) * pageSize
      ? list.page.all({ key, limit: pageSize, offset: (page - 1) * pageSize })
      : [];
  return { items: rows.map((r) => fromJoined(r, mask)), total, page, pageSize };
}

function fromJoined(r: Joined, mask = false) {
  return toApiReport(r.report, r.patient, r.expert, { mask });
}

function findJoined(reportId: string): Joined | undefined {
  if (typeof reportId !== "string" || !reportId || reportId.length > 100) return undefined;
  return selectReports().where(eq(reports.id, reportId)).get();
}

function findRow(reportId: string): ReportRow | undefined {
  if (typeof reportId !== "string" || !reportId || reportId.length > 100) return undefined;
  return db().select().from(reports).where(eq(reports.id, reportId)).get();
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
    db().transaction((tx) => {
      tx.insert(reports).values(row).run();
      audit(actor, "report.upload", "report", row.id, { mimeType: row.mimeType, size: row.size }, opts.ip);
    });
  } catch (err) {
    if (file) {
      await deleteStored(file.key).catch((e) =>
        log("error", "could not remove file of failed upload", { key: file.key, error: String(e) }),
      );
    }
    throw err;
  }
  for (const expert of approvedExpertRecipients()) {
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
export function listPatientReports(actor: Actor, patientId: string, page: PageQuery): Paged<PatientReport> {
  if (actor.accountType === "Admin") {
    const exists = db().select({ id: users.id }).from(users).where(eq(users.id, patientId)).get();
    if (!exists) throw new DomainError("not_found", "reports.patientNotFound");
  } else if (actor.accountType !== "Patient" || actor.id !== patientId) {
    throw new DomainError("forbidden", "reports.notYourReports");
  }
  const result = pageOf("patient", patientId, page, false);
  const views = fileViewsForReports(result.items.map((r) => r._id));
  return { ...result, items: result.items.map((r) => ({ ...r, fileViews: views.get(r._id) ?? [] })) };
}

/** Experts and Admins: reports waiting for a review, newest first, optionally of one type. */
export function listPendingReports(
  actor: Actor,
  page: PageQuery,
  reportType?: ReportType | null,
): Paged<ApiReport> {
  if (actor.accountType !== "Expert" && actor.accountType !== "Admin") {
    throw new DomainError("forbidden", "reports.expertsOrAdmins");
  }
  return reportType
    ? pageOf("pendingOfType", reportType, page, masksFor(actor))
    : pageOf("pending", null, page, masksFor(actor));
}

/** Expert: the reports they reviewed; Admin: every reviewed report. Newest review first. */
export function listReviewedByExpert(actor: Actor, page: PageQuery): Paged<ApiReport> {
  if (actor.accountType === "Admin") return listAllReviewed(actor, page);
  if (actor.accountType !== "Expert") throw new DomainError("forbidden", "reports.expertsOrAdmins");
  return pageOf("expert", actor.id, page, masksFor(actor));
}

/** Admin: every reviewed report with patient and expert names, newest review first. */
export function listAllReviewed(actor: Actor, page: PageQuery): Paged<ApiReport> {
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
export function addReview(
  actor: Actor,
  reportId: string,
  input: ReviewInput | Record<string, unknown>,
  opts: { ip?: string | null } = {},
): ApiReport {
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
  const won = db().transaction((tx) => {
    const changes = tx
      .update(reports)
      .set({
        status: "Reviewed",
        review: parsed.data.review,
        expertId: actor.id,
        reviewedAt: now,
        updatedAt: now,
      })
      .where(and(eq(reports.id, reportId), eq(reports.status, "Pending")))
      .run().changes;
    if (changes === 1) audit(actor, "report.review", "report", reportId, null, opts.ip);
    return changes === 1;
  });
  if (!won) {
    if (findRow(reportId)) throw new DomainError("conflict", "reports.alreadyReviewed");
    throw new DomainError("not_found", "reports.notFound");
  }
  const joined = findJoined(reportId)!;
  const patient = db()
    .select({
      email: users.email,
      firstName: users.firstName,
      locale: users.locale,
      suspendedAt: users.suspendedAt,
    })
    .from(users)
    .where(eq(users.id, joined.report.patientId))
    .get();
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
  const row = findRow(reportId);
  if (!row) throw new DomainError("not_found", "reports.notFound");
  if (actor.accountType === "Patient" && row.patientId !== actor.id) {
    throw new DomainError("forbidden", "reports.deleteNotAllowed");
  }
  const deleted = db().transaction((tx) => {
    const changes = tx.delete(reports).where(eq(reports.id, row.id)).run().changes;
    if (changes === 1) audit(actor, "report.delete", "report", row.id, { by: actor.accountType }, opts.ip);
    return changes === 1;
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
  const row = findRow(reportId);
  if (!row) throw new DomainError("not_found", "reports.notFound");
  if (actor.accountType === "Patient") {
    if (row.patientId !== actor.id) throw new DomainError("forbidden", "reports.notYourReport");
  } else if (actor.accountType === "Expert") {
    if (!actor.approved) throw new DomainError("forbidden", "reports.awaitApprovalFile");
  } else if (actor.accountType !== "Admin") {
    throw new DomainError("forbidden", "reports.notYourReport");
  }
  const stream = await openDecrypted(row.fileKey);
  audit(actor, "report.file_open", "report", row.id, null, ip);
  return { stream, mimeType: row.mimeType, fileName: row.fileName, size: row.size };
}

/**
 * The add-review screen: one report for an approved Expert (same rules as addReview: other
 * account types → forbidden "reports.onlyExperts", experts awaiting approval → forbidden
 * "reports.awaitApproval", unknown id → not_found). A report that is already reviewed is
 * returned too, so the screen can say so; its review text only to the expert who wrote it.
 */
export function getReportForReview(actor: Actor, reportId: string): ApiReport {
  if (actor.accountType !== "Expert") throw new DomainError("forbidden", "reports.onlyExperts");
  if (!actor.approved) throw new DomainError("forbidden", "reports.awaitApproval");
  const joined = findJoined(reportId);
  if (!joined) throw new DomainError("not_found", "reports.notFound");
  const report = fromJoined(joined);
  if (report.status === "Reviewed" && joined.report.expertId !== actor.id) report.review = null;
  return report;
}
