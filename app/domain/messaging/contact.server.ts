import { and, desc, eq, inArray, like, or, sql } from "drizzle-orm";
import type { z } from "zod";
import { db, exec, type DB, type TxSteps } from "~/db/client.server";
import { callbackRequests, contactMessages } from "~/db/schema";
import type { callbackSchema, contactSchema } from "~/schemas/public";
import type { Paged, PageQuery } from "../platform/paging";
import { newId } from "~/lib/ids.server";
import { splitE164 } from "~/lib/phone.server";
import type { Client } from "../platform/client";
import { DomainError } from "../platform/errors";
import { limit } from "../platform/index.server";
import type { Actor } from "../platform/index.server";
import { COUNT_KEYS, listCount } from "../platform/index.server";
import { newestFirstWindow } from "../platform/index.server";

/** Saves a Contact Us message; at most a few per client address an hour (rate_limited). */
export async function saveContactMessage(
  actor: Actor | null,
  input: z.infer<typeof contactSchema>,
  client: Client,
) {
  await limit("publicForm", null, client);
  const id = newId();
  await db()
    .insert(contactMessages)
    .values({
      id,
      name: input.name,
      email: input.email.toLowerCase(),
      message: input.message,
      userId: actor?.id ?? null,
    });
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
  await db()
    .insert(callbackRequests)
    .values({
      id,
      name: input.name,
      countryCode: input.countryCode,
      phoneNumber: input.phoneNumber,
      message: input.message || null,
      userId: actor?.id ?? null,
    });
  return { id };
}

/**
 * A person who heard her opinion by phone pressed 2 to be called back (decision 0080): a callback
 * request like the home page's form, for the clinic's admins.
 */
export async function savePhoneCallbackRequest(call: { name: string; number: string; patientId: string }) {
  const cc = /^\+91/.test(call.number) ? "+91" : "+";
  await db()
    .insert(callbackRequests)
    .values({
      id: newId(),
      name: call.name,
      countryCode: cc,
      phoneNumber: cc === "+91" ? call.number.slice(3) : call.number.slice(1),
      message: `Asked by phone, after hearing an opinion, to be called back (profile ${call.patientId}).`,
      userId: null,
    });
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

/**
 * One page of a public-form table, newest first (its `*_created_idx` on created_at, id), for
 * admins only.
 */
async function newestFirst<T extends typeof contactMessages | typeof callbackRequests>(
  actor: Actor,
  table: T,
  query: PageQuery,
) {
  const { page, pageSize } = query;
  requireAdmin(actor);
  const total = await listCount(
    table === contactMessages ? COUNT_KEYS.contactMessages : COUNT_KEYS.callbackRequests,
  );
  const win = newestFirstWindow(query, table.createdAt, table.id);
  const found = (await db()
    .select()
    .from(table as typeof contactMessages)
    .where(win.after)
    .orderBy(desc(table.createdAt), desc(table.id))
    .limit(win.limit)
    .offset(win.offset)) as unknown as T["$inferSelect"][];
  const { rows, nextCursor } = win.cut(found, (r) => r);
  return { rows, total, page, pageSize, nextCursor };
}

/** Admin: Contact Us messages. */
export async function listContactMessages(actor: Actor, query: PageQuery): Promise<Paged<ApiContactMessage>> {
  const { rows, ...rest } = await newestFirst(actor, contactMessages, query);
  const items = rows.map((r) => ({
    _id: r.id,
    name: r.name,
    email: r.email,
    message: r.message,
    userId: r.userId,
    createdAt: r.createdAt.toISOString(),
  }));
  return { items, ...rest };
}

/** Admin: callback requests. */
export async function listCallbackRequests(
  actor: Actor,
  query: PageQuery,
): Promise<Paged<ApiCallbackRequest>> {
  const { rows, ...rest } = await newestFirst(actor, callbackRequests, query);
  const items = rows.map((r) => ({
    _id: r.id,
    name: r.name,
    countryCode: r.countryCode,
    phoneNumber: r.phoneNumber,
    message: r.message,
    userId: r.userId,
    createdAt: r.createdAt.toISOString(),
  }));
  return { items, ...rest };
}

// ---------------------------------------------------------------------------------------
// Erasure (decision 0022)

/**
 * Inside the erasure's transaction: the person's Contact Us messages and callback requests go —
 * those sent signed in, and those sent signed out from their e-mail address or one of their
 * numbers (the callback form keeps the country code and the national digits as typed).
 */
export function* contactErasureSteps(
  tx: DB,
  person: { userId: string; email: string; numbers: string[] },
): TxSteps<void> {
  const email = person.email.trim().toLowerCase();
  yield* exec(
    tx
      .delete(contactMessages)
      .where(
        or(eq(contactMessages.userId, person.userId), email ? eq(contactMessages.email, email) : undefined),
      ),
  );
  const byNumber = person.numbers
    .map((n) => splitE164(n))
    .filter((p): p is NonNullable<typeof p> => !!p)
    .map((p) =>
      and(
        eq(callbackRequests.countryCode, p.countryCode),
        like(callbackRequests.phoneNumber, `%${p.national}`),
      ),
    );
  // The digits as stored, whatever the metadata says of them today: the dial code and the number
  // without its leading zeros spell "+" and the digits of one of the person's numbers.
  const asStored = person.numbers.length
    ? inArray(
        sql`(${callbackRequests.countryCode} || ltrim(${callbackRequests.phoneNumber}, '0'))`,
        person.numbers,
      )
    : undefined;
  yield* exec(
    tx.delete(callbackRequests).where(or(eq(callbackRequests.userId, person.userId), asStored, ...byNumber)),
  );
}
