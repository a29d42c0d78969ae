import { z } from "zod";
import type { RouteConfig } from "@asteasolutions/zod-to-openapi";

/**
 * `Idempotency-Key` in the document (decision 0062): the header parameter and the two answers it
 * adds (422 another body under the key, 409 the first request still running) on every create an
 * offline item can call.
 */
export const idempotencyHeader = z.object({
  "Idempotency-Key": z
    .string()
    .min(1)
    .max(255)
    .regex(/^[\x20-\x7e]+$/)
    .optional()
    .describe(
      "Makes the request safe to send again (an offline outbox, a lost answer): 1–255 printable ASCII characters, unique per create, scoped to the account and kept at least 7 days. The same key with the same request answers the first answer again (with `Idempotent-Replayed: true`) and creates nothing; a bad key is a 400",
    ),
});

export function addIdempotencyAnswers(
  responses: NonNullable<RouteConfig["responses"]>,
  errorObject: z.ZodTypeAny,
  retryAfter: object,
) {
  const content = { "application/json": { schema: errorObject } };
  responses[422] = {
    description:
      "The Idempotency-Key was already used for a different request (method, path or body): nothing was done",
    content,
  };
  const conflict = responses[409] as { description?: string } | undefined;
  responses[409] = {
    description: `${conflict?.description ? `${conflict.description}; or a` : "A"} request with this Idempotency-Key is still being processed: send it again after Retry-After seconds`,
    headers: retryAfter as never,
    content,
  };
}
