import { z } from "zod";
import { CENTRE_KINDS, HEALTH_WORKER_ROLES } from "~/db/types";
import {
  centreSchema,
  centreUpdateSchema,
  healthWorkerQuerySchema,
  HEALTH_WORKER_STATUSES,
  rejectWorkerSchema,
  updateWorkerSchema,
} from "~/schemas/centres";
import { reportObject } from "~/schemas/objects";
import type { Endpoint } from "./endpoint";

/** A centre as admins see it. */
export const centreObject = z.object({
  _id: z.string(),
  name: z.string(),
  kind: z
    .enum(CENTRE_KINDS)
    .describe("hwc: Health & Wellness Centre, phc, chc, clinic, csc: Common Service Centre"),
  district: z.string(),
  state: z.string(),
  pinCode: z.string().describe("Six digits"),
  createdAt: z.string().datetime(),
  updatedAt: z.string().datetime(),
});

/** What anyone may know of a centre (the signup form's list). */
export const publicCentreObject = centreObject.pick({
  _id: true,
  name: true,
  kind: true,
  district: true,
  state: true,
});

/** A centre's figures: the Turnaround screen's definitions over the centre's reports. */
export const centreStatsObject = z.object({
  pending: z.number().int().describe("Pending reports not in review"),
  inReview: z.number().int(),
  overdue: z.number().int(),
  windowDays: z.number().int(),
  reviewedInWindow: z.number().int(),
  medianMs: z.number().nullable().describe("Median time from upload to opinion over the window"),
  p90Ms: z.number().nullable().describe("90th percentile (nearest rank) over the window"),
  patients: z.number().int().describe("Patient profiles registered at the centre"),
  reviewed: z.number().int().describe("Reports with an opinion, ever"),
  workers: z.object({ approved: z.number().int(), pending: z.number().int(), suspended: z.number().int() }),
});

export const centreWithStatsObject = centreObject.extend({ stats: centreStatsObject });

export const healthWorkerObject = z.object({
  _id: z.string().describe("The health worker's user id"),
  firstName: z.string(),
  lastName: z.string(),
  email: z.string(),
  phone: z.string().nullable(),
  role: z.enum(HEALTH_WORKER_ROLES),
  workerId: z.string(),
  status: z.enum(HEALTH_WORKER_STATUSES),
  approved: z.boolean(),
  suspendedAt: z.string().datetime().nullable(),
  centre: z.object({ _id: z.string(), name: z.string(), district: z.string(), state: z.string() }),
  createdAt: z.string().datetime(),
});

/** Centres and health workers: admins create centres, health workers sign up for one and are approved, moved or suspended (decision 0030). */
export const CENTRE_ENDPOINTS: Endpoint[] = [
  {
    method: "get",
    path: "/centres/directory",
    operationId: "centreDirectory",
    who: "anyone",
    summary: "Every centre's id, name, kind, district and state (what a health worker signs up for)",
    auth: false,
    data: z.array(publicCentreObject),
    errors: [],
  },
  {
    method: "get",
    path: "/centres",
    operationId: "listCentres",
    who: "Admin",
    summary:
      "Centres by state, district and name, each with its figures: patients, pending, in review, reviewed, overdue, median and 90th-percentile time to opinion (30 days, as /admin/turnaround), health workers",
    auth: true,
    list: true,
    data: centreWithStatsObject,
    errors: [400, 401, 403],
  },
  {
    method: "post",
    path: "/centres",
    operationId: "createCentre",
    who: "Admin",
    summary: "Create a centre (name, kind, district, state, six-digit PIN code)",
    auth: true,
    body: centreSchema,
    data: centreObject,
    status: 201,
    errors: [400, 401, 403],
  },
  {
    method: "get",
    path: "/centres/{centreId}",
    operationId: "getCentre",
    who: "Admin",
    summary: "One centre with its figures",
    auth: true,
    data: centreWithStatsObject,
    errors: [401, 403, 404],
  },
  {
    method: "patch",
    path: "/centres/{centreId}",
    operationId: "updateCentre",
    who: "Admin",
    summary: "Change a centre's name, kind, district, state or PIN code (any of them)",
    auth: true,
    body: centreUpdateSchema,
    data: centreObject,
    errors: [400, 401, 403, 404],
  },
  {
    method: "get",
    path: "/centres/{centreId}/stats",
    operationId: "centreStats",
    who: "Admin",
    summary:
      "A centre's patients, queue counts, median and 90th-percentile time to opinion (the definitions of /admin/turnaround over the centre's reports) and health workers",
    auth: true,
    data: centreStatsObject,
    errors: [401, 403, 404],
  },
  {
    method: "get",
    path: "/centres/{centreId}/overdue",
    operationId: "centreOverdue",
    who: "Admin",
    summary: "A centre's overdue reports (past the review target), urgent first, then oldest",
    auth: true,
    data: z.array(reportObject),
    errors: [401, 403, 404],
  },
  {
    method: "get",
    path: "/health-workers",
    operationId: "listHealthWorkers",
    who: "Admin",
    summary:
      "Health workers by `status` (pending by default: waiting for approval; approved; suspended, which includes declined applications), newest first, optionally of one `centreId`",
    auth: true,
    list: true,
    query: healthWorkerQuerySchema,
    data: healthWorkerObject,
    errors: [400, 401, 403],
  },
  {
    method: "patch",
    path: "/health-workers/{userId}",
    operationId: "updateHealthWorker",
    who: "Admin",
    summary:
      "Move a health worker to another centre (`centreId`; they act for that centre's patients from then on) and/or suspend (`suspended: true`, their sessions end) or reinstate them",
    auth: true,
    body: updateWorkerSchema,
    data: healthWorkerObject,
    errors: [400, 401, 403, 404],
  },
  {
    method: "post",
    path: "/health-workers/{userId}/approve",
    operationId: "approveHealthWorker",
    who: "Admin",
    summary:
      "Approve a waiting health worker (told by mail or SMS); they may then register patients and send reports. 409 for a suspended one",
    auth: true,
    data: healthWorkerObject,
    errors: [401, 403, 404, 409],
  },
  {
    method: "post",
    path: "/health-workers/{userId}/reject",
    operationId: "rejectHealthWorker",
    who: "Admin",
    summary:
      "Decline a waiting health worker's application with a `reason` they are told; the account is suspended (reinstating it puts it back in the queue). 409 when not waiting",
    auth: true,
    body: rejectWorkerSchema,
    data: healthWorkerObject,
    errors: [400, 401, 403, 404, 409],
  },
];
