import { and, eq } from "drizzle-orm";
import { db, first } from "~/db/client.server";
import { auditEvents, users } from "~/db/schema";

/**
 * Who uploaded a report for the person when it was not the person (a family manager or a health
 * worker, before a take-over): review consent for it was given by them, and My data says so.
 */
export async function uploadedFor(
  patientId: string,
  reportId: string,
): Promise<{ via: "manager" | "centre"; name: string } | null> {
  const up = await first(
    db()
      .select({ id: users.id, firstName: users.firstName, lastName: users.lastName, type: users.accountType })
      .from(auditEvents)
      .innerJoin(users, eq(users.id, auditEvents.actorId))
      .where(and(eq(auditEvents.action, "report.upload"), eq(auditEvents.subjectId, reportId))),
  );
  if (!up || up.id === patientId) return null;
  return {
    via: up.type === "HealthWorker" ? "centre" : "manager",
    name: `${up.firstName} ${up.lastName}`.trim(),
  };
}
