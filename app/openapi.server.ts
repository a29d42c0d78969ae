import {
  extendZodWithOpenApi,
  OpenApiGeneratorV31,
  OpenAPIRegistry,
  type RouteConfig,
} from "@asteasolutions/zod-to-openapi";
import { z, type ZodTypeAny } from "zod";
import {
  changePasswordSchema,
  deleteAccountApiSchema,
  forgotSchema,
  loginCodeSchema,
  loginSchema,
  notifySchema,
  profileSchema,
  resetPasswordApiSchema,
  sendOtpSchema,
  signupApiSchema,
} from "~/schemas/auth";
import { expertDetailsSchema, rejectExpertSchema } from "~/schemas/experts";
import {
  callbackRequestObject,
  contactMessageObject,
  errorObject,
  followUpObject,
  paginationObject,
  reportObject,
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
  uploadReportSchema,
} from "~/schemas/reports";
import {
  cancelErasureSchema,
  consentChangeSchema,
  consentOverviewObject,
  correctionSchema,
  erasureSchema,
  grievanceObject,
  nomineeObject,
  nomineeSchema,
  resolveSchema,
  rightsQueueQuerySchema,
  rightsRequestObject,
} from "~/schemas/rights";
import { pageQuerySchema } from "~/utils/api.server";
import { site } from "~/site";

// Adds `.openapi()` to zod's prototypes (also for schemas created before this line).
extendZodWithOpenApi(z);

type Method = "get" | "post" | "put" | "delete";

/** One row per endpoint of the contract: the OpenAPI document and the route test are built from it. */
export type Endpoint = {
  method: Method;
  path: string;
  who: string;
  summary: string;
  auth: boolean;
  body?: ZodTypeAny;
  /** The JSON body may be left out. */
  bodyOptional?: boolean;
  multipart?: { fileField: string; fields?: ZodTypeAny; types: string };
  list?: boolean;
  query?: ZodTypeAny;
  data?: ZodTypeAny;
  status?: 200 | 201;
  errors: number[];
  binary?: boolean;
  extra?: Record<string, ZodTypeAny>;
};

const idParam = (name: string) => z.object({ [name]: z.string() });

export const ENDPOINTS: Endpoint[] = [
  {
    method: "post",
    path: "/auth/send-otp",
    who: "anyone",
    summary: "Send a 6-digit signup code: by mail to `email`, or by SMS to `phone` (E.164; patients)",
    auth: false,
    body: sendOtpSchema,
    errors: [400, 409, 429],
  },
  {
    method: "post",
    path: "/auth/signup",
    who: "anyone",
    summary:
      "Create a Patient or Expert account with the code; a patient may give `phone` (with the SMS code) instead of `email` and `contactNumber`",
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
      "Log in with `email` or `phone` and `password`, or with `phone` and an SMS `otp` from /auth/send-login-code; returns a bearer token and the user",
    auth: false,
    body: loginSchema,
    errors: [400, 401, 403, 429],
    extra: { token: z.string(), user: userObject },
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
    summary: "The signed-in user",
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
  {
    method: "delete",
    path: "/profile/delete-profile",
    who: "signed in",
    summary: "Delete the account, its reports and files; a `password`, when sent, must be the account's",
    auth: true,
    body: deleteAccountApiSchema,
    bodyOptional: true,
    errors: [400, 401, 429],
  },
  {
    method: "post",
    path: "/report/upload-report",
    who: "Patient",
    summary: "Upload a report file (pdf, png, jpeg, webp, gif; MAX_UPLOAD_MB)",
    auth: true,
    multipart: {
      fileField: "report",
      fields: uploadReportSchema.innerType(),
      types: "application/pdf, image/png, image/jpeg, image/webp, image/gif",
    },
    data: reportObject,
    status: 201,
    errors: [400, 401, 403, 413, 415],
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
      "Start reviewing a report (of experts claiming at once exactly one wins; 409 names who holds it); the claim lapses after CLAIM_TTL_MINUTES",
    auth: true,
    data: reportObject,
    errors: [401, 403, 404, 409],
  },
  {
    method: "post",
    path: "/report/release/{reportId}",
    who: "the claiming Expert, Admin",
    summary: "Give a claimed report back to the queue",
    auth: true,
    data: reportObject,
    errors: [401, 403, 404, 409],
  },
  {
    method: "post",
    path: "/report/add-review/{reportId}",
    who: "approved Expert",
    summary:
      "Add the review: `review` is the summary; findings, recommendations and seeDoctorSoon are optional (the first review wins; 409 when another expert holds the claim)",
    auth: true,
    body: reviewSchema,
    data: reportObject,
    errors: [400, 401, 403, 404, 409],
  },
  {
    method: "post",
    path: "/report/follow-up/{reportId}",
    who: "owning Patient",
    summary: "Ask a follow-up question about the opinion (FOLLOWUP_MAX within FOLLOWUP_DAYS)",
    auth: true,
    body: followUpQuestionSchema,
    data: followUpObject,
    status: 201,
    errors: [400, 401, 403, 404, 409],
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
  {
    method: "get",
    path: "/report/{reportId}/opinion.pdf",
    who: "owning Patient, reviewing Expert, Admin",
    summary: "The signed opinion letter (PDF, in the patient's language); each fetch is recorded",
    auth: true,
    binary: true,
    errors: [401, 403, 404],
  },
  {
    method: "delete",
    path: "/report/delete-report",
    who: "owning Patient, Admin",
    summary: "Delete a report and its file",
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
    who: "owning Patient, approved Expert, Admin",
    summary: "The report file, decrypted, with its real content type; each opening is recorded",
    auth: true,
    binary: true,
    errors: [401, 403, 404],
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
    summary: "Approve an expert",
    auth: true,
    body: approveExpertSchema,
    data: userObject,
    errors: [400, 401, 403, 404],
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
      "Specialties, registration number, council and years of practice (a rejected application re-enters the queue)",
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
  // Issue 14: the consent and rights centre.
  {
    method: "get",
    path: "/rights/consents",
    who: "Patient",
    summary:
      "Current consent per purpose (review, contact, statistics) with the text shown today and its version, the history, and what withdrawing review would do",
    auth: true,
    data: consentOverviewObject,
    errors: [401, 403],
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
];

/** "get /report/get-report-by-patientId/{patientId}" → "reportGetReportByPatientId". */
export function operationIdOf(e: Pick<Endpoint, "method" | "path">): string {
  const words = e.path
    .split("/")
    .filter((seg) => seg && !seg.startsWith("{"))
    .flatMap((seg) => seg.split(/[-.]/))
    .filter(Boolean);
  const id = words.map((w, i) => (i === 0 ? w : w[0].toUpperCase() + w.slice(1))).join("");
  // The file and letter downloads are the GETs without a verb in their path.
  if (e.path.endsWith("/file")) return "reportGetFile";
  if (e.path.endsWith("/opinion.pdf")) return "reportGetOpinionLetter";
  // A path with several methods (issue 14: /rights/consents, /rights/nominee) names each by its method.
  if (ENDPOINTS.some((o) => o.path === e.path && o.method !== e.method))
    return e.method + id[0].toUpperCase() + id.slice(1);
  return id;
}

const ERROR_TEXT: Record<number, string> = {
  400: "Validation failed (see `errors`)",
  401: "Missing, malformed, expired or revoked token",
  403: "Signed in but not allowed",
  404: "Unknown id or route",
  409: "Conflict (e-mail registered, report already reviewed)",
  413: "Upload too large",
  415: "File type not allowed",
  429: "Rate limited (see Retry-After)",
};

let cached: object | undefined;

/** The OpenAPI 3.1 document, generated from the same zod schemas the routes validate with. */
export function openApiDocument(): object {
  if (cached) return cached;
  const registry = new OpenAPIRegistry();
  const bearer = registry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
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
    const params = [...e.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    const request: RouteConfig["request"] = {};
    if (params.length) request.params = params.reduce((acc, p) => acc.merge(idParam(p)), z.object({}));
    if (e.list) request.query = e.query ? pageQuerySchema.merge(e.query as z.AnyZodObject) : pageQuerySchema;
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
              : { "application/pdf": { schema: z.string() }, "image/*": { schema: z.string() } },
          }
        : { description: "Success", content: { "application/json": { schema: successBody } } },
    };
    for (const code of [...e.errors, 405, 500]) {
      responses[code] = {
        description:
          ERROR_TEXT[code] ?? (code === 405 ? "Wrong method" : "Server fault (never for bad input)"),
        content: { "application/json": { schema: errorObject } },
      };
    }
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
