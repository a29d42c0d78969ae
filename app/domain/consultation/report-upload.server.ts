import { exec, transaction } from "~/db/client.server";
import { reports, type ReportRow } from "~/db/schema";
import { uploadReportSchema, type UploadReportInput } from "~/schemas/reports";
import { formSchema } from "~/schemas/strict";
import { newId } from "~/lib/ids.server";
import { log } from "~/lib/log.server";
import { auditInsert } from "../platform/index.server";
import { DomainError, zodFieldErrors } from "../platform/errors";
import { expertRecipientsFor } from "../accounts/index.server";
import { notify } from "../messaging/index.server";
import { deleteObjects, deleteStored, type StoredFile } from "../records/index.server";
import { draftObjects, insertStudy, inspectStudy, loadStudy, type StudyDraft } from "../records/index.server";
import { kickPacsSender, queueLabRead } from "../records/index.server";
import { reviewConsentForUpload } from "../rights/index.server";
import type { Actor } from "../platform/index.server";
import { hasConsentFor, patientAccess, traceAccess } from "../care/index.server";
import { toApiReport, type ApiReport } from "./api-report.server";
import { studyAsSeenBy } from "./imaging.server";

/**
 * Creating a report: who may upload and for whom, the phone number as stored, and the report
 * itself (with its study, its review consent and the experts told by mail).
 */

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

/** Deletes the stored file of an upload that failed (never a file without a row); a failure is logged. */
async function discardFile(file: StoredFile | null | undefined) {
  if (!file) return;
  await deleteStored(file.key).catch((e) =>
    log("error", "could not remove file of failed upload", { key: file.key, error: String(e) }),
  );
}

/**
 * Refuses an upload whose fields the adapter found wrong with its own, stricter reading (the upload
 * screen also requires a country code and consent): the stored file is deleted — there is never a
 * file without a row — and the field errors, with "reports.fileRequired" when no file came, are
 * thrown as createReport throws its own.
 */
export async function refuseReportUpload(
  file: StoredFile | null | undefined,
  fieldErrors: Record<string, string[]>,
): Promise<never> {
  await discardFile(file);
  throw new DomainError("invalid", "reports.uploadFailed", {
    fieldErrors: file ? fieldErrors : { ...fieldErrors, report: ["reports.fileRequired"] },
  });
}

/**
 * A patient files a report for an already stored (encrypted) file. Validates the fields
 * with the upload schema (an adapter that asks for more reads the fields with its own schema
 * first, see refuseReportUpload); a missing file is the field error "reports.fileRequired". On
 * any failure the stored file is deleted, so there is never a file without a row. On success the experts
 * whose specialties read this type (all approved experts when none does) are told by mail,
 * one message each (no medical content), and the new report is returned.
 */
export async function createReport(
  actor: Actor,
  input: UploadReportInput | Record<string, unknown>,
  file: StoredFile | null | undefined,
  opts: { ip?: string | null; consentGivenAt?: Date; patientId?: string | null } = {},
): Promise<ApiReport> {
  let row: ReportRow;
  let access: Awaited<ReturnType<typeof uploadTarget>>;
  let study: StudyDraft | null = null;
  try {
    assertCanUpload(actor);
    access = await uploadTarget(actor, opts.patientId ?? (input as Record<string, unknown>)?.patientId);
    // The fields are text (multipart or upload metadata): read as a form reads them.
    const parsed = formSchema(uploadReportSchema).safeParse(input);
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
      phraseIds: null,
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
    await discardFile(file);
    await deleteObjects(draftObjects(study));
    throw err;
  }
  if (study) kickPacsSender();
  // The report is stored (committed above): what follows — the experts' notices, the access trail —
  // must not turn that into a refusal, or a client told "try again" (a database that just went
  // away: 503) would upload it twice (decision 0060). Logged instead.
  try {
    for (const expert of await expertRecipientsFor(row.reportType)) {
      notify(expert, {
        subject: row.priority === 0 ? "mail.newUrgentReportSubject" : "mail.newReportSubject",
        body: "mail.newReportBody",
        action: "mail.newReportAction",
        path: "/dashboard/pending-report",
      });
    }
    await traceAccess(actor, access, "patient.report_upload", { reportId: row.id }, opts.ip);
    // Lab values are read off the request path (decision 0082); a failure to queue is logged only.
    if (!study) await queueLabRead(row.id, row.mimeType, actor.id);
  } catch (err) {
    log("warn", "report stored; its notices or access-trail line were not", {
      reportId: row.id,
      error: String((err as Error)?.message ?? err),
    });
  }
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
  const shown = study ? await loadStudy(row.id) : null;
  if (shown) made.study = studyAsSeenBy(actor, shown);
  return made;
}
