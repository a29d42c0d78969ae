import { count, desc, sql } from "drizzle-orm";
import type { z } from "zod";
import { db } from "~/db/client.server";
import { callbackRequests, contactMessages } from "~/db/schema";
import type { callbackSchema, contactSchema } from "~/schemas/public";
import type { Paged, PageQuery } from "~/utils/api.server";
import { newId } from "~/utils/ids.server";
import type { Client } from "./client";
import { DomainError } from "./errors";
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

// ---------------------------------------------------------------------------------------
// The admin's inbox: what visitors sent through Contact Us and the home page's callback form.

export type ApiContactMessage = {
  _id: string;
  name: string;
  email: string;
  message: string;
  userId: string | null;
  createdAt: string;
};

export type ApiCallbackRequest = {
  _id: string;
  name: string;
  countryCode: string;
  phoneNumber: string;
  message: string | null;
  userId: string | null;
  createdAt: string;
};

function requireAdmin(actor: Actor) {
  if (actor.accountType !== "Admin") throw new DomainError("forbidden", "messages.adminsOnly");
}

/** Admin: Contact Us messages, newest first (contact_messages_created_idx; rowid breaks ties). */
export function listContactMessages(actor: Actor, { page, pageSize }: PageQuery): Paged<ApiContactMessage> {
  requireAdmin(actor);
  const total = db().select({ n: count() }).from(contactMessages).get()?.n ?? 0;
  const rows = db()
    .select()
    .from(contactMessages)
    .orderBy(desc(contactMessages.createdAt), desc(sql`"contact_messages"."rowid"`))
    .limit(pageSize)
    .offset((page - 1) * pageSize)
    .all();
  const items = rows.map((r) => ({
    _id: r.id,
    name: r.name,
    email: r.email,
    message: r.message,
    userId: r.userId,
    createdAt: r.createdAt.toISOString(),
  }));
  return { items, total, page, pageSize };
}

/** Admin: callback requests, newest first (callback_requests_created_idx; rowid breaks ties). */
export function listCallbackRequests(actor: Actor, { page, pageSize }: PageQuery): Paged<ApiCallbackRequest> {
  requireAdmin(actor);
  const total = db().select({ n: count() }).from(callbackRequests).get()?.n ?? 0;
  const rows = db()
    .select()
    .from(callbackRequests)
    .orderBy(desc(callbackRequests.createdAt), desc(sql`"callback_requests"."rowid"`))
    .limit(pageSize)
    .offset((page - 1) * pageSize)
    .all();
  const items = rows.map((r) => ({
    _id: r.id,
    name: r.name,
    countryCode: r.countryCode,
    phoneNumber: r.phoneNumber,
    message: r.message,
    userId: r.userId,
    createdAt: r.createdAt.toISOString(),
  }));
  return { items, total, page, pageSize };
}
