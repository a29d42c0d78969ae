import type { z } from "zod";
import { db } from "~/db/client.server";
import { callbackRequests, contactMessages } from "~/db/schema";
import type { callbackSchema, contactSchema } from "~/schemas/public";
import { newId } from "~/utils/ids.server";
import type { Actor } from "./sessions.server";

export function saveContactMessage(actor: Actor | null, input: z.infer<typeof contactSchema>) {
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

export function saveCallbackRequest(actor: Actor | null, input: z.infer<typeof callbackSchema>) {
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
