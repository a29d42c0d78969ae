import { and, asc, eq, isNull } from "drizzle-orm";
import { db, first } from "~/db/client.server";
import {
  patientManagers,
  patients,
  users,
  type CallWindow,
  type NoticeBy,
  type PatientRow,
} from "~/db/schema";
import { callableNumber, maskPhone } from "~/lib/phone.server";
import { phoneCandidate } from "~/lib/phone-shape";
import { noticeSchema } from "~/schemas/calls";
import { audit, type Actor } from "../platform/index.server";
import { DomainError, zodFieldErrors } from "../platform/errors";
import { familyProfiles, patientAccess, traceAccess, type PatientAccess } from "./patients.server";

/**
 * "Call me" (decision 0080): how a profile hears that an opinion is ready — a text, a phone call or
 * both — and the part of the day a call may come. The person sets it for herself; a family manager
 * or the health worker of her centre sets it for her (they act for her); an admin does not. A call
 * needs a number on record (callNumberOf).
 */

export type NoticePreference = {
  noticeBy: NoticeBy;
  callWindow: CallWindow;
  /** The number a call goes to, masked; null when there is none (then only SMS can be chosen). */
  phone: string | null;
};

async function accessFor(actor: Actor, patientId: string | null): Promise<PatientAccess> {
  const id = patientId ?? (actor.accountType === "Patient" ? actor.id : "");
  const access = id ? await patientAccess(actor, id) : null;
  if (!access || access.kind === "admin") throw new DomainError("not_found", "reports.patientNotFound");
  return access;
}

/**
 * The number a call about this profile goes to (decisions 0080, 0093): the profile's own (hers, the
 * family's, or the one her centre registered); else her account's — its mobile number, or the
 * contact number she gave at sign-up (Settings, Profile) when it is one we may call; a member
 * without a login of their own: the same of the family account that manages them (the first).
 */
export async function callNumberOf(
  patient: Pick<PatientRow, "id" | "phone" | "accountId">,
): Promise<string | null> {
  if (patient.phone) return patient.phone;
  const columns = { phone: users.phone, countryCode: users.countryCode, contactNumber: users.contactNumber };
  const account = patient.accountId
    ? await first(db().select(columns).from(users).where(eq(users.id, patient.accountId)))
    : await first(
        db()
          .select(columns)
          .from(patientManagers)
          .innerJoin(users, eq(users.id, patientManagers.managerId))
          .where(and(eq(patientManagers.patientId, patient.id), isNull(patientManagers.revokedAt)))
          .orderBy(asc(patientManagers.createdAt)),
      );
  if (!account) return null;
  if (account.phone) return account.phone;
  const given = phoneCandidate(account.contactNumber ?? "", account.countryCode || "+91");
  const callable = given ? callableNumber(given) : null;
  return callable?.ok ? callable.e164 : null;
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

async function preferenceOf(patient: PatientRow): Promise<NoticePreference> {
  const number = await callNumberOf(patient);
  return {
    noticeBy: patient.noticeBy,
    callWindow: patient.callWindow,
    phone: number ? maskPhone(number) : null,
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
  const number = await callNumberOf(patient);
  if (noticeBy !== "sms" && !number)
    throw new DomainError("invalid", "calls.noPhone", { fieldErrors: { noticeBy: ["calls.noPhone"] } });
  await db()
    .update(patients)
    .set({ noticeBy, callWindow, updatedAt: new Date() })
    .where(eq(patients.id, patient.id));
  // One line in her access trail: by her, or by the manager or health worker who acted for her.
  if (access.kind === "self")
    await audit(actor, "patient.notice_set", "patient", patient.id, { noticeBy, callWindow }, opts.ip);
  else await traceAccess(actor, access, "patient.notice_set", { noticeBy, callWindow }, opts.ip);
  return { noticeBy, callWindow, phone: number ? maskPhone(number) : null };
}
