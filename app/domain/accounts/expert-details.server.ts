import { recipientColumns } from "../messaging/index.server";
import { and, eq, inArray, isNull } from "drizzle-orm";
import { alias } from "~/db/alias";
import { db, exec, type DB, type TxSteps } from "~/db/client.server";
import { expertProfiles, expertSpecialties, users } from "~/db/schema";
import type { ExpertDetailsInput } from "~/schemas/experts";
import { bySpecialtyOrder, SPECIALTIES } from "~/schemas/specialties";

/**
 * Expert verification details (decision 0013): registration number and council, years of practice,
 * specialties (one row each in expert_specialties, which routing reads), and the admin's decision
 * (approved by whom and when, or rejected with a reason). No other module writes these tables.
 */

/** An expert's verification details as the API shows them. */
export type ApiExpertDetails = {
  specialties: string[];
  registrationNumber: string;
  registrationCouncil: string;
  yearsOfPractice: number | null;
  approvedAt: string | null;
  approvedBy: { _id: string; firstName: string; lastName: string } | null;
  rejectedAt: string | null;
  rejectionReason: string | null;
};

/** Transaction steps that store (or replace) an expert's details; fields left undefined stay as they are. */
export function* expertDetailsSteps(
  tx: DB,
  userId: string,
  input: ExpertDetailsInput,
  now = new Date(),
): TxSteps<void> {
  const set: Partial<typeof expertProfiles.$inferInsert> = { updatedAt: now };
  if (input.registrationNumber !== undefined) set.registrationNumber = input.registrationNumber;
  if (input.registrationCouncil !== undefined) set.registrationCouncil = input.registrationCouncil;
  if (input.yearsOfPractice !== undefined) set.yearsOfPractice = input.yearsOfPractice;
  yield* exec(
    tx
      .insert(expertProfiles)
      .values({ userId, ...set })
      .onConflictDoUpdate({ target: expertProfiles.userId, set }),
  );
  if (input.specialties !== undefined) {
    yield* exec(tx.delete(expertSpecialties).where(eq(expertSpecialties.userId, userId)));
    const chosen = SPECIALTIES.filter((s) => input.specialties!.includes(s));
    if (chosen.length)
      yield* exec(tx.insert(expertSpecialties).values(chosen.map((specialty) => ({ userId, specialty }))));
  }
}

const approver = alias(users, "approver");

/** Details of many experts at once (two queries), by user id; experts without a row get empty details. */
export async function expertDetailsFor(userIds: string[]): Promise<Map<string, ApiExpertDetails>> {
  const ids = [...new Set(userIds.filter(Boolean))];
  const out = new Map<string, ApiExpertDetails>();
  if (!ids.length) return out;
  for (const id of ids)
    out.set(id, {
      specialties: [],
      registrationNumber: "",
      registrationCouncil: "",
      yearsOfPractice: null,
      approvedAt: null,
      approvedBy: null,
      rejectedAt: null,
      rejectionReason: null,
    });
  for (let i = 0; i < ids.length; i += 500) {
    const batch = ids.slice(i, i + 500);
    const [profilesFound, specialtiesFound] = await Promise.all([
      db()
        .select({
          p: expertProfiles,
          approver: { id: approver.id, firstName: approver.firstName, lastName: approver.lastName },
        })
        .from(expertProfiles)
        .leftJoin(approver, eq(approver.id, expertProfiles.approvedBy))
        .where(inArray(expertProfiles.userId, batch)),
      db().select().from(expertSpecialties).where(inArray(expertSpecialties.userId, batch)),
    ]);
    for (const { p, approver: a } of profilesFound) {
      const d = out.get(p.userId)!;
      d.registrationNumber = p.registrationNumber;
      d.registrationCouncil = p.registrationCouncil;
      d.yearsOfPractice = p.yearsOfPractice;
      d.approvedAt = p.approvedAt?.toISOString() ?? null;
      d.approvedBy = a?.id ? { _id: a.id, firstName: a.firstName, lastName: a.lastName } : null;
      d.rejectedAt = p.rejectedAt?.toISOString() ?? null;
      d.rejectionReason = p.rejectionReason;
    }
    for (const s of specialtiesFound) out.get(s.userId)?.specialties.push(s.specialty);
  }
  // In the fixed list's order, whatever order the rows came in.
  for (const d of out.values()) d.specialties.sort(bySpecialtyOrder);
  return out;
}

/** One expert's specialties (routing of the pending list). */
export async function specialtiesOf(userId: string): Promise<string[]> {
  const found = await db()
    .select({ s: expertSpecialties.specialty })
    .from(expertSpecialties)
    .where(eq(expertSpecialties.userId, userId));
  return found.map((r) => r.s);
}

/** Approved, active experts holding any of these specialties. */
export async function expertsWithSpecialties(specialties: readonly string[]) {
  if (!specialties.length) return [];
  return db()
    .selectDistinct({ id: users.id, ...recipientColumns })
    .from(expertSpecialties)
    .innerJoin(users, eq(users.id, expertSpecialties.userId))
    .where(
      and(
        inArray(expertSpecialties.specialty, [...specialties]),
        eq(users.accountType, "Expert"),
        eq(users.approved, true),
        isNull(users.suspendedAt),
      ),
    );
}
