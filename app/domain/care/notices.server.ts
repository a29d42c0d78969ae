import { and, eq, isNull } from "drizzle-orm";
import { db, first } from "~/db/client.server";
import { patientManagers, users } from "~/db/schema";
import { notify, recipientColumns } from "../messaging/notify.server";
import { findPatient } from "./patients.server";

/**
 * Telling the people who act for a profile that its opinion is ready (decision 0030). The person's
 * own account hears as always.
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
  await notifyManagersOpinionReady(patient.id);
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
