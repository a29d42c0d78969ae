import { and, eq, isNull } from "drizzle-orm";
import { db, first } from "~/db/client.server";
import { centres, healthWorkers, patientManagers, users } from "~/db/schema";
import { getT } from "~/i18n/i18n.server";
import { isLocale } from "~/i18n/config";
import { log } from "~/lib/log.server";
import { notify, queueSms, recipientColumns } from "../messaging/index.server";
import { nextWindowStart, queueCall } from "../calls/index.server";
import { callNumberOf } from "./call-preferences.server";
import { findPatient } from "./patients.server";

/**
 * Telling the people who act for a profile that its opinion is ready (decision 0030). The person's
 * own account hears as always.
 */
export async function notifyOpinionReady(patientId: string, opts: { seeDoctorSoon: boolean }) {
  const patient = await findPatient(patientId);
  if (!patient) return;
  // "Call me" (decision 0080): a call in the person's window, instead of or besides the text — to
  // a number proven to be hers only (decision 0102); without one, the text goes as if she had not
  // chosen a call, so she still hears.
  const callTo = patient.noticeBy !== "sms" ? await callNumberOf(patient) : null;
  const textToo = patient.noticeBy !== "call" || !callTo;
  if (callTo) await queueOpinionCall(patient, callTo);
  if (patient.accountId) {
    const own = await first(
      db()
        .select({ ...recipientColumns, suspendedAt: users.suspendedAt })
        .from(users)
        .where(eq(users.id, patient.accountId)),
    );
    if (own && !own.suspendedAt)
      notify(own, {
        subject: "mail.reviewedSubject",
        body: opts.seeDoctorSoon ? "mail.reviewedImportantBody" : "mail.reviewedBody",
        action: "mail.reviewedAction",
        path: `/dashboard/previous-report/${encodeURIComponent(patient.id)}`,
        sms: textToo ? { key: "sms.opinionReady", purpose: "opinion-ready" } : undefined,
      });
  }
  if (patient.centreId && !patient.centreAccessRevokedAt) {
    const centre = await first(db().select().from(centres).where(eq(centres.id, patient.centreId)));
    if (centre) {
      await notifyCentreWorkers(patient.id, patient.shortId ?? "", centre);
      // The patient's (or their family's) phone, when they have no account of their own to hear on.
      if (patient.phone && !patient.accountId && textToo) {
        const t = await getT(isLocale(patient.locale) ? patient.locale : "en");
        await queueSms({
          to: patient.phone,
          text: t("registration.smsOpinionReady", { centre: centre.name }),
          purpose: "opinion-ready",
        }).catch((err) =>
          log("error", "could not queue the patient's SMS", { error: String(err?.message ?? err) }),
        );
      }
    }
  }

  await notifyManagersOpinionReady(patient.id);
}

/** The call that tells the person her opinion is ready, at the start of her window (decision 0080). */
async function queueOpinionCall(
  patient: NonNullable<Awaited<ReturnType<typeof findPatient>>>,
  number: string,
) {
  await queueCall({
    number,
    patientId: patient.id,
    purpose: "opinion-ready",
    locale: patient.locale,
    at: nextWindowStart(patient.callWindow),
  }).catch((err) => log("error", "could not queue the opinion call", { error: String(err?.message ?? err) }));
}

/**
 * The family accounts that manage the profile (access not revoked) hear that "a report in your
 * family has an answer" — by mail and, with a phone, by SMS — never whose: a shared phone's
 * messages are read by the whole household. The link opens the family screen.
 */
export async function notifyManagersOpinionReady(patientId: string) {
  const managers = await db()
    .select({ ...recipientColumns, suspendedAt: users.suspendedAt })
    .from(patientManagers)
    .innerJoin(users, eq(users.id, patientManagers.managerId))
    .where(and(eq(patientManagers.patientId, patientId), isNull(patientManagers.revokedAt)));
  for (const m of managers) {
    if (m.suspendedAt) continue;
    notify(m, {
      subject: "family.noticeSubject",
      body: "family.noticeBody",
      action: "family.noticeAction",
      path: "/dashboard/family",
      sms: { key: "family.smsOpinionReady", purpose: "opinion-ready" },
    });
  }
}

/** The centre's approved, unsuspended health workers, each by their own notice settings. */
async function notifyCentreWorkers(patientId: string, shortId: string, centre: { id: string; name: string }) {
  const workers = await db()
    .select(recipientColumns)
    .from(healthWorkers)
    .innerJoin(users, eq(users.id, healthWorkers.userId))
    .where(
      and(
        eq(healthWorkers.centreId, centre.id),
        eq(users.accountType, "HealthWorker"),
        eq(users.approved, true),
        isNull(users.suspendedAt),
      ),
    );
  for (const w of workers) {
    notify(w, {
      subject: "registration.mailOpinionReadySubject",
      body: "registration.mailOpinionReadyBody",
      action: "registration.mailOpinionReadyAction",
      path: `/dashboard/centre/patients/${encodeURIComponent(patientId)}`,
      vars: { shortId, centre: centre.name },
    });
  }
}
