import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi, strongPassword } from "../helpers/api";
import { samplePdf, uploadForm } from "../helpers/files";
import { Browserish, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/**
 * The authorization matrix: every /api/v1 endpoint and every dashboard route × every kind of
 * visitor → the expected outcome. One readable table; a change in who may do what fails here.
 */
type Role = "anon" | "patient" | "otherPatient" | "unapproved" | "expert" | "admin";
const ROLES: Role[] = ["anon", "patient", "otherPatient", "unapproved", "expert", "admin"];

// Placeholders: :own = the patient's id, :report = the patient's report, :pending = another pending report.
// Codes: numbers are HTTP statuses (a 403 screen is the dashboard saying why, a 404 the not-found page); "login" = redirect to /login; "home" = redirect to /dashboard/home.
type Row = { route: string; body?: (role: string) => unknown } & Record<Role, number | "login">;

const API: Row[] = [
  //                                                                  anon patient other unappr expert admin
  {
    route: "GET /profile/get-user-details",
    anon: 401,
    patient: 200,
    otherPatient: 200,
    unapproved: 200,
    expert: 200,
    admin: 200,
  },
  {
    route: "GET /report/get-report-by-patientId/:own",
    anon: 401,
    patient: 200,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 200,
  },
  {
    route: "GET /report/get-report-by-expertId",
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 200,
    expert: 200,
    admin: 200,
  },
  {
    route: "GET /report/get-pending-reports",
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 200,
    expert: 200,
    admin: 200,
  },
  {
    route: "GET /report/get-all-reviewed-reports",
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 200,
  },
  {
    route: "GET /report/:report/file",
    anon: 401,
    patient: 200,
    otherPatient: 403,
    unapproved: 403,
    expert: 200,
    admin: 200,
  },
  // A page of the PDF rendered (where a lab value was read, decision 0084): the file's rule.
  {
    route: "GET /report/:report/pages/1",
    anon: 401,
    patient: 200,
    otherPatient: 403,
    unapproved: 403,
    expert: 200,
    admin: 200,
  },
  // Voice notes and medical images follow the report file's rule (decisions 0037, 0039).
  {
    route: "GET /voice-notes?reportId=:report",
    anon: 401,
    patient: 200,
    otherPatient: 403,
    unapproved: 403,
    expert: 200,
    admin: 200,
  },
  // Lab values (decision 0084): the patient's side sees checked values only (none before the
  // opinion); experts see them only while holding the report, and only its holder checks them.
  {
    route: "GET /report/:report/observations",
    anon: 401,
    patient: 200,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 200,
  },
  {
    route: "POST /report/:report/observations",
    body: () => ({ loinc: "718-7", value: 9.8, unit: "g/dL" }),
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 403,
  },
  {
    // Confirm all (decision 0090): only the expert holding the report, whose values they are.
    route: "POST /report/:report/observations/confirm",
    body: () => ({ valueIds: ["none"] }),
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 403,
  },
  {
    route: "PATCH /report/:report/observations/none",
    body: () => ({ action: "confirm" }),
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 403,
  },
  {
    // The patient's report is a PDF: those who may open it learn it has no study.
    route: "GET /report/:report/study",
    anon: 401,
    patient: 404,
    otherPatient: 403,
    unapproved: 403,
    expert: 404,
    admin: 404,
  },
  {
    // Only the expert holding or who wrote the first opinion, or an admin (whose empty body is then refused).
    route: "POST /report/second-opinion/:report",
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 400,
  },
  {
    route: "POST /report/add-review/:pending",
    body: () => ({ review: "ok" }),
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 403,
    expert: 200,
    admin: 403,
  },
  // Where an opinion's next step stands (decision 0114): her side and the expert who asked; anyone
  // else gets the unknown step's answer.
  {
    route: "POST /steps/:step/state",
    body: () => ({ state: "done" }),
    anon: 401,
    patient: 200,
    otherPatient: 404,
    unapproved: 404,
    expert: 200,
    admin: 404,
  },
  {
    route: "DELETE /report/delete-report",
    body: () => ({ reportId: ids.report }),
    anon: 401,
    patient: 200,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 200,
  },
  {
    route: "POST /report/upload-report",
    anon: 401,
    patient: 201,
    otherPatient: 201,
    unapproved: 403,
    expert: 403,
    admin: 403,
  },
  // Resumable uploads (tus): only the patient who started one may see, continue or end it.
  {
    route: "OPTIONS /uploads",
    anon: 204,
    patient: 204,
    otherPatient: 204,
    unapproved: 204,
    expert: 204,
    admin: 204,
  },
  {
    route: "POST /uploads",
    anon: 401,
    patient: 201,
    otherPatient: 201,
    unapproved: 403,
    expert: 403,
    admin: 403,
  },
  {
    route: "HEAD /uploads/:upload",
    anon: 401,
    patient: 200,
    otherPatient: 404,
    unapproved: 403,
    expert: 403,
    admin: 403,
  },
  {
    route: "PATCH /uploads/:upload",
    anon: 401,
    patient: 204,
    otherPatient: 404,
    unapproved: 403,
    expert: 403,
    admin: 403,
  },
  {
    route: "DELETE /uploads/:upload",
    anon: 401,
    patient: 204,
    otherPatient: 404,
    unapproved: 403,
    expert: 403,
    admin: 403,
  },
  {
    route: "GET /expert/get-pending-expert",
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 200,
  },
  {
    route: "POST /expert/approve-expert",
    body: () => ({ expertId: ids.expert }),
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 200,
  },
  {
    route: "GET /admin/get-contact-messages",
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 200,
  },
  {
    route: "GET /admin/get-callback-requests",
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 200,
  },
  // Phone calls and the phrase book (decisions 0080, 0081).
  {
    route: "GET /admin/phone-calls",
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 200,
  },
  {
    route: "GET /phrases",
    anon: 401,
    patient: 200,
    otherPatient: 200,
    unapproved: 200,
    expert: 200,
    admin: 200,
  },
  {
    // Only whoever acts for the profile; anyone else (an admin too) is told it is not there.
    route: "GET /patients/:own/notice",
    anon: 401,
    patient: 200,
    otherPatient: 404,
    unapproved: 404,
    expert: 404,
    admin: 404,
  },
  {
    route: "PUT /patients/:own/notice",
    body: () => ({ noticeBy: "sms", callWindow: "evening" }),
    anon: 401,
    patient: 200,
    otherPatient: 404,
    unapproved: 404,
    expert: 404,
    admin: 404,
  },
  // Next steps' reminders (decision 0114): her own preferences (an account without a profile of
  // its own, or acting for one it may not, is told the profile is not there); a step or a report
  // anyone else may not see is not there either.
  {
    route: "GET /profile/reminders",
    anon: 401,
    patient: 200,
    otherPatient: 200,
    unapproved: 404,
    expert: 404,
    admin: 404,
  },
  {
    route: "GET /profile/reminders?patientId=:own",
    anon: 401,
    patient: 200,
    otherPatient: 404,
    unapproved: 404,
    expert: 404,
    admin: 404,
  },
  {
    route: "PUT /profile/reminders?patientId=:own",
    body: () => ({ remindBy: "none", remindHour: 9 }),
    anon: 401,
    patient: 200,
    otherPatient: 404,
    unapproved: 404,
    expert: 404,
    admin: 404,
  },
  {
    route: "POST /steps/:noStep/reminders",
    body: () => ({ off: true }),
    anon: 401,
    patient: 404,
    otherPatient: 404,
    unapproved: 404,
    expert: 404,
    admin: 404,
  },
  {
    route: "POST /steps/:noStep/attach",
    body: () => ({ reportId: "x" }),
    anon: 401,
    patient: 404,
    otherPatient: 404,
    unapproved: 404,
    expert: 404,
    admin: 404,
  },
  {
    route: "GET /step-offers/:report",
    anon: 401,
    patient: 200,
    otherPatient: 404,
    unapproved: 404,
    expert: 404,
    admin: 404,
  },
  {
    // Proving the number a call would go to (decision 0102): a code to the number on record only.
    route: "POST /patients/:own/notice/proof",
    anon: 401,
    patient: 200,
    otherPatient: 404,
    unapproved: 404,
    expert: 404,
    admin: 404,
  },
  {
    // A wrong code is the patient's 400; anyone else is told the profile is not there.
    route: "PUT /patients/:own/notice/proof",
    body: () => ({ code: "000000" }),
    anon: 401,
    patient: 400,
    otherPatient: 404,
    unapproved: 404,
    expert: 404,
    admin: 404,
  },
  {
    route: "GET /admin/get-sms-messages",
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 200,
  },
  {
    route: "GET /expert/get-approved-expert",
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 200,
    expert: 200,
    admin: 200,
  },
  {
    route: "POST /auth/change-password",
    body: () => ({
      oldPassword: "wrong-password-1",
      newPassword: "Another-pass-1",
      confirmNewPassword: "Another-pass-1",
    }),
    anon: 401,
    patient: 400,
    otherPatient: 400,
    unapproved: 400,
    expert: 400,
    admin: 400,
  },
  {
    route: "PUT /profile/update-profile",
    body: () => ({}),
    anon: 401,
    patient: 400,
    otherPatient: 400,
    unapproved: 400,
    expert: 400,
    admin: 400,
  },
  {
    route: "POST /auth/logout",
    anon: 401,
    patient: "skip" as never,
    otherPatient: "skip" as never,
    unapproved: "skip" as never,
    expert: "skip" as never,
    admin: "skip" as never,
  },
  {
    // Experts and admins choose e-mail or SMS; patients hear by the way they signed up.
    route: "PUT /profile/update-notifications",
    body: () => ({ notify: "email" }),
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 200,
    expert: 200,
    admin: 200,
  },
  // The consent and rights centre. Bodies that change nothing lasting (or are refused).
  {
    route: "GET /rights/consents",
    anon: 401,
    patient: 200,
    otherPatient: 200,
    unapproved: 403,
    expert: 403,
    admin: 403,
  },
  {
    route: "POST /rights/consents",
    body: () => ({ purpose: "statistics", granted: false }),
    anon: 401,
    patient: 200,
    otherPatient: 200,
    unapproved: 403,
    expert: 403,
    admin: 403,
  },
  {
    route: "GET /rights/requests",
    anon: 401,
    patient: 200,
    otherPatient: 200,
    unapproved: 200,
    expert: 200,
    admin: 200,
  },
  {
    route: "POST /rights/correction-requests",
    body: () => ({ details: "" }),
    anon: 401,
    patient: 400,
    otherPatient: 400,
    unapproved: 400,
    expert: 400,
    admin: 400,
  },
  {
    route: "POST /rights/erasure",
    body: () => ({ password: "wrong-password-1" }),
    anon: 401,
    patient: 400,
    otherPatient: 400,
    unapproved: 400,
    expert: 400,
    admin: 400,
  },
  {
    route: "POST /rights/erasure/cancel",
    anon: 401,
    patient: 404,
    otherPatient: 404,
    unapproved: 404,
    expert: 404,
    admin: 404,
  },
  {
    route: "GET /rights/nominee",
    anon: 401,
    patient: 200,
    otherPatient: 200,
    unapproved: 200,
    expert: 200,
    admin: 200,
  },
  {
    route: "PUT /rights/nominee",
    body: () => ({}),
    anon: 401,
    patient: 400,
    otherPatient: 400,
    unapproved: 400,
    expert: 400,
    admin: 400,
  },
  {
    route: "DELETE /rights/nominee",
    anon: 401,
    patient: 404,
    otherPatient: 404,
    unapproved: 404,
    expert: 404,
    admin: 404,
  },
  {
    route: "GET /rights/grievance-contact",
    anon: 200,
    patient: 200,
    otherPatient: 200,
    unapproved: 200,
    expert: 200,
    admin: 200,
  },
  {
    route: "GET /admin/rights-requests",
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 200,
  },
  {
    route: "POST /admin/rights-requests/:report/resolve",
    body: () => ({ status: "done", response: "checked" }),
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 404,
  },
  // Sharing links — only the owning patient creates, lists (their own) and revokes.
  {
    route: "GET /report/share-links",
    anon: 401,
    patient: 200,
    otherPatient: 200,
    unapproved: 403,
    expert: 403,
    admin: 403,
  },
  {
    route: "POST /report/share-links",
    body: () => ({ reportId: ids.report }),
    anon: 401,
    patient: 201,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 403,
  },
  {
    route: "DELETE /report/share-links/:link",
    anon: 401,
    patient: 200,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 403,
  },
  // Who may act for a profile and its trail: the person (their own profile; no manager or centre
  // here, so revoking finds nothing: 404); with patientId, whoever the access rule allows.
  {
    route: "GET /profile/access",
    anon: 401,
    patient: 200,
    otherPatient: 200,
    unapproved: 403,
    expert: 403,
    admin: 403,
  },
  {
    route: "DELETE /profile/access/managers/:otherPatient",
    anon: 401,
    patient: 404,
    otherPatient: 404,
    unapproved: 403,
    expert: 403,
    admin: 403,
  },
  {
    route: "DELETE /profile/access/centre",
    anon: 401,
    patient: 404,
    otherPatient: 404,
    unapproved: 403,
    expert: 403,
    admin: 403,
  },
  {
    route: "GET /profile/access-trail",
    anon: 401,
    patient: 200,
    otherPatient: 200,
    unapproved: 403,
    expert: 403,
    admin: 403,
  },
  {
    route: "GET /profile/access-trail?patientId=:own",
    anon: 401,
    patient: 200,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 200,
  },
  {
    route: "GET /rights/consents?patientId=:own",
    anon: 401,
    patient: 200,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 403,
  },
  {
    // A patient's data as FHIR R4 — the patient themself or an admin.
    route: "GET /fhir/Patient/:own/$everything",
    anon: 401,
    patient: 200,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 200,
  },
  {
    // "Download my data" (ZIP) — every patient their own; other accounts have none.
    route: "GET /profile/download-my-data",
    anon: 401,
    patient: 200,
    otherPatient: 200,
    unapproved: 403,
    expert: 403,
    admin: 403,
  },
  // Two-step login. Nobody here has it on (409 where it must be), and the matrix server
  // runs with MFA_REQUIRED_FOR_ADMINS off.
  {
    route: "GET /auth/two-factor/status",
    anon: 401,
    patient: 200,
    otherPatient: 200,
    unapproved: 200,
    expert: 200,
    admin: 200,
  },
  {
    route: "POST /auth/two-factor/confirm",
    body: () => ({ password: "whatever-123", code: "123456" }),
    anon: 401,
    patient: 409,
    otherPatient: 409,
    unapproved: 409,
    expert: 409,
    admin: 409,
  },
  {
    route: "POST /auth/two-factor/recovery-codes",
    body: () => ({ code: "123456" }),
    anon: 401,
    patient: 409,
    otherPatient: 409,
    unapproved: 409,
    expert: 409,
    admin: 409,
  },
  {
    route: "POST /auth/two-factor/disable",
    body: () => ({ password: "whatever-123", code: "123456" }),
    anon: 401,
    patient: 409,
    otherPatient: 409,
    unapproved: 409,
    expert: 409,
    admin: 409,
  },
  {
    route: "POST /admin/reset-2fa",
    body: () => ({ userId: ids.patient }),
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 409,
  },
  {
    // The second step of a login needs a live mfaToken, whoever sends it.
    route: "POST /auth/login-2fa",
    body: () => ({ mfaToken: "not-a-live-challenge-token-000000000000000", code: "123456" }),
    anon: 401,
    patient: 401,
    otherPatient: 401,
    unapproved: 401,
    expert: 401,
    admin: 401,
  },
  {
    route: "POST /auth/login-2fa-setup",
    body: () => ({ mfaToken: "not-a-live-challenge-token-000000000000000" }),
    anon: 401,
    patient: 401,
    otherPatient: 401,
    unapproved: 401,
    expert: 401,
    admin: 401,
  },
  // Family under one phone (decision 0030): a patient account's family members and take-overs.
  {
    route: "GET /family/members",
    anon: 401,
    patient: 200,
    otherPatient: 200,
    unapproved: 403,
    expert: 403,
    admin: 403,
  },
  // Centres and health workers: admins only (the directory is public, for the signup form).
  {
    route: "GET /service/summary",
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 200,
  },
  {
    route: "GET /centres/directory",
    anon: 200,
    patient: 200,
    otherPatient: 200,
    unapproved: 200,
    expert: 200,
    admin: 200,
  },
  {
    route: "GET /centres",
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 200,
  },
  {
    route: "POST /centres",
    body: () => ({
      name: "PHC Matrix",
      kind: "phc",
      district: "Hosur",
      state: "Tamil Nadu",
      pinCode: "635109",
    }),
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 201,
  },
  {
    route: "GET /centres/:centre",
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 200,
  },
  {
    route: "PATCH /centres/:centre",
    body: () => ({ district: "Krishnagiri" }),
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 200,
  },
  {
    route: "GET /centres/:centre/stats",
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 200,
  },
  // An opinion's next steps (decision 0114): the worklist is the centre's workers'; an unknown step
  // is not found for anyone signed in (a worker of no centre, or nobody's, is refused first).
  {
    route: "GET /centre/steps",
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 403,
  },
  {
    route: "POST /centre/steps/none/state",
    body: () => ({ state: "done" }),
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 403,
  },
  {
    route: "GET /steps/none/referral.pdf",
    anon: 401,
    patient: 404,
    otherPatient: 404,
    unapproved: 404,
    expert: 404,
    admin: 404,
  },
  {
    route: "GET /centres/:centre/overdue",
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 200,
  },
  {
    route: "GET /health-workers",
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 200,
  },
  {
    // Not a health worker: the admin is told so (404).
    route: "POST /health-workers/:patient/approve",
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 404,
  },
  {
    route: "POST /health-workers/:patient/reject",
    body: () => ({ reason: "Not a health worker" }),
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 404,
  },
  {
    route: "PATCH /health-workers/:patient",
    body: () => ({ suspended: true }),
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 404,
  },
  {
    route: "POST /family/members",
    body: () => ({
      firstName: "Meena",
      sex: "female",
      age: 30,
      relationship: "daughter",
      preferredLanguage: "hi",
      memberConsent: true,
    }),
    anon: 401,
    patient: 201,
    otherPatient: 201,
    unapproved: 403,
    expert: 403,
    admin: 403,
  },
  {
    // The account's own profile is already the person's: nobody starts a take-over of it.
    route: "POST /family/members/:own/take-over",
    body: () => ({ phone: "9876543210" }),
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 403,
  },
  {
    // Public (the code proves it); an empty body is a 400 for anyone.
    route: "POST /take-over",
    anon: 400,
    patient: 400,
    otherPatient: 400,
    unapproved: 400,
    expert: 400,
    admin: 400,
  },
  // Reviewing take-overs (decision 0055): admins only; an unknown take-over is a 404 for them.
  {
    route: "GET /admin/take-overs",
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 200,
  },
  ...["undo", "clear"].map((verb) => ({
    route: `POST /admin/take-overs/no-such-take-over/${verb}`,
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 404,
  })),
  // "This was not me": public, the link's token proves it; an unknown token is a 404 for anyone.
  ...["GET", "POST"].map((method) => ({
    route: `${method} /take-over/not-me/:notMe`,
    anon: 404,
    patient: 404,
    otherPatient: 404,
    unapproved: 404,
    expert: 404,
    admin: 404,
  })),
  // A centre's patients (registration, queue, one patient): approved health workers of that centre
  // only (their own roles are in centre-registration.test.ts); one patient also the person and admins.
  {
    route: "GET /centre/patients",
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 403,
  },
  {
    route: "POST /centre/patients",
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 403,
  },
  {
    route: "GET /centre/patients/:own",
    anon: 401,
    patient: 200,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 200,
  },
  // A slip's take-over code (decision 0073): only a health worker of the patient's centre prints one.
  {
    route: "POST /centre/patients/:own/slip",
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 403,
  },
  // Held items (decision 0065): admins only; an unknown item is the admin's 404.
  {
    route: "GET /centres/:centre/held-items",
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 200,
  },
  {
    route: "POST /centres/:centre/held-items/no-such-item/hand-over",
    body: () => ({ workerId: "no-such-worker" }),
    anon: 401,
    patient: 403,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 404,
  },
  {
    // Last: it starts a setup (a pending secret) for each account, after its password.
    route: "POST /auth/two-factor/setup",
    body: (role) => ({ password: role === "admin" ? "Admin-pass-123" : strongPassword }),
    anon: 401,
    patient: 200,
    otherPatient: 200,
    unapproved: 200,
    expert: 200,
    admin: 200,
  },
];

const SCREENS: Row[] = [
  {
    route: "/dashboard/centres",
    anon: "login",
    patient: 404,
    otherPatient: 404,
    unapproved: 404,
    expert: 404,
    admin: 200,
  },
  {
    route: "/dashboard/centres/:centre",
    anon: "login",
    patient: 404,
    otherPatient: 404,
    unapproved: 404,
    expert: 404,
    admin: 200,
  },
  {
    route: "/dashboard/centres/workers",
    anon: "login",
    patient: 404,
    otherPatient: 404,
    unapproved: 404,
    expert: 404,
    admin: 200,
  },
  {
    route: "/dashboard/family",
    anon: "login",
    patient: 200,
    otherPatient: 200,
    unapproved: 403,
    expert: 403,
    admin: 403,
  },
  {
    // Starting a take-over is for the manager or the centre; the account's own profile is nobody's to hand over.
    route: "/dashboard/family/:own/take-over",
    anon: "login",
    patient: 404,
    otherPatient: 404,
    unapproved: 404,
    expert: 404,
    admin: 404,
  },
  {
    route: "/take-over",
    anon: 200,
    patient: 200,
    otherPatient: 200,
    unapproved: 200,
    expert: 200,
    admin: 200,
  },
  {
    route: "/dashboard/home",
    anon: "login",
    patient: 200,
    otherPatient: 200,
    unapproved: 200,
    expert: 200,
    admin: 200,
  },
  {
    route: "/dashboard/my-profile",
    anon: "login",
    patient: 200,
    otherPatient: 200,
    unapproved: 200,
    expert: 200,
    admin: 200,
  },
  {
    route: "/dashboard/settings",
    anon: "login",
    patient: 200,
    otherPatient: 200,
    unapproved: 200,
    expert: 200,
    admin: 200,
  },
  {
    route: "/report-submitted",
    anon: "login",
    patient: 200,
    otherPatient: 200,
    unapproved: 200,
    expert: 200,
    admin: 200,
  },
  {
    route: "/dashboard/upload-report",
    anon: "login",
    patient: 200,
    otherPatient: 200,
    unapproved: 403,
    expert: 403,
    admin: 403,
  },
  {
    route: "/dashboard/previous-report/:own",
    anon: "login",
    patient: 200,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 200,
  },
  {
    route: "/dashboard/pending-report",
    anon: "login",
    patient: 404,
    otherPatient: 404,
    unapproved: 200,
    expert: 200,
    admin: 200,
  },
  {
    route: "/dashboard/previous-reviewed-report",
    anon: "login",
    patient: 404,
    otherPatient: 404,
    unapproved: 200,
    expert: 200,
    admin: 200,
  },
  {
    route: "/dashboard/approved-expert",
    anon: "login",
    patient: 404,
    otherPatient: 404,
    unapproved: 200,
    expert: 200,
    admin: 200,
  },
  {
    route: "/dashboard/add-review/:pending",
    anon: "login",
    patient: 403,
    otherPatient: 403,
    unapproved: 200,
    expert: 200,
    admin: 403,
  },
  {
    route: "/dashboard/pending-expert",
    anon: "login",
    patient: 404,
    otherPatient: 404,
    unapproved: 404,
    expert: 404,
    admin: 200,
  },
  {
    route: "/dashboard/previous-reviewed-reports",
    anon: "login",
    patient: 404,
    otherPatient: 404,
    unapproved: 404,
    expert: 404,
    admin: 200,
  },
  {
    route: "/dashboard/audit-log",
    anon: "login",
    patient: 404,
    otherPatient: 404,
    unapproved: 404,
    expert: 404,
    admin: 200,
  },
  {
    route: "/dashboard/users",
    anon: "login",
    patient: 404,
    otherPatient: 404,
    unapproved: 404,
    expert: 404,
    admin: 200,
  },
  {
    route: "/dashboard/messages",
    anon: "login",
    patient: 404,
    otherPatient: 404,
    unapproved: 404,
    expert: 404,
    admin: 200,
  },
  {
    // The account's own two-step login.
    route: "/dashboard/two-step",
    anon: "login",
    patient: 200,
    otherPatient: 200,
    unapproved: 200,
    expert: 200,
    admin: 200,
  },
  {
    route: "/dashboard/messages?kind=calls",
    anon: "login",
    patient: 404,
    otherPatient: 404,
    unapproved: 404,
    expert: 404,
    admin: 200,
  },
  {
    route: "/dashboard/phrases",
    anon: "login",
    patient: 404,
    otherPatient: 404,
    unapproved: 404,
    expert: 404,
    admin: 200,
  },
  {
    // The lab words a patient reads, reviewed by the clinic (decision 0108).
    route: "/dashboard/lab-words",
    anon: "login",
    patient: 404,
    otherPatient: 404,
    unapproved: 404,
    expert: 404,
    admin: 200,
  },
  {
    route: "/dashboard/messages?kind=callback",
    anon: "login",
    patient: 404,
    otherPatient: 404,
    unapproved: 404,
    expert: 404,
    admin: 200,
  },
  {
    route: "/dashboard/messages?kind=sms&status=failed",
    anon: "login",
    patient: 404,
    otherPatient: 404,
    unapproved: 404,
    expert: 404,
    admin: 200,
  },
  {
    // Another patient's report is not found; other account types are told why.
    route: "/dashboard/share/:report",
    anon: "login",
    patient: 200,
    otherPatient: 404,
    unapproved: 403,
    expert: 403,
    admin: 403,
  },
  // "Download my data" streams the ZIP; a refusal goes back to Settings with the reason (302).
  {
    route: "/dashboard/my-data/download",
    anon: "login",
    patient: 200,
    otherPatient: 200,
    unapproved: 302,
    expert: 302,
    admin: 302,
  },
  {
    route: "/dashboard/my-data/download?patientId=:own",
    anon: "login",
    patient: 200,
    otherPatient: 302,
    unapproved: 302,
    expert: 302,
    admin: 200,
  },
  {
    route: "/dashboard/my-data",
    anon: "login",
    patient: 200,
    otherPatient: 200,
    unapproved: 200,
    expert: 200,
    admin: 200,
  },
  {
    route: "/dashboard/rights-requests",
    anon: "login",
    patient: 404,
    otherPatient: 404,
    unapproved: 404,
    expert: 404,
    admin: 200,
  },
  {
    route: "/dashboard/service",
    anon: "login",
    patient: 404,
    otherPatient: 404,
    unapproved: 404,
    expert: 404,
    admin: 200,
  },
  {
    route: "/dashboard/service/recovery-sheet",
    anon: "login",
    patient: 404,
    otherPatient: 404,
    unapproved: 404,
    expert: 404,
    admin: 200,
  },
  {
    route: "/dashboard/take-overs",
    anon: "login",
    patient: 404,
    otherPatient: 404,
    unapproved: 404,
    expert: 404,
    admin: 200,
  },
  {
    // Signed out or in, an unknown link is the not-found page.
    route: "/take-over/not-me/:notMe",
    anon: 404,
    patient: 404,
    otherPatient: 404,
    unapproved: 404,
    expert: 404,
    admin: 404,
  },
  // The centre's screens: a dashboard refusal (403) for anyone but its approved health workers.
  ...["/dashboard/centre", "/dashboard/centre/register"].map((route) => ({
    route,
    anon: "login" as const,
    patient: 403,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 403,
  })),
  // One patient's page and slip: whoever may act for the profile; anyone else the not-found page.
  ...["/dashboard/centre/patients/:own", "/dashboard/centre/patients/:own/slip"].map((route) => ({
    route,
    anon: "login" as const,
    patient: 200,
    otherPatient: 404,
    unapproved: 404,
    expert: 404,
    admin: 200,
  })),
  {
    route: "/dashboard/centre/steps",
    anon: "login",
    patient: 403,
    otherPatient: 403,
    unapproved: 403,
    expert: 403,
    admin: 403,
  },
  {
    route: "/dashboard/service/steps.csv",
    anon: "login",
    patient: 404,
    otherPatient: 404,
    unapproved: 404,
    expert: 404,
    admin: 200,
  },
  // Public: the referral page asks for the year of birth before it says anything.
  {
    route: "/referral/R-2222-3333",
    anon: 200,
    patient: 200,
    otherPatient: 200,
    unapproved: 200,
    expert: 200,
    admin: 200,
  },
  {
    route: "/dashboard/centre/patients/:own/reports/:report/print",
    anon: "login",
    patient: 404,
    otherPatient: 404,
    unapproved: 404,
    expert: 404,
    admin: 404,
  },
];

let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
const tok: Partial<Record<Role, string>> = {};
const browsers: Partial<Record<Role, Browserish>> = {};
const ids: Record<string, string> = {};

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    RATE_LIMIT_DISABLED: "1",
    ADMIN_EMAIL: "admin@m.test",
    ADMIN_PASSWORD: "Admin-pass-123",
  });
  const api = apiClient(server.url);
  const emails: Record<Exclude<Role, "anon">, [string, "Patient" | "Expert"]> = {
    patient: ["patient@m.test", "Patient"],
    otherPatient: ["other@m.test", "Patient"],
    unapproved: ["unapproved@m.test", "Expert"],
    expert: ["expert@m.test", "Expert"],
    admin: ["admin@m.test", "Patient"],
  };
  for (const role of ["patient", "otherPatient", "unapproved", "expert"] as const) {
    const r = await signupViaApi(api, smtp, codeFrom, {
      email: emails[role][0],
      accountType: emails[role][1],
    });
    tok[role] = r.token;
    ids[role] = r.user._id;
  }
  tok.admin = (
    await api.post("/auth/login", { email: "admin@m.test", password: "Admin-pass-123" })
  ).body.token;
  await api.post("/expert/approve-expert", { expertId: ids.expert }, tok.admin);
  const up = () =>
    api.call(
      "POST",
      "/report/upload-report",
      uploadForm({ reportType: "ECG", phoneNumber: "9876543210" }, { name: "a.pdf", data: samplePdf() }),
      tok.patient,
    );
  ids.report = (await up()).body.data._id;
  ids.upload = await startUpload();
  ids.pending = (await up()).body.data._id;
  // A reviewed report with a next step (decision 0114).
  const withStep = (await up()).body.data._id;
  const signed = await api.post(
    `/report/add-review/${withStep}`,
    { review: "ok", nextSteps: [{ kind: "specialist", specialty: "Cardiology", urgency: "week" }] },
    tok.expert,
  );
  ids.step = signed.body.data.nextSteps[0]._id;
  ids.own = ids.patient;
  // Well formed (so it is looked up), but no take-over announced it.
  ids.notMe = "unknown-not-me-link-0000000000";
  ids.noStep = "no-such-step-000000000000";
  ids.centre = (
    await api.post(
      "/centres",
      { name: "HWC Matrix", kind: "hwc", district: "Hosur", state: "Tamil Nadu", pinCode: "635109" },
      tok.admin,
    )
  ).body.data._id;
  ids.link = (await api.post("/report/share-links", { reportId: ids.report }, tok.patient)).body.data._id;
  for (const role of ROLES) {
    const b = new Browserish(server.url);
    if (role !== "anon") {
      const res = await b.post("/login", {
        email: emails[role][0],
        password: role === "admin" ? "Admin-pass-123" : strongPassword,
      });
      expect(res.status, `login ${role}`).toBe(302);
    }
    browsers[role] = b;
  }
});
afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

const fill = (route: string) => route.replace(/:(\w+)/g, (_, k) => ids[k]);

const TUS_FIELDS = { reportType: "ECG", countryCode: "+91", phoneNumber: "9876543210", consent: "on" };
const tusMetadata = () =>
  Object.entries(TUS_FIELDS)
    .map(([k, v]) => `${k} ${Buffer.from(v).toString("base64")}`)
    .join(",");

/** A resumable upload of the patient's (its id), with nothing sent yet. */
async function startUpload(): Promise<string> {
  const res = await fetch(`${server.url}/api/v1/uploads`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${tok.patient}`,
      "Tus-Resumable": "1.0.0",
      "Upload-Length": "10000",
      "Upload-Metadata": tusMetadata(),
    },
  });
  return res.headers.get("location")!.split("/").pop()!;
}

describe("authorization matrix: /api/v1", () => {
  it.each(
    API.flatMap((row) =>
      ROLES.filter((r) => (row[r] as unknown) !== "skip").map((role) => [row.route, role, row] as const),
    ),
  )("%s as %s", async (route, role, row) => {
    const [method, p] = route.split(" ");
    const headers: Record<string, string> = {};
    if (tok[role as Role]) headers.Authorization = `Bearer ${tok[role as Role]}`;
    let body: BodyInit | undefined;
    if (p.startsWith("/uploads")) {
      // The tus protocol: its headers; a PATCH sends the first bytes of the file.
      headers["Tus-Resumable"] = "1.0.0";
      if (method === "POST") {
        headers["Upload-Length"] = "10000";
        headers["Upload-Metadata"] = tusMetadata();
      }
      if (method === "PATCH") {
        headers["Upload-Offset"] = "0";
        headers["Content-Type"] = "application/offset+octet-stream";
        body = new Uint8Array(samplePdf().subarray(0, 100));
      }
      // Ending succeeds once; the owner ends an upload of its own.
      if (method === "DELETE" && role === "patient") ids.upload = await startUpload();
    } else if (p === "/report/upload-report") {
      body = uploadForm(
        { reportType: "ECG", phoneNumber: "9876543210" },
        { name: "a.pdf", data: samplePdf() },
      );
    } else if (row.body) {
      body = JSON.stringify(row.body(role));
      headers["Content-Type"] = "application/json";
    } else if (method !== "GET") {
      body = "{}";
      headers["Content-Type"] = "application/json";
    }
    // Deleting succeeds once; give each allowed deleter its own report.
    if (route.startsWith("DELETE") && (row[role as Role] as number) === 200) {
      const api = apiClient(server.url);
      const fresh = await api.call(
        "POST",
        "/report/upload-report",
        uploadForm({ reportType: "ECG", phoneNumber: "9876543210" }, { name: "d.pdf", data: samplePdf() }),
        tok.patient,
      );
      body = JSON.stringify({ reportId: fresh.body.data._id });
    }
    // Reviewing succeeds once; give the reviewer a fresh pending report.
    if (route.startsWith("POST /report/add-review") && (row[role as Role] as number) === 200) {
      const api = apiClient(server.url);
      ids.pending = (
        await api.call(
          "POST",
          "/report/upload-report",
          uploadForm({ reportType: "ECG", phoneNumber: "9876543210" }, { name: "r.pdf", data: samplePdf() }),
          tok.patient,
        )
      ).body.data._id;
    }
    const res = await fetch(`${server.url}/api/v1${fill(p)}`, { method, headers, body });
    expect(res.status).toBe(row[role as Role]);
  });
});

describe("authorization matrix: screens", () => {
  it.each(SCREENS.flatMap((row) => ROLES.map((role) => [row.route, role, row] as const)))(
    "%s as %s",
    async (route, role, row) => {
      const res = await browsers[role as Role]!.fetch(fill(route));
      const want = row[role as Role];
      if (want === "login") {
        expect(res.status).toBe(302);
        expect(res.headers.get("Location")).toMatch(/^\/login\?redirectTo=/);
      } else {
        expect(res.status).toBe(want);
      }
    },
  );

  it("signed-in visitors are sent from the account screens to the dashboard", async () => {
    for (const p of ["/login", "/signup", "/forgot-password", "/login-2fa"]) {
      const res = await browsers.patient!.fetch(p);
      expect(res.headers.get("Location")).toBe("/dashboard/home");
    }
  });
});
