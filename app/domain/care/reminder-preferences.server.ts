import { and, eq, inArray, isNull, or } from "drizzle-orm";
import { db, first } from "~/db/client.server";
import { patientManagers, patients, users, type PatientRow } from "~/db/schema";
import type { RemindBy } from "~/db/types";
import { parsePhoneNumberFromString } from "libphonenumber-js/max";
import { isLocale, type Locale } from "~/i18n/config";
import { maskPhone, smsNumber } from "~/lib/phone.server";
import { reminderPreferenceSchema } from "~/schemas/next-steps";
import { audit, type Actor } from "../platform/index.server";
import { DomainError, zodFieldErrors } from "../platform/errors";
import { traceAccess } from "./patients.server";
import { accessFor, callCandidateOf, unproven } from "./proven-numbers.server";

/**
 * How a patient is reminded of her opinion's next steps (decision 0114): by SMS, a call, an e-mail
 * or not at all, at an hour of the clinic's day. Like the notice preference (decision 0080) she
 * sets it herself, or a family manager or her centre's health worker sets it for her; a call only
 * to a number proven to be hers (decision 0102); an e-mail only where her account has an address.
 */

export type ReminderPreference = {
  remindBy: RemindBy;
  remindHour: number;
  /** The number an SMS or call goes to, masked; null: none on record. */
  phone: string | null;
  phoneProven: boolean;
  /** Whether her account has an e-mail address (an e-mail reminder needs one). */
  hasEmail: boolean;
};

/** Where her reminders can go, and her language (read at send time, never stored with the job). */
export type ReminderContact = {
  sms: string | null;
  /** Only a proven number (decision 0102). */
  call: string | null;
  email: string | null;
  locale: Locale;
};

async function emailOf(patient: Pick<PatientRow, "accountId">): Promise<string | null> {
  if (!patient.accountId) return null;
  const row = await first(
    db().select({ email: users.email }).from(users).where(eq(users.id, patient.accountId)),
  );
  return row?.email || null;
}

export async function reminderContact(patient: PatientRow): Promise<ReminderContact> {
  const candidate = await callCandidateOf(patient);
  const sms = candidate && smsNumber(candidate.number).ok ? candidate.number : null;
  return {
    sms,
    call: candidate?.proven ? candidate.number : null,
    email: await emailOf(patient),
    locale: isLocale(patient.locale) ? patient.locale : "en",
  };
}

async function preferenceOf(
  patient: PatientRow,
  remindBy = patient.remindBy,
  remindHour = patient.remindHour,
) {
  const candidate = await callCandidateOf(patient);
  return {
    remindBy,
    remindHour,
    phone: candidate ? maskPhone(candidate.number) : null,
    phoneProven: !!candidate?.proven,
    hasEmail: !!(await emailOf(patient)),
  } satisfies ReminderPreference;
}

export async function reminderPreference(
  actor: Actor,
  patientId: string | null,
): Promise<ReminderPreference> {
  const { patient } = await accessFor(actor, patientId || null);
  return preferenceOf(patient);
}

export async function setReminderPreference(
  actor: Actor,
  patientId: string | null,
  input: unknown,
  opts: { ip?: string | null } = {},
): Promise<ReminderPreference> {
  const access = await accessFor(actor, patientId || null);
  const patient = access.patient;
  const parsed = reminderPreferenceSchema.safeParse(input);
  if (!parsed.success)
    throw new DomainError("invalid", "reminders.checkFields", { fieldErrors: zodFieldErrors(parsed.error) });
  const { remindBy, remindHour } = parsed.data;
  const candidate = await callCandidateOf(patient);
  if ((remindBy === "sms" || remindBy === "call") && !candidate)
    throw new DomainError("invalid", "reminders.noPhone", {
      fieldErrors: { remindBy: ["reminders.noPhone"] },
    });
  if (remindBy === "call" && !candidate?.proven) throw unproven();
  if (remindBy === "email" && !(await emailOf(patient)))
    throw new DomainError("invalid", "reminders.noEmail", {
      fieldErrors: { remindBy: ["reminders.noEmail"] },
    });
  await db()
    .update(patients)
    .set({ remindBy, remindHour, updatedAt: new Date() })
    .where(eq(patients.id, patient.id));
  const detail = { remindBy, remindHour };
  if (access.kind === "self")
    await audit(actor, "patient.step_reminders", "patient", patient.id, detail, opts.ip);
  else await traceAccess(actor, access, "patient.step_reminders", detail, opts.ip);
  return preferenceOf(patient, remindBy, remindHour);
}

/**
 * The profiles a reply from `number` may be about: the profile's own number, her account's mobile
 * or contact number, or that of the family account managing her (access not revoked).
 */
export async function profilesAtNumber(number: string): Promise<string[]> {
  // The account's mobile number, or the contact number it gave (national digits beside its dial code).
  const parsed = parsePhoneNumberFromString(number);
  const contact = parsed
    ? and(
        eq(users.countryCode, `+${parsed.countryCallingCode}`),
        eq(users.contactNumber, String(parsed.nationalNumber)),
      )
    : undefined;
  const accounts = db()
    .select({ id: users.id })
    .from(users)
    .where(contact ? or(eq(users.phone, number), contact) : eq(users.phone, number));
  const managed = db()
    .select({ id: patientManagers.patientId })
    .from(patientManagers)
    .where(and(inArray(patientManagers.managerId, accounts), isNull(patientManagers.revokedAt)));
  const found = await db()
    .select({ id: patients.id })
    .from(patients)
    .where(
      or(eq(patients.phone, number), inArray(patients.accountId, accounts), inArray(patients.id, managed)),
    );
  return found.map((r) => r.id);
}
