import {
  extendZodWithOpenApi,
  OpenApiGeneratorV31,
  OpenAPIRegistry,
  type RouteConfig,
} from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import {
  changePasswordSchema,
  forgotSchema,
  loginCodeSchema,
  loginSchema,
  notifySchema,
  profileSchema,
  resetPasswordApiSchema,
  sendOtpSchema,
  signupApiSchema,
} from "~/schemas/auth";
import { smsListQuerySchema } from "~/schemas/admin";
import { expertDetailsSchema, rejectExpertSchema } from "~/schemas/experts";
import {
  callbackRequestObject,
  contactMessageObject,
  errorObject,
  followUpObject,
  paginationObject,
  reportObject,
  smsMessageObject,
  studyObject,
  turnaroundObject,
  userObject,
} from "~/schemas/objects";
import {
  approveExpertSchema,
  deleteReportSchema,
  followUpAnswerSchema,
  followUpQuestionSchema,
  queueQuerySchema,
  reassignSchema,
  reportTypeFilter,
  reviewSchema,
  secondOpinionSchema,
  uploadReportSchema,
} from "~/schemas/reports";
import {
  createdShareLinkObject,
  createShareLinkSchema,
  shareLinkListQuery,
  shareLinkObject,
} from "~/schemas/share-links";
import {
  confirmTwoFactorSchema,
  loginSecondStepSchema,
  mfaTokenSchema,
  proofSchema,
  recoveryCodesObject,
  resetTwoFactorSchema,
  startTwoFactorSchema,
  turnOffTwoFactorSchema,
  twoFactorSetupObject,
  twoFactorStatusObject,
} from "~/schemas/two-factor";
import { fhirBundleObject } from "~/schemas/fhir";
import { accessTrailQuery } from "~/schemas/control";
import {
  cancelErasureSchema,
  consentChangeSchema,
  consentOverviewObject,
  correctionSchema,
  deleteProfileSchema,
  erasureSchema,
  grievanceObject,
  nomineeObject,
  nomineeSchema,
  resolveSchema,
  rightsQueueQuerySchema,
  rightsRequestObject,
} from "~/schemas/rights";
import { pageQuerySchema } from "~/web/api.server";
import { site } from "~/site";

// Adds `.openapi()` to zod's prototypes (also for schemas created before this line).
extendZodWithOpenApi(z);

export type { Endpoint } from "./openapi/endpoint";
import type { Endpoint, TusOperation } from "./openapi/endpoint";
import { CENTRE_ENDPOINTS } from "./openapi/centres";
import { REGISTRATION_ENDPOINTS } from "./openapi/registration";
import { FAMILY_ENDPOINTS } from "./openapi/family";
import { SERVICE_ENDPOINTS } from "./openapi/service";
import { STEP_ENDPOINTS } from "./openapi/steps";
import { VOICE_ENDPOINTS } from "./openapi/voice";
import { PHRASE_ENDPOINTS } from "./openapi/phrases";
import { CALL_ENDPOINTS } from "./openapi/calls";
import { REMINDER_ENDPOINTS } from "./openapi/reminders";
import { LAB_ENDPOINTS } from "./openapi/labs";
import { addIdempotencyAnswers, idempotencyHeader } from "./openapi/idempotency";
import { addHeldAnswers, HELD_ENDPOINTS } from "./openapi/held";

const tusVersion = z.literal("1.0.0").describe("The protocol version: always 1.0.0");
const uploadOffset = z
  .string()
  .regex(/^\d+$/)
  .describe("Bytes of the file the server already has: send from here (HEAD tells it)");
const TUS_RESUMABLE = { "Tus-Resumable": "Protocol version of the answer (1.0.0)" };

const idParam = (name: string) => z.object({ [name]: z.string() });

export const ENDPOINTS: Endpoint[] = [
  {
    method: "post",
    path: "/auth/send-otp",
    who: "anyone",
    summary:
      "Send a 6-digit signup code: by mail to `email`, or by SMS to `phone` (E.164; patients and health workers; a mobile number of a country in SMS_COUNTRIES). The answer is the same when the e-mail or number already has an account: its owner is told so instead of getting a code, so the endpoint does not tell who has an account",
    auth: false,
    body: sendOtpSchema,
    errors: [400, 429],
  },
  {
    method: "post",
    path: "/auth/signup",
    who: "anyone",
    summary:
      "Create a Patient, Expert or HealthWorker account with the code; a patient or health worker may give `phone` (with the SMS code) instead of `email` and `contactNumber`. A health worker names their centre (`centreId`, from GET /centres/directory), `workerRole` and `workerId`, and waits for an admin's approval",
    auth: false,
    body: signupApiSchema,
    data: userObject,
    status: 201,
    errors: [400, 409, 429],
  },
  {
    method: "post",
    path: "/auth/login",
    who: "anyone",
    summary:
      "Log in with `email` or `phone` and `password`, or with `phone` and an SMS `otp` from /auth/send-login-code; returns a bearer token and the user. For an account with two-step login the answer (still 200) has `mfaRequired: true` and an `mfaToken` instead: send it with a code to /auth/login-2fa (an admin who must set it up first also gets `mfaSetupRequired: true`: /auth/login-2fa-setup)",
    auth: false,
    body: loginSchema,
    errors: [400, 401, 403, 429],
    extra: {
      token: z.string().optional().describe("Absent when `mfaRequired` is true"),
      user: userObject.optional().describe("Absent when `mfaRequired` is true"),
      mfaRequired: z.boolean().optional().describe("Two-step login: no token yet; POST /auth/login-2fa"),
      mfaSetupRequired: z
        .boolean()
        .optional()
        .describe("An admin without an authenticator: POST /auth/login-2fa-setup first"),
      mfaToken: z.string().optional().describe("For /auth/login-2fa: valid 5 minutes, 5 tries, single use"),
      mfaExpiresAt: z.string().datetime().optional(),
    },
  },
  {
    method: "post",
    path: "/auth/login-2fa",
    who: "anyone with an mfaToken",
    summary:
      "The second step of a login: the `mfaToken` with a 6-digit `code` from the authenticator app or a `recoveryCode`; returns the token and the user as /auth/login does (and, when this step set up the authenticator, the `recoveryCodes`, shown once). A code is accepted once; 5 tries per mfaToken",
    auth: false,
    body: loginSecondStepSchema,
    errors: [400, 401, 403, 429],
    extra: {
      token: z.string(),
      user: userObject,
      recoveryCodes: z.array(z.string()).optional().describe("Only when this step set up the authenticator"),
    },
  },
  {
    method: "post",
    path: "/auth/login-2fa-setup",
    who: "an Admin with an mfaToken whose login answered `mfaSetupRequired`",
    summary:
      "The secret (text, otpauth URI and QR code) of the authenticator an admin must set up before getting a token; then POST /auth/login-2fa with its first code",
    auth: false,
    body: mfaTokenSchema,
    data: twoFactorSetupObject,
    errors: [400, 401, 409],
  },
  {
    method: "get",
    path: "/auth/two-factor/status",
    who: "signed in",
    summary:
      "Whether two-step login is on, a setup is pending, how many recovery codes are left, and whether it is required",
    auth: true,
    data: twoFactorStatusObject,
    errors: [401],
  },
  {
    method: "post",
    path: "/auth/two-factor/setup",
    who: "signed in",
    summary:
      "Start setting up two-step login after the current `password`: a new secret (replaces an unfinished setup); 409 when it is already on",
    auth: true,
    body: startTwoFactorSchema,
    data: twoFactorSetupObject,
    errors: [400, 401, 409, 429],
  },
  {
    method: "post",
    path: "/auth/two-factor/confirm",
    who: "signed in",
    summary:
      "Turn two-step login on with the current `password` and the first `code` from the app; returns 10 recovery codes (shown once). Every other session and token of the account ends",
    auth: true,
    body: confirmTwoFactorSchema,
    data: recoveryCodesObject,
    errors: [400, 401, 409, 429],
  },
  {
    method: "post",
    path: "/auth/two-factor/recovery-codes",
    who: "signed in, with two-step login on",
    summary: "New recovery codes after a `code` (or a `recoveryCode`); the old ones stop working",
    auth: true,
    body: proofSchema,
    data: recoveryCodesObject,
    errors: [400, 401, 409, 429],
  },
  {
    method: "post",
    path: "/auth/two-factor/disable",
    who: "signed in, with two-step login on (not admins while it is required)",
    summary: "Turn two-step login off with the `password` and a `code` (or a `recoveryCode`)",
    auth: true,
    body: turnOffTwoFactorSchema,
    errors: [400, 401, 403, 409, 429],
  },
  {
    method: "post",
    path: "/auth/send-login-code",
    who: "anyone",
    summary:
      "Send a 6-digit login code by SMS to an account's mobile number (same answer for unknown numbers)",
    auth: false,
    body: loginCodeSchema,
    errors: [400, 429],
  },
  {
    method: "post",
    path: "/auth/logout",
    who: "signed in",
    summary: "Revoke this token",
    auth: true,
    errors: [401],
  },
  {
    method: "post",
    path: "/auth/reset-password-token",
    who: "anyone",
    summary:
      "Mail a 15-minute reset link, or for a phone account (`phone`) send a 6-digit code by SMS (same answer for unknown e-mails and numbers)",
    auth: false,
    body: forgotSchema,
    errors: [400, 429],
  },
  {
    method: "post",
    path: "/auth/reset-password",
    who: "anyone",
    summary: "Set a new password with the reset token, or with `phone` and the SMS `otp`",
    auth: false,
    body: resetPasswordApiSchema,
    errors: [400],
  },
  {
    method: "post",
    path: "/auth/change-password",
    who: "signed in",
    summary: "Change the password; other tokens and open reset links are revoked",
    auth: true,
    body: changePasswordSchema,
    errors: [400, 401, 429],
  },
  {
    method: "get",
    path: "/profile/get-user-details",
    who: "signed in",
    summary:
      "The signed-in user; experts get their expertDetails too (a rejected expert reads rejectionReason and corrects the details with PUT /profile/update-expert-details to apply again)",
    auth: true,
    data: userObject,
    errors: [401],
  },
  {
    method: "put",
    path: "/profile/update-profile",
    who: "signed in",
    summary: "Update profile details",
    auth: true,
    body: profileSchema,
    data: userObject,
    errors: [400, 401],
    extra: { profileDetails: userObject },
  },
  {
    method: "put",
    path: "/profile/update-notifications",
    who: "Expert, Admin",
    summary: "Choose how notifications arrive: `email`, `sms` (to the contact number) or `both`",
    auth: true,
    body: notifySchema,
    data: userObject,
    errors: [400, 401, 403],
  },
  {
    method: "put",
    path: "/profile/update-display-picture",
    who: "signed in",
    summary: "Upload a display picture (png, jpeg, gif, webp; 2 MiB)",
    auth: true,
    multipart: { fileField: "displayPicture", types: "image/png, image/jpeg, image/gif, image/webp" },
    data: userObject,
    errors: [400, 401, 413, 415],
  },
  ...(["delete", "post"] as const).map(
    (method): Endpoint => ({
      method,
      path: "/profile/delete-profile",
      who: "signed in",
      summary:
        method === "delete"
          ? "Erase the account: `password` again, and `code` (or `recoveryCode`) when two-step login is on. By default after ERASURE_NOTICE_HOURS (48) with a cancel link sent by mail/SMS (202, `dueAt`); `immediate: true` erases now (200). Only pseudonymised audit events remain"
          : "The same as DELETE /profile/delete-profile, for clients that cannot send a body with DELETE",
      auth: true,
      body: deleteProfileSchema,
      data: z.object({ erased: z.literal(true), dueAt: z.null() }),
      accepted: {
        description: "Erasure requested: carried out at `dueAt` unless cancelled (link sent)",
        data: z.object({
          erased: z.literal(false),
          dueAt: z.string().datetime(),
          request: rightsRequestObject,
        }),
      },
      errors: [400, 401, 409, 429],
    }),
  ),
  {
    method: "post",
    path: "/report/upload-report",
    who: "Patient; HealthWorker (approved) for one of their centre's patients",
    summary:
      "Upload a report file (pdf, png, jpeg, webp, gif; MAX_UPLOAD_MB); `patientId` names whose report it is (a patient's own profile when left out; required for a health worker)",
    auth: true,
    multipart: {
      fileField: "report",
      fields: uploadReportSchema.innerType(),
      types: "application/pdf, image/png, image/jpeg, image/webp, image/gif",
    },
    data: reportObject,
    status: 201,
    errors: [400, 401, 403, 413, 415],
    idempotent: true,
    held: true,
  },
  {
    method: "options",
    path: "/uploads",
    who: "anyone",
    summary: "Resumable uploads (tus 1.0.0): the protocol's version, extensions and largest size",
    auth: false,
    operationId: "uploadsDiscover",
    errors: [],
    tus: {
      responses: {
        204: {
          description: "The server's tus settings",
          headers: {
            "Tus-Version": "1.0.0",
            "Tus-Extension": "creation,creation-with-upload,termination",
            "Tus-Max-Size": "MAX_UPLOAD_MB in bytes",
          },
        },
      },
    },
  },
  {
    method: "post",
    path: "/uploads",
    who: "Patient; HealthWorker (approved) for one of their centre's patients",
    summary:
      "Start a resumable upload of a report file (tus creation): Upload-Length, and the report's fields (as for upload-report, with countryCode and consent) base64 in Upload-Metadata, plus `filename`; checked before any byte is sent",
    auth: true,
    operationId: "uploadsCreate",
    idempotent: true,
    held: true,
    errors: [400, 401, 403, 412, 413, 415, 429],
    tus: {
      headers: z.object({
        "Tus-Resumable": tusVersion,
        "Upload-Length": z
          .string()
          .regex(/^\d+$/)
          .describe("The file's size in bytes (at most MAX_UPLOAD_MB)"),
        "Upload-Metadata": z
          .string()
          .describe(
            "Comma-separated `key base64(value)` pairs: reportType, countryCode, phoneNumber, description, consent, urgent, urgentReason, patientId (whose report, as for upload-report), filename",
          ),
      }),
      octetBody: true,
      responses: {
        201: {
          description:
            "Created: send the bytes to Location with PATCH. When the request body already carried the whole file (creation-with-upload), the body is the new report",
          headers: { Location: "/api/v1/uploads/{uploadId}", ...TUS_RESUMABLE },
          data: reportObject,
        },
      },
    },
  },
  {
    method: "head",
    path: "/uploads/{uploadId}",
    who: "the Patient who started it",
    summary: "How many bytes the server has (Upload-Offset): where to continue after a cut connection",
    auth: true,
    operationId: "uploadsStatus",
    errors: [401, 403, 404, 412, 423],
    tus: {
      headers: z.object({ "Tus-Resumable": tusVersion }),
      responses: {
        200: {
          description:
            "Upload-Offset equal to Upload-Length means the file is complete and the report made (423 while it is being made)",
          headers: {
            "Upload-Offset": "Bytes received",
            "Upload-Length": "The file's size",
            "Upload-Metadata": "The fields given at creation",
            ...TUS_RESUMABLE,
          },
        },
      },
    },
  },
  {
    method: "patch",
    path: "/uploads/{uploadId}",
    who: "the Patient who started it",
    summary:
      "Send bytes from Upload-Offset (a connection cut mid-request keeps what arrived); the request that completes the file gets the new report",
    auth: true,
    operationId: "uploadsAppend",
    errors: [400, 401, 403, 404, 409, 412, 413, 415, 423],
    tus: {
      headers: z.object({ "Tus-Resumable": tusVersion, "Upload-Offset": uploadOffset }),
      octetBody: true,
      responses: {
        200: {
          description: "The file is complete: the new report",
          headers: { "Upload-Offset": "The file's size", ...TUS_RESUMABLE },
          data: reportObject,
        },
        204: {
          description: "Stored; more bytes expected (or the file was completed earlier)",
          headers: { "Upload-Offset": "Bytes received", ...TUS_RESUMABLE },
        },
      },
    },
  },
  {
    method: "delete",
    path: "/uploads/{uploadId}",
    who: "the Patient who started it",
    summary: "End an upload (tus termination): its stored bytes are deleted",
    auth: true,
    operationId: "uploadsTerminate",
    errors: [401, 403, 404, 412],
    tus: {
      headers: z.object({ "Tus-Resumable": tusVersion }),
      responses: { 204: { description: "Ended", headers: TUS_RESUMABLE } },
    },
  },
  {
    method: "get",
    path: "/report/get-report-by-patientId/{patientId}",
    who: "that Patient, Admin",
    summary: "A patient's reports, newest first",
    auth: true,
    list: true,
    data: reportObject,
    errors: [400, 401, 403, 404],
  },
  {
    method: "get",
    path: "/report/get-report-by-expertId",
    who: "Expert (own reviews), Admin (all reviewed)",
    summary: "Reviewed reports",
    auth: true,
    list: true,
    data: reportObject,
    errors: [400, 401, 403],
  },
  {
    method: "get",
    path: "/report/get-pending-reports",
    who: "Expert, Admin",
    summary: "Pending reports (patient, description and file name masked for unapproved experts)",
    auth: true,
    list: true,
    query: z.object({ reportType: reportTypeFilter }).merge(queueQuerySchema),
    data: reportObject,
    errors: [400, 401, 403],
  },
  {
    method: "post",
    path: "/report/claim/{reportId}",
    who: "approved Expert",
    summary:
      "Start reviewing a report (of experts claiming at once exactly one wins; 409 names who holds it); the claim lapses after CLAIM_TTL_MINUTES. Claiming one's own claim again renews it, at most CLAIM_RENEW_MAX times; an expert holds at most CLAIM_MAX live claims; the expert whose claim ended (released or lapsed) may claim that report again one claim period after it ended, or at once once another expert has claimed it (409 for each of these). 403 for an expert without a registration number, who cannot sign",
    auth: true,
    data: reportObject,
    errors: [401, 403, 404, 409],
  },
  {
    method: "post",
    path: "/report/release/{reportId}",
    who: "the claiming Expert, Admin",
    summary:
      "Give a claimed report back to the queue (the claim ends now; the expert who held it waits one claim period before claiming it again, unless another expert claims it first)",
    auth: true,
    data: reportObject,
    errors: [401, 403, 404, 409],
  },
  {
    method: "post",
    path: "/report/add-review/{reportId}",
    who: "approved Expert",
    summary:
      "Add the review: `review` is the summary; findings, recommendations, seeDoctorSoon and `phrases` (ids from GET /phrases, at most 12: sentences the patient reads and hears in her language) are optional; `nextSteps` (at most 8: repeat tests by LOINC code in N days or weeks, a specialist or a facility, today, this week or within N weeks) are signed with it and returned as the report's `nextSteps`; `agreement` and `agreementReason` are required for a second opinion and refused for a first (the first review wins; 409 when another expert holds the claim; 403 for an expert without a registration number, which the letter prints — add it with update-expert-details, which sends the account back to admin review)",
    auth: true,
    body: reviewSchema,
    data: reportObject,
    errors: [400, 401, 403, 404, 409],
  },
  {
    method: "post",
    path: "/report/second-opinion/{reportId}",
    operationId: "reportRequestSecondOpinion",
    who: "the Expert reviewing or who reviewed the report, Admin",
    summary:
      "Ask for a second opinion from another specialty, with a note for its expert: a new report of the case (`secondOf`), routed to that specialty's experts like a new report (urgency copied). 400 for the same specialty as the first opinion's or one without an approved expert; 409 while a request to that specialty is open. Its expert sees the first opinion (`firstOpinion`) and must give `agreement` and `agreementReason` with the review",
    auth: true,
    body: secondOpinionSchema,
    data: reportObject,
    status: 201,
    errors: [400, 401, 403, 404, 409],
  },
  {
    method: "post",
    path: "/report/follow-up/{reportId}",
    who: "owning Patient, or a family manager or centre health worker acting for the profile",
    summary: "Ask a follow-up question about the opinion (FOLLOWUP_MAX within FOLLOWUP_DAYS)",
    auth: true,
    body: followUpQuestionSchema,
    data: followUpObject,
    status: 201,
    errors: [400, 401, 403, 404, 409],
    idempotent: true,
    held: true,
  },
  {
    method: "post",
    path: "/report/follow-up-answer/{followUpId}",
    who: "the Expert holding the report's follow-ups",
    summary: "Answer a follow-up question (once)",
    auth: true,
    body: followUpAnswerSchema,
    data: followUpObject,
    errors: [400, 401, 403, 404, 409],
  },
  {
    method: "post",
    path: "/report/reassign-follow-ups/{reportId}",
    who: "Admin",
    summary: "Another approved expert takes over a reviewed report's follow-up questions",
    auth: true,
    body: reassignSchema,
    errors: [400, 401, 403, 404, 409],
  },
  {
    method: "get",
    path: "/report/get-follow-ups",
    who: "approved Expert",
    summary: "Reviewed reports whose follow-up questions this expert holds, with the threads",
    auth: true,
    list: true,
    data: reportObject,
    errors: [400, 401, 403],
  },
  // Sharing links for the patient's local doctor (decision 0016). Listed before the
  // `/report/{reportId}/…` paths, which redocly would otherwise call ambiguous with `{linkId}`.
  {
    method: "get",
    path: "/report/share-links",
    who: "Patient (own links)",
    summary:
      "The patient's sharing links, newest first (optionally `reportId`): parts, expiry, passcode or not, opens and status; never the URL",
    auth: true,
    list: true,
    query: shareLinkListQuery,
    data: shareLinkObject,
    errors: [400, 401, 403],
  },
  {
    method: "post",
    path: "/report/share-links",
    who: "owning Patient",
    summary:
      "Share one report with a doctor who has no account: a link (returned as `url`, this once) that expires after `expiresInDays` (1–30, default 7), may need a `passcode` (told separately) and may allow at most `maxOpens` opens; the opinion and letter parts show once the report is reviewed",
    auth: true,
    body: createShareLinkSchema,
    data: createdShareLinkObject,
    status: 201,
    errors: [400, 401, 403, 404, 409],
  },
  {
    method: "delete",
    path: "/report/share-links/{linkId}",
    who: "owning Patient",
    summary: "Revoke a sharing link: it opens nothing from now on (revoking again answers the same)",
    auth: true,
    data: shareLinkObject,
    errors: [401, 403, 404],
  },
  {
    method: "get",
    path: "/report/{reportId}/opinion.pdf",
    who: "owning Patient, a family manager or centre health worker acting for the profile, reviewing Expert, Admin",
    summary: "The signed opinion letter (PDF, in the patient's language); each fetch is recorded",
    auth: true,
    binary: true,
    errors: [401, 403, 404],
  },
  {
    method: "delete",
    path: "/report/delete-report",
    who: "owning Patient, Admin",
    summary:
      "Delete a report and its file. A profile taken over less than 72 hours ago (or whose take-over was reported) deletes nothing until an admin has reviewed the take-over (403 with the hours left)",
    auth: true,
    body: deleteReportSchema,
    errors: [400, 401, 403, 404],
  },
  {
    method: "get",
    path: "/report/get-all-reviewed-reports",
    who: "Admin",
    summary: "All reviewed reports with patient and expert names",
    auth: true,
    list: true,
    data: reportObject,
    errors: [400, 401, 403],
  },
  {
    method: "get",
    path: "/report/{reportId}/file",
    who: "owning Patient, Admin, approved Expert (any while pending; once reviewed its reviewer, claimant or follow-up expert)",
    summary:
      "The report file, decrypted, with its real content type; each opening is recorded, and so is each refused opening (403) by anyone signed in",
    auth: true,
    binary: true,
    errors: [401, 403, 404],
  },
  {
    method: "get",
    path: "/report/{reportId}/study",
    who: "those who may open the report's file",
    summary:
      "Medical images: the study's metadata, the personal fields its files carry, series and instances, the PACS hand-off; each opening is recorded (404 when the file is not images)",
    auth: true,
    data: studyObject,
    errors: [401, 403, 404],
  },
  {
    method: "get",
    path: "/report/{reportId}/study/frames/{instance}/{frame}.png",
    who: "those who may open the report's file",
    summary:
      "One frame (from 0) of one instance rendered as PNG on the server with a window preset (default: the file's own); cached, recorded",
    auth: true,
    query: z.object({
      preset: z.enum(["default", "lung", "bone", "soft", "brain"]).optional(),
    }),
    content: { description: "The frame as PNG", types: { "image/png": z.string().describe("binary") } },
    errors: [400, 401, 403, 404, 413, 415, 429],
  },
  {
    method: "get",
    path: "/expert/get-pending-expert",
    who: "Admin",
    summary: "Experts waiting for approval",
    auth: true,
    list: true,
    data: userObject,
    errors: [400, 401, 403],
  },
  {
    method: "post",
    path: "/expert/approve-expert",
    who: "Admin",
    summary: "Approve an expert (409 when the expert has given no registration number)",
    auth: true,
    body: approveExpertSchema,
    data: userObject,
    errors: [400, 401, 403, 404, 409],
  },
  {
    method: "post",
    path: "/expert/reject-expert",
    who: "Admin",
    summary: "Decline an expert's application with a reason (the expert is told by mail)",
    auth: true,
    body: rejectExpertSchema,
    data: userObject,
    errors: [400, 401, 403, 404, 409],
  },
  {
    method: "put",
    path: "/profile/update-expert-details",
    who: "Expert",
    summary:
      "Specialties, registration number, council and years of practice (a rejected application re-enters the queue; changing the registration number or council sends an approved expert back to admin review, live claims released, letters already signed unchanged)",
    auth: true,
    body: expertDetailsSchema,
    data: userObject,
    errors: [400, 401, 403],
  },
  {
    method: "get",
    path: "/admin/turnaround",
    who: "Admin",
    summary:
      "Queue counts, median and 90th-percentile time to opinion (30 days), per expert, and the overdue list",
    auth: true,
    data: turnaroundObject,
    errors: [401, 403],
  },
  {
    method: "get",
    path: "/expert/get-approved-expert",
    who: "Expert, Admin",
    summary:
      "Approved experts (experts see name, picture and about; e-mail, phone, gender, birth date empty)",
    auth: true,
    list: true,
    data: userObject,
    errors: [400, 401, 403],
  },
  {
    method: "get",
    path: "/admin/get-contact-messages",
    who: "Admin",
    summary: "Messages sent through Contact Us, newest first",
    auth: true,
    list: true,
    data: contactMessageObject,
    errors: [400, 401, 403],
  },
  {
    method: "get",
    path: "/admin/get-callback-requests",
    who: "Admin",
    summary: "Callback requests from the home page, newest first",
    auth: true,
    list: true,
    data: callbackRequestObject,
    errors: [400, 401, 403],
  },
  // The patient's data as FHIR R4, and "Download my data" (decision 0018).
  {
    method: "get",
    path: "/fhir/Patient/{id}/$everything",
    who: "that Patient, a family manager or centre health worker acting for the profile, Admin (any patient)",
    summary:
      "Everything about a patient as a FHIR R4 collection Bundle: Patient, DocumentReference (reports; the file by URL), DiagnosticReport (opinions; the letter PDF in presentedForm), Practitioner (registration number), Communication (follow-ups), Consent, AuditEvent (file openings and exports). Audited and rate-limited",
    auth: true,
    content: {
      description: "The Bundle (application/fhir+json; fhirVersion=4.0)",
      types: { "application/fhir+json": fhirBundleObject },
    },
    errors: [401, 403, 404, 429],
  },
  {
    method: "get",
    path: "/profile/download-my-data",
    who: "Patient (own data)",
    summary:
      "Download my data: a ZIP, streamed, with the FHIR R4 Bundle (fhir-bundle.json; its attachment URLs are paths inside the ZIP, with size and SHA-1), the original files and the opinion letters. Audited and rate-limited",
    auth: true,
    content: {
      description: "The ZIP file (attachment carebridge-my-data-YYYY-MM-DD.zip)",
      types: { "application/zip": z.string().describe("binary") },
    },
    errors: [401, 403, 429],
  },
  {
    method: "post",
    path: "/admin/reset-2fa",
    who: "Admin (not for their own account)",
    summary:
      "Remove another account's second factor (authenticator and recovery codes): the owner logs in with the password alone (an admin is asked to set one up again) and every session and token of the account ends; recorded in the audit trail, the owner is told. For another admin, the acting admin sends their own `password` and `code` (or `recoveryCode`) first",
    auth: true,
    body: resetTwoFactorSchema,
    data: userObject,
    errors: [400, 401, 403, 404, 409, 429],
  },
  {
    method: "get",
    path: "/admin/get-sms-messages",
    who: "Admin",
    summary:
      "Outgoing SMS, newest first: masked number, purpose, status, attempts, last error — never the text (`?status=failed`: the ones that could not be sent)",
    auth: true,
    list: true,
    query: smsListQuerySchema,
    data: smsMessageObject,
    errors: [400, 401, 403],
  },
  // The consent and rights centre (decision 0019).
  {
    method: "get",
    path: "/rights/consents",
    who: "Patient",
    summary:
      "Current consent per purpose (review, contact, statistics) with the text shown today and its version, the history, what withdrawing review would do, and the consents given for the profile by others (`profileConsents`: facilitated at a centre with its method and witness, a guardian's). With `patientId`, a family member's profile the caller manages: its `profileConsents` and report counts only",
    auth: true,
    query: accessTrailQuery,
    data: consentOverviewObject,
    errors: [400, 401, 403],
  },
  {
    method: "post",
    path: "/rights/consents",
    who: "Patient",
    summary:
      "Give or withdraw one purpose's consent (appended to the history). Withdrawing review deletes every report still waiting for a review, with its file; reviewed reports stay; uploading again needs `consent`",
    auth: true,
    body: consentChangeSchema,
    data: consentOverviewObject,
    errors: [400, 401, 403],
  },
  {
    method: "get",
    path: "/rights/requests",
    who: "signed in",
    summary: "The person's correction and erasure requests with the admins' answers, newest first",
    auth: true,
    data: z.array(rightsRequestObject),
    errors: [401],
  },
  {
    method: "post",
    path: "/rights/correction-requests",
    who: "signed in",
    summary: "Ask admins to correct one's data (free text; a few open at once)",
    auth: true,
    body: correctionSchema,
    data: rightsRequestObject,
    status: 201,
    errors: [400, 401, 409],
  },
  {
    method: "post",
    path: "/rights/erasure",
    who: "signed in",
    summary:
      "Ask for the account and its data to be erased after ERASURE_NOTICE_HOURS (48); the password again; a link to cancel is sent by mail/SMS",
    auth: true,
    body: erasureSchema,
    data: rightsRequestObject,
    status: 201,
    errors: [400, 401, 409, 429],
  },
  {
    method: "post",
    path: "/rights/erasure/cancel",
    who: "signed in (own request), or anyone with the `token` of the cancel link",
    summary: "Cancel an open erasure (a link works once)",
    auth: false,
    body: cancelErasureSchema,
    bodyOptional: true,
    data: rightsRequestObject,
    errors: [400, 401, 404],
  },
  {
    method: "get",
    path: "/rights/nominee",
    who: "signed in",
    summary: "The person's nominee, or null",
    auth: true,
    data: nomineeObject.nullable(),
    errors: [401],
  },
  {
    method: "put",
    path: "/rights/nominee",
    who: "signed in",
    summary: "Name or change the nominee (name, relationship, phone or e-mail)",
    auth: true,
    body: nomineeSchema,
    data: nomineeObject,
    errors: [400, 401],
  },
  {
    method: "delete",
    path: "/rights/nominee",
    who: "signed in",
    summary: "Remove the nominee",
    auth: true,
    errors: [401, 404],
  },
  {
    method: "get",
    path: "/rights/grievance-contact",
    who: "anyone",
    summary: "The grievance officer (name, e-mail, phone) from the site configuration",
    auth: false,
    data: grievanceObject,
    errors: [],
  },
  {
    method: "get",
    path: "/admin/rights-requests",
    who: "Admin",
    summary:
      "Correction and erasure requests, newest first; `status` (open by default, or all) and `type` filter",
    auth: true,
    list: true,
    query: rightsQueueQuerySchema,
    data: rightsRequestObject,
    errors: [400, 401, 403],
  },
  {
    method: "post",
    path: "/admin/rights-requests/{requestId}/resolve",
    who: "Admin",
    summary:
      "Answer an open request: a correction `done` or `rejected`, an erasure only `rejected` (due erasures are carried out by the job); the person is told",
    auth: true,
    body: resolveSchema,
    data: rightsRequestObject,
    errors: [400, 401, 403, 404, 409],
  },
  {
    method: "get",
    path: "/openapi.json",
    who: "anyone",
    summary: "This OpenAPI 3.1 document",
    auth: false,
    errors: [],
  },
  ...CENTRE_ENDPOINTS,
  ...HELD_ENDPOINTS,
  ...REGISTRATION_ENDPOINTS,
  ...FAMILY_ENDPOINTS,
  ...SERVICE_ENDPOINTS,
  ...STEP_ENDPOINTS,
  ...VOICE_ENDPOINTS,
  ...PHRASE_ENDPOINTS,
  ...CALL_ENDPOINTS,
  ...LAB_ENDPOINTS,
  ...REMINDER_ENDPOINTS,
];

/** "get /report/get-report-by-patientId/{patientId}" → "reportGetReportByPatientId". */
export function operationIdOf(e: Pick<Endpoint, "method" | "path" | "operationId">): string {
  if (e.operationId) return e.operationId;
  const words = e.path
    .split("/")
    .filter((seg) => seg && !seg.startsWith("{"))
    .flatMap((seg) => seg.split(/[-.$]/))
    .filter(Boolean);
  const id = words.map((w, i) => (i === 0 ? w : w[0].toUpperCase() + w.slice(1))).join("");
  // The file and letter downloads are the GETs without a verb in their path.
  if (e.path.endsWith("/file")) return "reportGetFile";
  // Sharing links: one resource, so the method names the operation.
  if (e.path.startsWith("/report/share-links"))
    return { get: "reportListShareLinks", post: "reportCreateShareLink", delete: "reportRevokeShareLink" }[
      e.method as "get" | "post" | "delete"
    ];
  if (e.path.endsWith("/opinion.pdf")) return "reportGetOpinionLetter";
  // A path with several methods (/rights/consents, /rights/nominee) names each by its method.
  if (ENDPOINTS.some((o) => o.path === e.path && o.method !== e.method))
    return e.method + id[0].toUpperCase() + id.slice(1);
  return id;
}

const ERROR_TEXT: Record<number, string> = {
  400: "Validation failed (see `errors`)",
  401: "Missing, malformed, expired or revoked token",
  403: "Signed in but not allowed",
  404: "Unknown id or route",
  409: "Conflict (e-mail registered, report already reviewed, upload offset not the server's)",
  412: "Tus-Resumable: 1.0.0 missing",
  413: "Upload too large",
  415: "File type not allowed",
  423: "The upload is busy (its report is being made): ask again shortly",
  429: "Rate limited (see Retry-After)",
  503: "The database or the file store cannot be reached now (nothing was stored), or a code to be sent by e-mail could not be sent (no code was made): send the same request again after Retry-After seconds",
  507: "The server is out of space: nothing was stored",
};

/**
 * What any operation may answer besides its own refusals: a wrong method, a fault of ours, a part
 * that is down (503) and, for one that stores something, a full disk (507), decision 0060.
 */
function commonErrors(method: string): number[] {
  return method === "get" || method === "head" || method === "delete"
    ? [405, 500, 503]
    : [405, 500, 503, 507];
}

const RETRY_AFTER = {
  "Retry-After": {
    description: "Seconds to wait before sending it again",
    schema: { type: "string" as const },
  },
};

let cached: object | undefined;

/** The OpenAPI operation of a tus endpoint: header parameters, octet-stream body, header answers. */
function tusPath(e: Endpoint & { tus: TusOperation }, bearerName: string): RouteConfig {
  const params = [...e.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
  const request: RouteConfig["request"] = {};
  if (params.length) request.params = params.reduce((acc, p) => acc.merge(idParam(p)), z.object({}));
  if (e.tus.headers) request.headers = e.idempotent ? e.tus.headers.merge(idempotencyHeader) : e.tus.headers;
  if (e.tus.octetBody) {
    request.body = {
      content: {
        "application/offset+octet-stream": {
          schema: z.string().describe("binary: the file's bytes from Upload-Offset"),
        },
      },
      required: e.method === "patch",
    };
  }
  const responses: RouteConfig["responses"] = {};
  for (const [code, r] of Object.entries(e.tus.responses)) {
    responses[code] = {
      description: r.description,
      ...(r.headers
        ? {
            headers: Object.fromEntries(
              Object.entries(r.headers).map(([name, description]) => [
                name,
                { description, schema: { type: "string" } },
              ]),
            ),
          }
        : {}),
      ...(r.data
        ? {
            content: {
              "application/json": {
                schema: z.object({ success: z.literal(true), message: z.string(), data: r.data }),
              },
            },
          }
        : {}),
    };
  }
  for (const code of [...e.errors, ...commonErrors(e.method)]) {
    responses[code] = {
      description: ERROR_TEXT[code] ?? (code === 405 ? "Wrong method" : "Server fault (never for bad input)"),
      ...(code === 503 || code === 429 ? { headers: RETRY_AFTER } : {}),
      // An answer to HEAD has no body.
      ...(e.method === "head" ? {} : { content: { "application/json": { schema: errorObject } } }),
    };
  }
  if (e.idempotent) addIdempotencyAnswers(responses, errorObject, RETRY_AFTER);
  if (e.held) addHeldAnswers(request, responses, errorObject);
  return {
    method: e.method,
    path: e.path,
    operationId: operationIdOf(e),
    summary: e.summary,
    description: `Who: ${e.who}. Resumable upload, tus 1.0.0 (https://tus.io/protocols/resumable-upload).`,
    tags: [e.path.split("/")[1]],
    security: e.auth ? [{ [bearerName]: [] }] : [],
    request,
    responses,
  };
}

/** The OpenAPI 3.1 document, generated from the same zod schemas the routes validate with. */
export function openApiDocument(): object {
  if (cached) return cached;
  const registry = new OpenAPIRegistry();
  const bearer = registry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    // The app's own offline outbox (decision 0063) is the one exception, not meant for other clients.
    description:
      "The token from /auth/login (or signup). The app's own offline outbox instead sends the browser's session cookie (`cb_session`) with the header `X-CareBridge-Outbox: 1`: the cookie is accepted in place of a bearer token only when the request has no Authorization header, carries that header and the browser marked it `Sec-Fetch-Site: same-origin`; otherwise it is ignored (401). Another site cannot use it: a page cannot set Sec-Fetch-Site, a cross-origin request with a custom header needs a CORS preflight this API never grants, and cross-site writes are refused (403) before any route runs.",
  });
  for (const e of ENDPOINTS) {
    if (e.path === "/openapi.json") {
      registry.registerPath({
        method: "get",
        path: e.path,
        operationId: operationIdOf(e),
        summary: e.summary,
        description: `Who: ${e.who}.`,
        security: [],
        responses: {
          200: {
            description: "The document",
            content: { "application/json": { schema: z.object({ openapi: z.string() }).passthrough() } },
          },
          405: { description: "Wrong method", content: { "application/json": { schema: errorObject } } },
        },
      });
      continue;
    }
    if (e.tus) {
      registry.registerPath(tusPath({ ...e, tus: e.tus }, bearer.name));
      continue;
    }
    const params = [...e.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    const request: RouteConfig["request"] = {};
    if (params.length) request.params = params.reduce((acc, p) => acc.merge(idParam(p)), z.object({}));
    if (e.list) request.query = e.query ? pageQuerySchema.merge(e.query as z.AnyZodObject) : pageQuerySchema;
    else if (e.query) request.query = e.query as z.AnyZodObject;
    if (e.idempotent) request.headers = idempotencyHeader;
    if (e.body)
      request.body = { content: { "application/json": { schema: e.body } }, required: !e.bodyOptional };
    if (e.multipart) {
      const fileShape = z.object({
        [e.multipart.fileField]: z.string().describe(`binary; ${e.multipart.types}`),
      });
      const schema = e.multipart.fields ? (e.multipart.fields as z.AnyZodObject).merge(fileShape) : fileShape;
      request.body = { content: { "multipart/form-data": { schema } }, required: true };
    }
    const successBody = z.object({
      success: z.literal(true),
      message: z.string(),
      ...(e.data ? { data: e.list ? z.array(e.data) : e.data } : {}),
      ...(e.list ? { pagination: paginationObject } : {}),
      ...(e.extra ?? {}),
    });
    const responses: RouteConfig["responses"] = {
      [e.status ?? 200]: e.binary
        ? {
            description: "The file bytes",
            content: e.path.endsWith(".pdf")
              ? { "application/pdf": { schema: z.string() } }
              : e.path.endsWith("/audio")
                ? { "audio/*": { schema: z.string() } }
                : { "application/pdf": { schema: z.string() }, "image/*": { schema: z.string() } },
          }
        : { description: "Success", content: { "application/json": { schema: successBody } } },
    };
    if (e.accepted) {
      responses[202] = {
        description: e.accepted.description,
        content: {
          "application/json": {
            schema: z.object({ success: z.literal(true), message: z.string(), data: e.accepted.data }),
          },
        },
      };
    }
    if (e.content) {
      responses[e.status ?? 200] = {
        description: e.content.description,
        content: Object.fromEntries(Object.entries(e.content.types).map(([k, schema]) => [k, { schema }])),
      };
    }
    for (const code of [...e.errors, ...commonErrors(e.method)]) {
      responses[code] =
        code === 416
          ? {
              // RFC 9110: an empty body, and the size to ask within.
              description: "Range Not Satisfiable: the Range starts beyond the end of the file; no body",
              headers: {
                "Content-Range": { description: "`bytes */<size>`", schema: { type: "string" } },
              },
            }
          : {
              description:
                ERROR_TEXT[code] ?? (code === 405 ? "Wrong method" : "Server fault (never for bad input)"),
              ...(code === 503 || code === 429 ? { headers: RETRY_AFTER } : {}),
              content: { "application/json": { schema: errorObject } },
            };
    }
    if (e.idempotent) addIdempotencyAnswers(responses, errorObject, RETRY_AFTER);
    if (e.held) addHeldAnswers(request, responses, errorObject);
    registry.registerPath({
      method: e.method,
      path: e.path,
      operationId: operationIdOf(e),
      summary: e.summary,
      description: `Who: ${e.who}.`,
      tags: [e.path.split("/")[1]],
      // Public operations say so explicitly (no top-level default applies to them).
      security: e.auth ? [{ [bearer.name]: [] }] : [],
      request,
      responses,
    });
  }
  const generator = new OpenApiGeneratorV31(registry.definitions);
  cached = generator.generateDocument({
    openapi: "3.1.0",
    info: {
      title: `${site.productName} API`,
      version: "1.0.0",
      description: "Second opinions on medical reports. Every response has `success` and `message`.",
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    servers: [{ url: "/api/v1" }],
  });
  return cached;
}
