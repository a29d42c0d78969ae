import { accessHoldersObject, accessTrailQuery, trailEntryObject } from "~/schemas/control";
import type { Endpoint } from "./endpoint";

/** Family under one phone: dependants, whose reports, taking a profile over, revoking access (decision 0030). */
export const FAMILY_ENDPOINTS: Endpoint[] = [
  // D: access and trail
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
