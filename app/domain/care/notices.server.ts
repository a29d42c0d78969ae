import { eq } from "drizzle-orm";
import { db, first } from "~/db/client.server";
import { users } from "~/db/schema";
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
}
