import { and, count, desc, eq, isNull } from "drizzle-orm";
import { config } from "~/config.server";
import { db, first } from "~/db/client.server";
import { profiles, users, type UserRow } from "~/db/schema";
import { isLocale, type Locale } from "~/i18n/config";
import { getT } from "~/i18n/i18n.server";
import { site } from "~/site";
import type { Paged, PageQuery } from "~/utils/api.server";
import { log } from "~/utils/log.server";
import { audit } from "./audit.server";
import { DomainError } from "./errors";
import { sendMailInBackground, simpleHtml } from "./mail.server";
import type { Actor } from "./sessions.server";
import { toApiUser, type ApiUser } from "./users.server";

/**
 * Expert accounts: the admin's approval queue and the list of approved experts.
 *
 * toApiUser (the contract's User object) lives in users.server.ts, shared with accounts and
 * profile; it is re-exported here so report/expert adapters can import it from one place.
 */
export { toApiUser, type ApiUser };

// ---------------------------------------------------------------------------------------
// Notification mail in the recipient's language (also used by reports.server.ts)

type Recipient = Pick<UserRow, "email" | "firstName" | "locale">;

/**
 * Sends one short notification to a user in their language, in the background (a mail
 * failure never fails the action). Only ids-free, medical-content-free text: the keys
 * under `mail.*` with a greeting, a link into the app and the footer.
 */
export function notifyUser(
  to: Recipient,
  message: { subject: string; body: string; action: string; path: string },
): void {
  const locale: Locale = isLocale(to.locale) ? to.locale : "en";
  getT(locale)
    .then((t) => {
      const vars = { product: site.productName, name: to.firstName || to.email };
      const href = `${config().appUrl}${message.path}`;
      const greeting = t("mail.greeting", vars);
      const body = t(message.body, vars);
      const footer = t("mail.footer", vars);
      sendMailInBackground({
        to: to.email,
        subject: t(message.subject, vars),
        text: `${greeting}\n\n${body}\n\n${t("mail.openLink", { url: href })}\n\n${footer}`,
        html: simpleHtml([greeting, body, footer], { href, label: t(message.action, vars) }),
      });
    })
    .catch((err) => log("error", "notification failed", { error: String(err?.message ?? err) }));
}

// ---------------------------------------------------------------------------------------

function requireAdmin(actor: Actor) {
  if (actor.accountType !== "Admin") throw new DomainError("forbidden", "experts.adminsOnly");
}

async function listExperts(approved: boolean, { page, pageSize }: PageQuery): Promise<Paged<ApiUser>> {
  const where = and(eq(users.accountType, "Expert"), eq(users.approved, approved));
  const total = (await first(db().select({ n: count() }).from(users).where(where)))?.n ?? 0;
  const rows = await db()
    .select({ user: users, profile: profiles })
    .from(users)
    .leftJoin(profiles, eq(profiles.userId, users.id))
    .where(where)
    // users_type_approved_created_idx (account_type, approved, created_at, id).
    .orderBy(desc(users.createdAt), desc(users.id))
    .limit(pageSize)
    .offset((page - 1) * pageSize);
  return { items: rows.map((r) => toApiUser(r.user, r.profile)), total, page, pageSize };
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
 * already approved expert changes nothing and returns the user (no second mail or audit).
 */
export async function approveExpert(actor: Actor, expertId: string, ip?: string | null): Promise<ApiUser> {
  requireAdmin(actor);
  const user = await first(db().select().from(users).where(eq(users.id, expertId)));
  if (!user || user.accountType !== "Expert") throw new DomainError("not_found", "experts.notFound");
  const changed =
    (
      await db()
        .update(users)
        .set({ approved: true, updatedAt: new Date() })
        .where(and(eq(users.id, expertId), eq(users.accountType, "Expert"), eq(users.approved, false)))
        .returning({ id: users.id })
    ).length === 1;
  if (changed) {
    await audit(actor, "expert.approve", "user", expertId, null, ip);
    if (!user.suspendedAt) {
      notifyUser(user, {
        subject: "mail.expertApprovedSubject",
        body: "mail.expertApprovedBody",
        action: "mail.expertApprovedAction",
        path: "/dashboard/pending-report",
      });
    }
  }
  const fresh = (await first(
    db()
      .select({ user: users, profile: profiles })
      .from(users)
      .leftJoin(profiles, eq(profiles.userId, users.id))
      .where(eq(users.id, expertId)),
  ))!;
  return toApiUser(fresh.user, fresh.profile);
}

/** Approved, not suspended experts: who hears about a new report. Uses the type/approved index. */
export async function approvedExpertRecipients(): Promise<Recipient[]> {
  return db()
    .select({ email: users.email, firstName: users.firstName, locale: users.locale })
    .from(users)
    .where(and(eq(users.accountType, "Expert"), eq(users.approved, true), isNull(users.suspendedAt)));
}
