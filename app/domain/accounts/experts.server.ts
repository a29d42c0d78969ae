import { and, count, desc, eq, exists, isNull, ne, sql } from "drizzle-orm";
import { db, exec, first, rows, transaction } from "~/db/client.server";
import { expertProfiles, expertSpecialties, profiles, reports, users } from "~/db/schema";
import type { ExpertDetailsInput } from "~/schemas/experts";
import type { Paged, PageQuery } from "../platform/paging";
import { auditInsert } from "../platform/index.server";
import { expertDetailsFor, expertDetailsSteps, expertsWithSpecialties } from "./expert-details.server";
import { specialtiesFor } from "~/schemas/specialties";
import { DomainError } from "../platform/errors";
import { notify, recipientColumns, type Recipient } from "../messaging/index.server";
import type { Actor } from "./sessions.server";
import { toApiUser, type ApiUser } from "./users.server";
import { newestFirstWindow } from "../platform/index.server";

/**
 * Expert accounts: the admin's approval queue and the list of approved experts.
 *
 * toApiUser (the contract's User object) lives in users.server.ts, shared with accounts and
 * profile; it is re-exported here so report/expert adapters can import it from one place.
 */
export { toApiUser, type ApiUser };

// ---------------------------------------------------------------------------------------

function requireAdmin(actor: Actor) {
  if (actor.accountType !== "Admin") throw new DomainError("forbidden", "experts.adminsOnly");
}

async function listExperts(approved: boolean, pageQuery: PageQuery): Promise<Paged<ApiUser>> {
  const { page, pageSize } = pageQuery;
  // Waiting for approval: not approved and not rejected (a rejected expert re-applies from Settings).
  const where = approved
    ? and(eq(users.accountType, "Expert"), eq(users.approved, true))
    : and(eq(users.accountType, "Expert"), eq(users.approved, false), isNull(expertProfiles.rejectedAt));
  const total =
    (
      await first(
        db()
          .select({ n: count() })
          .from(users)
          .leftJoin(expertProfiles, eq(expertProfiles.userId, users.id))
          .where(where),
      )
    )?.n ?? 0;
  const win = newestFirstWindow(pageQuery, users.createdAt, users.id);
  const foundRead = await db()
    .select({ user: users, profile: profiles })
    .from(users)
    .leftJoin(profiles, eq(profiles.userId, users.id))
    .leftJoin(expertProfiles, eq(expertProfiles.userId, users.id))
    .where(and(where, win.after))
    // users_type_approved_created_idx (account_type, approved, created_at, id).
    .orderBy(desc(users.createdAt), desc(users.id))
    .limit(win.limit)
    .offset(win.offset);
  const { rows: found, nextCursor } = win.cut(foundRead, (r) => r.user);
  const details = await expertDetailsFor(found.map((r) => r.user.id));
  return {
    nextCursor,
    items: found.map((r) => toApiUser(r.user, r.profile, details.get(r.user.id) ?? null)),
    total,
    page,
    pageSize,
  };
}

/** Admin: experts waiting for approval, newest sign-up first. */
export async function listPendingExperts(actor: Actor, page: PageQuery): Promise<Paged<ApiUser>> {
  requireAdmin(actor);
  return listExperts(false, page);
}

/**
 * What one expert may know of a colleague: name, picture and the "about" text (where experts
 * describe their speciality). E-mail, phone, gender and date of birth are left empty; the
 * object keeps the contract's User shape.
 */
export function toColleague(u: ApiUser): ApiUser {
  return {
    ...u,
    email: "",
    contactNumber: "",
    countryCode: "",
    additionalDetails: {
      about: u.additionalDetails.about,
      gender: null,
      dateOfBirth: null,
      contactNumber: "",
    },
    // Specialties and registration are printed on every opinion letter; the admin's decision is not a colleague's business.
    ...(u.expertDetails
      ? {
          expertDetails: {
            ...u.expertDetails,
            yearsOfPractice: null,
            approvedAt: null,
            approvedBy: null,
            rejectedAt: null,
            rejectionReason: null,
          },
        }
      : {}),
  };
}

/** Experts and Admins: approved experts, newest first; experts see colleagues (`toColleague`). */
export async function listApprovedExperts(actor: Actor, page: PageQuery): Promise<Paged<ApiUser>> {
  if (actor.accountType !== "Expert" && actor.accountType !== "Admin") {
    throw new DomainError("forbidden", "experts.expertsOrAdmins");
  }
  const result = await listExperts(true, page);
  return actor.accountType === "Admin" ? result : { ...result, items: result.items.map(toColleague) };
}

/**
 * Admin: approves an expert account. Unknown id or not an expert → not_found. Approving an
 * already approved expert changes nothing and returns the user (no second mail or audit). An
 * expert without a registration number cannot be approved: conflict "experts.registrationMissing".
 */
export async function approveExpert(actor: Actor, expertId: string, ip?: string | null): Promise<ApiUser> {
  requireAdmin(actor);
  const user = await first(db().select().from(users).where(eq(users.id, expertId)));
  if (!user || user.accountType !== "Expert") throw new DomainError("not_found", "experts.notFound");
  const now = new Date();
  // Every letter prints the signer's registration number, so there is none without one.
  const hasRegistration = exists(
    db()
      .select({ one: sql`1` })
      .from(expertProfiles)
      .where(and(eq(expertProfiles.userId, users.id), ne(expertProfiles.registrationNumber, ""))),
  );
  const changed = await transaction(function* (tx) {
    const won = yield* rows(
      tx
        .update(users)
        .set({ approved: true, updatedAt: now })
        .where(
          and(
            eq(users.id, expertId),
            eq(users.accountType, "Expert"),
            eq(users.approved, false),
            hasRegistration,
          ),
        )
        .returning({ id: users.id }),
    );
    if (won.length !== 1) {
      const [current] = yield* rows(
        tx.select({ approved: users.approved }).from(users).where(eq(users.id, expertId)),
      );
      return current?.approved ? false : ("no_registration" as const);
    }
    // Who approved and when: on the expert's record and in the audit log.
    const decision = {
      approvedBy: actor.id,
      approvedAt: now,
      rejectedAt: null,
      rejectionReason: null,
      updatedAt: now,
    };
    yield* exec(
      tx
        .insert(expertProfiles)
        .values({ userId: expertId, ...decision })
        .onConflictDoUpdate({ target: expertProfiles.userId, set: decision }),
    );
    yield* exec(auditInsert(tx, actor, "expert.approve", "user", expertId, null, ip));
    return true;
  });
  if (changed === "no_registration") throw new DomainError("conflict", "experts.registrationMissing");
  if (changed) {
    if (!user.suspendedAt) {
      notify(user, {
        subject: "mail.expertApprovedSubject",
        body: "mail.expertApprovedBody",
        action: "mail.expertApprovedAction",
        path: "/dashboard/pending-report",
      });
    }
  }
  return expertUser(expertId);
}

/** One expert's User object with verification details (for admins and the expert themself). */
export async function expertUser(expertId: string): Promise<ApiUser> {
  const fresh = await first(
    db()
      .select({ user: users, profile: profiles })
      .from(users)
      .leftJoin(profiles, eq(profiles.userId, users.id))
      .where(eq(users.id, expertId)),
  );
  if (!fresh) throw new DomainError("not_found", "experts.notFound");
  const details = await expertDetailsFor([expertId]);
  return toApiUser(fresh.user, fresh.profile, details.get(expertId) ?? null);
}

/**
 * Admin: declines an expert's application with a reason, which the expert is told by mail (and
 * sees in the dashboard). Only experts awaiting approval; the expert may correct their details in
 * Settings, which puts them back in the queue.
 */
export async function rejectExpert(
  actor: Actor,
  input: { expertId: string; reason: string },
  ip?: string | null,
): Promise<ApiUser> {
  requireAdmin(actor);
  const user = await first(db().select().from(users).where(eq(users.id, input.expertId)));
  if (!user || user.accountType !== "Expert") throw new DomainError("not_found", "experts.notFound");
  if (user.approved) throw new DomainError("conflict", "experts.alreadyApproved");
  const now = new Date();
  const decision = {
    rejectedAt: now,
    rejectionReason: input.reason,
    approvedBy: null,
    approvedAt: null,
    updatedAt: now,
  };
  await transaction(function* (tx) {
    yield* exec(
      tx
        .insert(expertProfiles)
        .values({ userId: user.id, ...decision })
        .onConflictDoUpdate({ target: expertProfiles.userId, set: decision }),
    );
    yield* exec(auditInsert(tx, actor, "expert.reject", "user", user.id, null, ip));
  });
  if (!user.suspendedAt) {
    notify(user, {
      subject: "mail.expertRejectedSubject",
      body: "mail.expertRejectedBody",
      action: "mail.expertRejectedAction",
      path: "/dashboard/settings",
      lines: (t) => [t("mail.expertRejectedReason", { reason: input.reason })],
    });
  }
  return expertUser(user.id);
}

/**
 * An expert updates their own verification details (Settings, the API). A rejected application
 * goes back into the admin's queue. An approved expert keeps their approval unless the
 * registration number or council changes (decision 0023: that is what every letter and /verify
 * print) or a specialty is added (decision 0058: specialties decide which reports and second
 * opinions they may take; dropping one keeps the approval), so the account goes back to the admin's Pending Expert queue (approval withdrawn, live
 * claims released, audited as "expert.details_review"); letters already signed keep the details
 * they were signed with. `backToReview` says whether that happened.
 */
export async function updateExpertDetails(
  actor: Actor,
  input: ExpertDetailsInput,
  ip?: string | null,
): Promise<{ user: ApiUser; backToReview: boolean }> {
  if (actor.accountType !== "Expert") throw new DomainError("forbidden", "experts.onlyExperts");
  const now = new Date();
  const backToReview = await transaction(function* (tx) {
    const [before] = yield* rows(
      tx
        .select({
          approved: users.approved,
          registrationNumber: expertProfiles.registrationNumber,
          registrationCouncil: expertProfiles.registrationCouncil,
        })
        .from(users)
        .leftJoin(expertProfiles, eq(expertProfiles.userId, users.id))
        .where(eq(users.id, actor.id)),
    );
    const changed: string[] = [];
    if (
      input.registrationNumber !== undefined &&
      input.registrationNumber !== (before?.registrationNumber ?? "")
    )
      changed.push("registrationNumber");
    if (
      input.registrationCouncil !== undefined &&
      input.registrationCouncil !== (before?.registrationCouncil ?? "")
    )
      changed.push("registrationCouncil");
    if (input.specialties !== undefined) {
      const had = (yield* rows(
        tx
          .select({ s: expertSpecialties.specialty })
          .from(expertSpecialties)
          .where(eq(expertSpecialties.userId, actor.id)),
      )).map((r) => r.s);
      // A specialty added widens what they may sign (decision 0058): dropping one only narrows it.
      if (input.specialties.some((s) => !had.includes(s))) changed.push("specialties");
    }
    yield* expertDetailsSteps(tx, actor.id, input, now);
    yield* exec(
      tx
        .update(expertProfiles)
        .set({ rejectedAt: null, rejectionReason: null })
        .where(eq(expertProfiles.userId, actor.id)),
    );
    if (!before?.approved || !changed.length) return false;
    const withdrawn = yield* rows(
      tx
        .update(users)
        .set({ approved: false, updatedAt: now })
        .where(and(eq(users.id, actor.id), eq(users.approved, true)))
        .returning({ id: users.id }),
    );
    if (withdrawn.length !== 1) return false;
    yield* exec(
      tx
        .update(expertProfiles)
        .set({ approvedAt: null, approvedBy: null })
        .where(eq(expertProfiles.userId, actor.id)),
    );
    // Reports they were reviewing go back to the queue at once.
    yield* exec(
      tx
        .update(reports)
        .set({ claimedBy: null, claimedAt: null, claimExpiresAt: null, claimRenewals: 0 })
        .where(and(eq(reports.claimedBy, actor.id), eq(reports.status, "Pending"))),
    );
    yield* exec(auditInsert(tx, actor, "expert.details_review", "user", actor.id, { changed }, ip));
    return true;
  });
  return { user: await expertUser(actor.id), backToReview };
}

/**
 * Who hears about a new report of this type: approved, active experts whose specialties read it
 * (ROUTING in specialties.ts); when nobody matches, every approved expert.
 */
export async function expertRecipientsFor(reportType: string): Promise<Recipient[]> {
  const matching = await expertsWithSpecialties(specialtiesFor(reportType));
  return matching.length ? matching : approvedExpertRecipients();
}

/** Approved, not suspended experts. Uses the type/approved index. */
export async function approvedExpertRecipients(): Promise<Recipient[]> {
  return db()
    .select(recipientColumns)
    .from(users)
    .where(and(eq(users.accountType, "Expert"), eq(users.approved, true), isNull(users.suspendedAt)));
}
