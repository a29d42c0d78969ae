import { hostname } from "node:os";
import { desc, gte } from "drizzle-orm";
import { config } from "~/config.server";
import { db } from "~/db/client.server";
import { callLines } from "~/db/schema";
import { numberForms } from "~/lib/phone.server";
import { refusedCallsToday } from "./queue.server";
import { DomainError } from "../platform/errors";
import type { Actor } from "../platform/index.server";
import { trustedSources } from "./trunk.server";

/**
 * The clinic's phone line as the admins' Calls tab shows it (decision 0093): whether one is set up
 * at all (VOICE_URL), and for a SIP line whether each node's line is registered with the trunk —
 * so "no line" is never mistaken for "no calls yet". The SIP line writes its state here on each
 * registration event and once a minute; a row not refreshed for three minutes is shown as silent.
 */

export type LineState = "registering" | "registered" | "not-registered" | "no-registration" | "not-running";

const SILENT_MS = 3 * 60_000;
const FORGOTTEN_MS = 24 * 3_600_000;

let last: LineState | null = null;

/**
 * The user parts the SIP line answers to (decision 0093), the account's own first: baresip turns
 * away (404) a call whose address is none of its accounts', and trunks and GSM gateways address the
 * clinic's number each in their own way. Then VOICE_NUMBER in its international, national and bare
 * forms, and VOICE_SIP_USERS.
 */
export function lineUsers(): string[] {
  const v = config().voice;
  const own = decodeURIComponent(v.url?.username ?? "") || "carebridge";
  return [...new Set([own, ...numberForms(v.number), ...v.sipUsers])];
}

/** This node's line reports its state (a change moves `changedAt`; the same state only `seenAt`). */
export async function reportLineState(state: LineState, detail: string | null): Promise<void> {
  const now = new Date();
  const changed = state !== last;
  last = state;
  await db()
    .insert(callLines)
    .values({ node: hostname(), state, detail, changedAt: now, seenAt: now })
    .onConflictDoUpdate({
      target: callLines.node,
      set: changed ? { state, detail, changedAt: now, seenAt: now } : { detail, seenAt: now },
    });
}

export type PhoneLineNode = {
  node: string;
  /** "silent": the row was not refreshed for three minutes (the server or its sender stopped). */
  state: LineState | "silent";
  detail: string | null;
  since: string;
  seenAt: string;
};

export type PhoneLine = {
  /** none: VOICE_URL unset, calls are written to the call outbox; sip; provider (an HTTP voice provider). */
  kind: "none" | "sip" | "provider";
  /** VOICE_NUMBER, the clinic's published number. */
  number: string | null;
  /** The trunk (host:port) or the provider's host. */
  trunk: string | null;
  /** SIP: where missed calls arrive, the user parts answered, the UDP ports of the sound. */
  listen: string | null;
  answersTo: string[];
  rtpPorts: [number, number] | null;
  nodes: PhoneLineNode[];
  /** SIP: the addresses missed calls are taken from (decision 0101: VOICE_SIP_TRUSTED, else the trunk's host). */
  trusted: string[];
  /** Missed calls refused in the last 24 hours (decision 0101): not from the trunk, from the clinic's own number. */
  refused: { notTrunk: number; ownNumber: number };
};

/** The Calls tab's account of the line: admins only. */
export async function phoneLine(actor: Actor): Promise<PhoneLine> {
  if (actor.accountType !== "Admin") throw new DomainError("forbidden", "messages.adminsOnly");
  const v = config().voice;
  const counts = await refusedCallsToday();
  const refused = {
    notTrunk: counts["refused-not-trunk"] ?? 0,
    ownNumber: counts["refused-own-number"] ?? 0,
  };
  if (v.kind === "folder")
    return {
      kind: "none",
      number: v.number ?? null,
      trunk: null,
      listen: null,
      answersTo: [],
      rtpPorts: null,
      nodes: [],
      trusted: [],
      refused,
    };
  if (v.kind === "http")
    return {
      kind: "provider",
      number: v.number ?? null,
      trunk: v.url!.host,
      listen: null,
      answersTo: [],
      rtpPorts: null,
      nodes: [],
      trusted: [],
      refused,
    };
  const now = Date.now();
  const rows = await db()
    .select()
    .from(callLines)
    .where(gte(callLines.seenAt, new Date(now - FORGOTTEN_MS)))
    .orderBy(desc(callLines.seenAt))
    .limit(20);
  return {
    kind: "sip",
    number: v.number ?? null,
    trunk: v.url!.host,
    listen: v.sipListen,
    answersTo: lineUsers(),
    rtpPorts: v.rtpPorts,
    trusted: trustedSources(),
    refused,
    nodes: rows.map((r) => ({
      node: r.node,
      state: now - r.seenAt.getTime() > SILENT_MS ? "silent" : (r.state as LineState),
      detail: r.detail,
      since: r.changedAt.toISOString(),
      seenAt: r.seenAt.toISOString(),
    })),
  };
}
