import { z } from "zod";
import type { RouteConfig } from "@asteasolutions/zod-to-openapi";
import type { Endpoint } from "./endpoint";

/**
 * Held items in the document (decision 0065): the outbox's headers on the creates an offline item
 * calls, the 403/409 refusal that keeps the item for the centre, and the admins' two endpoints.
 */
export const outboxHeaders = z.object({
  "X-CareBridge-Outbox": z
    .literal("1")
    .optional()
    .describe(
      "Sent by the app's own offline outbox (same-origin, with the browser session instead of a bearer token)",
    ),
  "X-CareBridge-Centre": z
    .string()
    .max(64)
    .optional()
    .describe(
      "The outbox's: the centre the item was recorded for. When the health worker has since been moved away from it the item is refused (409) and kept for that centre — if it was recorded before the move (`X-CareBridge-Recorded-At`) and the move is at most 30 days old",
    ),
  "X-CareBridge-Recorded-At": z
    .string()
    .max(40)
    .optional()
    .describe(
      "The outbox's: when the item was recorded on the phone (ISO 8601). A moved worker's item recorded after the move, or without this header, is refused (409, `held: false`, `notKept`) and not kept (decision 0073)",
    ),
});

const named = z.object({ _id: z.string(), name: z.string() });

export const heldItemObject = z.object({
  _id: z.string(),
  kind: z.enum(["register", "upload", "voice", "follow-up"]),
  reason: z.enum(["suspended", "moved"]),
  status: z.enum(["held", "handing", "handed"]),
  centre: named,
  recordedBy: z.object({ _id: z.string().nullable(), name: z.string() }),
  hasFile: z.boolean().describe("A file is kept with it (until it is handed over)"),
  createdAt: z.string(),
  handedTo: z.string().nullable().describe("The health worker it was handed to"),
  handedAt: z.string().nullable(),
  resultId: z
    .string()
    .nullable()
    .describe("The record the hand-over made (patient, report, voice note, follow-up)"),
});

const heldRefusal = z.object({
  success: z.literal(false),
  message: z.string().describe("Why, in the request's language, and where the item is kept"),
  reason: z.enum(["suspended", "moved"]),
  centre: named.describe("The centre the item was recorded for, where it is kept"),
  held: z
    .boolean()
    .describe("Kept on the server (false: the worker's cap of waiting items is reached, or see holdAt)"),
  heldItem: heldItemObject.optional(),
  notKept: z
    .enum(["after", "unknown", "expired"])
    .optional()
    .describe(
      "A moved worker's item not kept for the old centre (decision 0073): recorded after the move, recorded at an unknown time, or the move is over 30 days old",
    ),
  holdAt: z
    .string()
    .optional()
    .describe(
      "A resumable upload's creation carries no bytes: send the item whole (multipart) here to keep it",
    ),
});

/** The outbox headers and the held refusal on one of the creates an offline item calls. */
export function addHeldAnswers(
  request: NonNullable<RouteConfig["request"]>,
  responses: NonNullable<RouteConfig["responses"]>,
  errorObject: z.ZodTypeAny,
) {
  request.headers = request.headers
    ? (request.headers as z.AnyZodObject).merge(outboxHeaders)
    : outboxHeaders;
  const schema = z.union([heldRefusal, errorObject]);
  const say = (code: number, text: string) => {
    const before = (responses[code] as { description?: string } | undefined)?.description;
    responses[code] = {
      ...(responses[code] ?? {}),
      description: before ? `${before}; or ${text}` : text,
      content: { "application/json": { schema } },
    };
  };
  say(
    403,
    "(outbox) the health worker was suspended: the item is refused with the reason and kept for the centre (`held`, `heldItem`)",
  );
  say(
    409,
    "(outbox) the health worker was moved away from the centre the item was recorded for (X-CareBridge-Centre): refused with the reason and kept for that centre when recorded before the move (else `held: false` with `notKept`)",
  );
}

export const HELD_ENDPOINTS: Endpoint[] = [
  {
    method: "get",
    path: "/centres/{centreId}/held-items",
    operationId: "listHeldItems",
    who: "Admin",
    summary:
      "What suspended or moved health workers recorded offline for this centre, kept until handed to another of its workers: kind, who recorded it, why, when and where it went (no medical content), newest first",
    auth: true,
    list: true,
    data: heldItemObject,
    errors: [400, 401, 403, 404],
  },
  {
    method: "post",
    path: "/centres/{centreId}/held-items/{heldItemId}/hand-over",
    operationId: "handOverHeldItem",
    who: "Admin",
    summary:
      "Hand a held item to an approved, unsuspended health worker of the same centre (`workerId`): the recorded action (registration with the recorded consent, report upload, voice note, follow-up) runs once as them and they are told. 400 for a worker of another centre, suspended or not approved (or the action's own refusal); 409 when it was already handed (of two admins at once one wins)",
    auth: true,
    body: z.object({ workerId: z.string().min(1).max(64) }),
    data: heldItemObject,
    errors: [400, 401, 403, 404, 409],
  },
];
