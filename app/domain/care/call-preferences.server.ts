import { eq } from "drizzle-orm";
import { config } from "~/config.server";
import { db } from "~/db/client.server";
import { patients, type CallWindow, type NoticeBy, type PatientRow } from "~/db/schema";
import { maskPhone } from "~/lib/phone.server";
import { noticeSchema } from "~/schemas/calls";
import { audit, type Actor } from "../platform/index.server";
import { DomainError, zodFieldErrors } from "../platform/errors";
import { familyProfiles, traceAccess } from "./patients.server";
import { accessFor, callCandidateOf, unproven } from "./proven-numbers.server";

/**
 * "Call me" (decision 0080): how a profile hears that an opinion is ready — a text, a phone call or
 * both — and the part of the day a call may come. The person sets it for herself; a family manager
 * or the health worker of her centre sets it for her (they act for her); an admin does not. A call
 * needs a number on record, proven to be hers (callNumberOf; decision 0102).
 */

export type NoticePreference = {
  noticeBy: NoticeBy;
  callWindow: CallWindow;
  /** The number a call goes to, masked; null when there is none (then only SMS can be chosen). */
  phone: string | null;
  /** Whether that number is proven to be hers (decision 0102): a call is chosen only then. */
  phoneProven: boolean;
  /** The clinic's number, given a missed call from hers to prove it (VOICE_NUMBER); null: none. */
  clinicNumber: string | null;
};

/**
 * The number a call about this profile goes to (decisions 0080, 0093), only once it is proven to be
 * hers (decision 0102): never an unproven number, for the opinion call or anything else.
 */
export async function callNumberOf(
  patient: Pick<PatientRow, "id" | "phone" | "accountId">,
): Promise<string | null> {
  const candidate = await callCandidateOf(patient);
  return candidate?.proven ? candidate.number : null;
}

export async function noticePreference(
  actor: Actor,
  patientId: string | null = null,
): Promise<NoticePreference> {
  const { patient } = await accessFor(actor, patientId);
  return preferenceOf(patient);
}

/**
 * The family page: how each member the account manages without a login of their own hears about
 * an opinion (one with a login, and the account itself, set it in their own Settings). The
 * family's profiles are read once, whatever its size.
 */
export async function familyNoticePreferences(actor: Actor): Promise<Record<string, NoticePreference>> {
  const out: Record<string, NoticePreference> = {};
  for (const p of await familyProfiles(actor)) if (!p.accountId) out[p.id] = await preferenceOf(p);
  return out;
}

async function preferenceOf(
  patient: PatientRow,
  noticeBy = patient.noticeBy,
  callWindow = patient.callWindow,
): Promise<NoticePreference> {
  const candidate = await callCandidateOf(patient);
  return {
    noticeBy,
    callWindow,
    phone: candidate ? maskPhone(candidate.number) : null,
    phoneProven: !!candidate?.proven,
    clinicNumber: config().voice.number ?? null,
  };
}

export async function setNoticePreference(
  actor: Actor,
  patientId: string | null,
  input: unknown,
  opts: { ip?: string | null } = {},
): Promise<NoticePreference> {
  const access = await accessFor(actor, patientId);
  const patient = access.patient;
  const parsed = noticeSchema.safeParse(input);
  if (!parsed.success)
    throw new DomainError("invalid", "calls.checkFields", { fieldErrors: zodFieldErrors(parsed.error) });
  const { noticeBy, callWindow } = parsed.data;
  const candidate = await callCandidateOf(patient);
  if (noticeBy !== "sms" && !candidate)
    throw new DomainError("invalid", "calls.noPhone", { fieldErrors: { noticeBy: ["calls.noPhone"] } });
  // A number not proven to be hers is never called (decision 0102): she proves it first.
  if (noticeBy !== "sms" && !candidate?.proven) throw unproven();
  await db()
    .update(patients)
    .set({ noticeBy, callWindow, updatedAt: new Date() })
    .where(eq(patients.id, patient.id));
  // One line in her access trail: by her, or by the manager or health worker who acted for her.
  if (access.kind === "self")
    await audit(actor, "patient.notice_set", "patient", patient.id, { noticeBy, callWindow }, opts.ip);
  else await traceAccess(actor, access, "patient.notice_set", { noticeBy, callWindow }, opts.ip);
  return preferenceOf(patient, noticeBy, callWindow);
}
