import { and, eq, isNull } from "drizzle-orm";
import { db, first } from "~/db/client.server";
import { centres, healthWorkers, users } from "~/db/schema";
import { getT } from "~/i18n/i18n.server";
import { isLocale } from "~/i18n/config";
import { log } from "~/utils/log.server";
import { notify, recipientColumns } from "../messaging/notify.server";
import { queueSms } from "../messaging/sms.server";
import { findPatient } from "./patients.server";

/**
 * Telling the people who act for a profile that its opinion is ready (decision 0030). The person's
 * own account hears as always; a centre's patient through their centre's health workers and, when
 * they gave a phone, one SMS to it that names neither them nor anything medical.
 */
export async function notifyOpinionReady(patientId: string, opts: { seeDoctorSoon: boolean }) {
  const patient = await findPatient(patientId);
  if (!patient) return;
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
        sms: { key: "sms.opinionReady", purpose: "opinion-ready" },
      });
  }

  if (patient.centreId && !patient.centreAccessRevokedAt) {
    const centre = await first(db().select().from(centres).where(eq(centres.id, patient.centreId)));
    if (centre) {
      await notifyCentreWorkers(patient.id, patient.shortId ?? "", centre);
      // The patient's (or their family's) phone, when they have no account of their own to hear on.
      if (patient.phone && !patient.accountId) {
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

  // Family managers' notices (a dependant's opinion ready, never naming the member) belong here.
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
