import type { z } from "zod";
import { db } from "~/db/client.server";
import { callbackRequests, contactMessages } from "~/db/schema";
import type { callbackSchema, contactSchema } from "~/schemas/public";
import { newId } from "~/utils/ids.server";
import type { Client } from "./client";
import { limit } from "./ratelimit.server";
import type { Actor } from "./sessions.server";

/** Saves a Contact Us message; at most a few per client address an hour (rate_limited). */
export async function saveContactMessage(
  actor: Actor | null,
  input: z.infer<typeof contactSchema>,
  client: Client,
) {
  await limit("publicForm", null, client);
  const id = newId();
  db()
    .insert(contactMessages)
    .values({
      id,
      name: input.name,
      email: input.email.toLowerCase(),
      message: input.message,
      userId: actor?.id ?? null,
    })
    .run();
  return { id };
}

/** Saves a callback request from the home page; shares the contact form's budget per address. */
export async function saveCallbackRequest(
  actor: Actor | null,
  input: z.infer<typeof callbackSchema>,
  client: Client,
) {
  await limit("publicForm", null, client);
  const id = newId();
  db()
    .insert(callbackRequests)
    .values({
      id,
      name: input.name,
      countryCode: input.countryCode,
      phoneNumber: input.phoneNumber,
      message: input.message || null,
      userId: actor?.id ?? null,
    })
    .run();
  return { id };
}
