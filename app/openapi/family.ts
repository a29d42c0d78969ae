import { z } from "zod";
import {
  completeTakeOverSchema,
  familyMemberObject,
  familyMemberSchema,
  notMeObject,
  startTakeOverSchema,
  takeOverObject,
  takeOverQuerySchema,
  takeOverSentObject,
} from "~/schemas/family";
import { userObject } from "~/schemas/objects";
import { accessHoldersObject, accessTrailQuery, trailEntryObject } from "~/schemas/control";
import type { Endpoint } from "./endpoint";

/** Family under one phone: dependants, whose reports, taking a profile over, revoking access (decision 0030). */
export const FAMILY_ENDPOINTS: Endpoint[] = [
  {
    method: "get",
    path: "/family/members",
    who: "Patient",
    summary:
      "The profiles the patient account acts for: its own first, then the family members it manages (access not revoked), each with its short ID; the `_id` is the `patientId` of their reports",
    auth: true,
    data: z.array(familyMemberObject),
    errors: [401, 403],
  },
  {
    method: "post",
    path: "/family/members",
    who: "Patient",
    summary:
      "Add a family member: name, sex, `birthYear` or `age`, relationship and language. A child under 18 needs `guardianConsent: true` (the account holder is the parent or guardian); an adult `memberConsent: true` (the person agreed). The consent is recorded (method online) and the member gets a short ID; their phone is the account holder's, if any",
    auth: true,
    body: familyMemberSchema,
    data: familyMemberObject,
    status: 201,
    errors: [400, 401, 403, 409],
    idempotent: true,
  },
  {
    method: "post",
    path: "/family/members/{patientId}/take-over",
    who: "the family manager of the profile, or an approved health worker of its centre",
    summary:
      "Start a take-over: a 6-digit code goes by SMS to the person's own number (10 minutes, single use; SMS budgets as for signup codes). Where the profile has the person's own number (`phoneOwner: self`) the code goes only there: leave `phone` out (another number is a 400). Where it has none, or a family member's, give the person's own `phone` and their proof: for a patient a centre registered, the `slipCode` printed on their latest slip (decision 0073; a code of an older slip, or of a slip the starter printed themself other than the registering worker's first, is refused), otherwise the `shortId` on their slip and their `birthYear` (a mismatch is a 400; 5 wrong tries a day per profile, then 429). The code completes only while its starter may still act for the profile. Refused for a minor (400), a profile that already has a login (409) and a number that already has an account (409)",
    auth: true,
    body: startTakeOverSchema,
    data: takeOverSentObject,
    errors: [400, 401, 403, 404, 409, 429],
  },
  {
    method: "post",
    path: "/take-over",
    who: "anyone holding the code",
    summary:
      "Complete a take-over with the code sent to `phone`: a patient account of the person's own (phone identity) whose id is the profile's id, so every report stays theirs. With `keepAccess: false` the family manager's (and the centre's) access ends at once. A code whose starter was since suspended, moved or declined is refused (400). The take-over is announced at once, with a \"this was not me\" link, by SMS to the profile's previous number and to every family manager and health worker of the centre that had access; for 72 hours (or until an admin reviewed it) the new account deletes no report. Log in afterwards with the number and password",
    auth: false,
    body: completeTakeOverSchema,
    data: userObject,
    status: 201,
    errors: [400, 409, 429],
  },
  {
    method: "get",
    path: "/take-over/not-me/{token}",
    operationId: "takeOverNotMeGet",
    who: "anyone holding the link a completed take-over announced",
    summary:
      "When the take-over was, and whether it was already reported or undone. An unknown token is a 404",
    auth: false,
    data: notMeObject,
    errors: [404, 429],
  },
  {
    method: "post",
    path: "/take-over/not-me/{token}",
    operationId: "takeOverNotMeReport",
    who: "anyone holding the link a completed take-over announced",
    summary:
      '"This was not me": reports the take-over to the admins, who may undo it within 7 days; until they have looked, the account deletes no report. Reporting twice changes nothing. An unknown token is a 404',
    auth: false,
    data: notMeObject,
    errors: [404, 429],
  },
  {
    method: "get",
    path: "/admin/take-overs",
    operationId: "adminListTakeOvers",
    who: "Admin",
    summary:
      "Completed take-overs, newest first (at most 200): by default those waiting for a look — reported as not the person, started by a health worker since suspended, moved or declined, or of the last 7 days and not reviewed; `status=all` for every one",
    auth: true,
    query: takeOverQuerySchema,
    data: z.array(takeOverObject),
    errors: [400, 401, 403],
  },
  {
    method: "post",
    path: "/admin/take-overs/{takeOverId}/undo",
    operationId: "adminUndoTakeOver",
    who: "Admin",
    summary:
      "Undo a take-over within 7 days of it: the profile gets back its previous number and the family managers' and centre's access the take-over ended; the login it made is suspended, its number freed and its sessions ended (the person may take the profile over again). 409 when already undone or older than 7 days",
    auth: true,
    data: takeOverObject,
    errors: [401, 403, 404, 409],
  },
  {
    method: "post",
    path: "/admin/take-overs/{takeOverId}/clear",
    operationId: "adminClearTakeOver",
    who: "Admin",
    summary:
      "Mark a take-over as reviewed: it leaves the list to review and the account may delete reports before its 72 hours are over. 409 when undone",
    auth: true,
    data: takeOverObject,
    errors: [401, 403, 404, 409],
  },
  // Who may act for a profile, revoking it, and the access trail.
  {
    method: "get",
    path: "/profile/access",
    operationId: "profileGetAccess",
    who: "Patient (own profile)",
    summary:
      "Who may act for the caller's profile now: the family logins managing it (name, relationship, since) and the centre that registered them; revoked ones are left out",
    auth: true,
    data: accessHoldersObject,
    errors: [401, 403, 404],
  },
  {
    method: "delete",
    path: "/profile/access/managers/{managerId}",
    operationId: "profileRevokeManager",
    who: "Patient (own profile)",
    summary:
      "End a family manager's access to the caller's profile, at once (reports, files, letters, sharing links, export); recorded in the access trail. Answers who may act for them now; 404 when that person has no access (any more)",
    auth: true,
    data: accessHoldersObject,
    errors: [401, 403, 404],
  },
  {
    method: "delete",
    path: "/profile/access/centre",
    operationId: "profileRevokeCentre",
    who: "Patient (own profile)",
    summary:
      "End the registering centre's access to the caller's profile, at once: its health workers no longer see or act for them; recorded in the access trail. 404 when no centre has access (any more)",
    auth: true,
    data: accessHoldersObject,
    errors: [401, 403, 404],
  },
  {
    method: "get",
    path: "/profile/access-trail",
    operationId: "profileGetAccessTrail",
    who: "Patient (own profile, or a family member's without a login of their own), Admin",
    summary:
      "The profile's access trail, newest first: every read or action by a health worker or a family manager (registered, reports opened, file and letter opened, upload, follow-up, sharing link, export) and every access revoked, each worded in the request's language",
    auth: true,
    list: true,
    query: accessTrailQuery,
    data: trailEntryObject,
    errors: [400, 401, 403, 404],
  },
];
