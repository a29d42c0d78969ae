import { config } from "~/config.server";
import type { ReportRow } from "~/db/schema";
import type { Agreement } from "~/db/types";
import type { FileView, LinkOpen } from "../platform/index.server";
import type { Study } from "../records/index.server";
import type { ApiFollowUp } from "./followups.server";
import type { ApiNextStep } from "./next-steps.server";

/**
 * The API's Report object (`ApiReport`, the contract's shape; decision 0013 added fields only) and
 * how a report row becomes one: masking for experts awaiting approval, the file and letter
 * addresses, when the review is due and whether a claim is live.
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
  /** The phrase-book entries the expert chose (decision 0081), by id, in order (GET /phrases has their texts). */
  phrases: string[];
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
  /**
   * A reviewed report's next steps (decision 0114), in the expert's order, for those who may see
   * them: the patient's side, her centre, the expert who gave the opinion. Absent for others.
   */
  nextSteps?: ApiNextStep[];
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
    phrases: phraseIdsOf(row.phraseIds),
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

/** A report's chosen phrase ids (a JSON array in the row), or none. */
export function phraseIdsOf(json: string | null): string[] {
  if (!json) return [];
  try {
    const v = JSON.parse(json) as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
  } catch {
    return [];
  }
}
