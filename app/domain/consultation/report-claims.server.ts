import { and, count, eq, gt, inArray, isNotNull, isNull, lt, lte, ne, or, sql, type SQL } from "drizzle-orm";
import { config } from "~/config.server";
import { exec, rows, transaction, type DB, type TxSteps } from "~/db/client.server";
import { auditEvents, expertProfiles, reports, type ReportRow } from "~/db/schema";
import { auditInsert } from "../platform/index.server";
import { DomainError } from "../platform/errors";
import { holdLogin, specialtiesOf } from "../accounts/index.server";
import { hidePhonesOfRefusers } from "../rights/index.server";
import type { Actor } from "../platform/index.server";
import { liveClaim, type ApiReport } from "./api-report.server";
import { findJoined, findRow, fromJoined, requireApprovedExpert } from "./report-rows.server";
import { getReportForReview } from "./review-screen.server";

/**
 * Claims ("Start review", decision 0023): claiming, renewing and releasing a report, the cap, the
 * cool-down, and why a claim or review was refused.
 */

/*
 * A claim's columns (decision 0023): `claimed_by` is the expert who last held the claim
 * and `claim_expires_at` when it ends; the claim is live while that time is ahead. A release ends
 * it at once (the time becomes "now") and keeps who held it, so the same expert's cool-down can be
 * told from the row; a review or a withdrawn approval clears it. Every condition below is written
 * so that a NULL column never turns it into NULL (which a WHERE reads as false).
 */

/** The claim has ended, or there is none: no holder, no end time, or the end time has passed. */
function claimEnded(now: Date): SQL {
  return or(isNull(reports.claimedBy), isNull(reports.claimExpiresAt), lte(reports.claimExpiresAt, now))!;
}

/** A claim is free for `actor` when nobody holds it live, or it is theirs. */
export function claimIsFree(actorId: string, now: Date): SQL {
  return or(claimEnded(now), eq(reports.claimedBy, actorId))!;
}

/** Not `actor`'s own live claim (so no renewal is being asked for). */
function notOwnLiveClaim(actorId: string, now: Date): SQL {
  return or(claimEnded(now), ne(reports.claimedBy, actorId))!;
}

/**
 * Not in `actor`'s cool-down: the expert whose claim on a report ended (released, or lapsed) cannot
 * claim that report again for one claim period (CLAIM_TTL_MINUTES) after it ended, unless another
 * expert claimed it meanwhile — so release and claim again cannot reset the renewal count.
 */
function notCoolingDown(actorId: string, now: Date, cooldownMs: number): SQL {
  return or(
    isNull(reports.claimedBy),
    ne(reports.claimedBy, actorId),
    isNull(reports.claimExpiresAt),
    gt(reports.claimExpiresAt, now),
    lte(reports.claimExpiresAt, new Date(now.getTime() - cooldownMs)),
  )!;
}

/** Why a claim or review failed, read after the conditional update matched nothing. */
export async function explainRefusal(reportId: string): Promise<never> {
  const joined = await findJoined(reportId);
  if (!joined) throw new DomainError("not_found", "reports.notFound");
  if (joined.report.status === "Reviewed") throw new DomainError("conflict", "reports.alreadyReviewed");
  if (!joined.claimer?.id || !liveClaim(joined.report)) {
    throw new DomainError("conflict", "reports.claimedBySomeone");
  }
  const who = `${joined.claimer.firstName} ${joined.claimer.lastName}`.trim();
  throw new DomainError("conflict", "reports.claimedByOther", { values: { name: who } });
}

export type OtherPart = "gaveFirst" | "other";

/**
 * Transaction steps: whether `actorId` took part in another opinion of the case of `reportId` (the
 * first report and its second opinions, decision 0038): reviewed it, holds or held its claim (the
 * row keeps its last claimant, the audit trail's `report.claim` events every earlier one), or asked
 * for it. One expert never signs two opinions of one case (decision 0058). "gaveFirst"
 * when they reviewed the first opinion or hold its live claim (or asked for a second opinion, which
 * only that expert may), "other" for any other part, else null. Run after the write to the expert's
 * own users row, so that one expert's claims and reviews of two opinions at once see each other.
 */
export function* partInOtherOpinion(tx: DB, actorId: string, reportId: string): TxSteps<OtherPart | null> {
  const [row] = yield* rows(
    tx.select({ id: reports.id, secondOf: reports.secondOf }).from(reports).where(eq(reports.id, reportId)),
  );
  if (!row) return null;
  const root = row.secondOf ?? row.id;
  const others = yield* rows(
    tx
      .select()
      .from(reports)
      .where(and(or(eq(reports.id, root), eq(reports.secondOf, root)), ne(reports.id, row.id))),
  );
  if (!others.length) return null;
  if (row.secondOf) {
    const first = others.find((o) => o.id === root);
    if (first && (first.expertId === actorId || (liveClaim(first) && first.claimedBy === actorId)))
      return "gaveFirst";
    if (others.some((o) => o.secondRequestedBy === actorId)) return "gaveFirst";
  }
  if (others.some((o) => o.expertId === actorId || o.claimedBy === actorId)) return "other";
  const claimed = yield* rows(
    tx
      .select({ id: auditEvents.id })
      .from(auditEvents)
      .where(
        and(
          eq(auditEvents.subjectType, "report"),
          inArray(
            auditEvents.subjectId,
            others.map((o) => o.id),
          ),
          eq(auditEvents.action, "report.claim"),
          eq(auditEvents.actorId, actorId),
        ),
      )
      .limit(1),
  );
  return claimed.length ? "other" : null;
}

/** The refusal for a part in another opinion of the case: 403, saying why. */
export function otherPartRefusal(part: OtherPart): DomainError {
  return new DomainError(
    "forbidden",
    part === "gaveFirst" ? "panel.firstExpertCannot" : "panel.oneOpinionPerCase",
  );
}

/**
 * A second opinion is for an expert of the specialty asked for (decision 0038). Returns the row when
 * it is a second opinion, else null. Who took part in another opinion of the case is refused inside
 * the claiming or signing transaction (partInOtherOpinion).
 */
export async function assertMayReviewSecond(actor: Actor, reportId: string): Promise<ReportRow | null> {
  const row = await findRow(reportId);
  if (!row?.secondOf) return null;
  const specialties = actor.specialties ?? (await specialtiesOf(actor.id));
  if (!row.secondSpecialty || !specialties.includes(row.secondSpecialty)) {
    throw new DomainError("forbidden", "panel.notYourSpecialty");
  }
  return row;
}

/**
 * An approved expert starts reviewing a pending report ("Start review"): one conditional update
 * decides, so of several experts claiming at once exactly one wins; the others get conflict
 * "reports.claimedByOther". Claiming one's own live claim again renews it, at most
 * CLAIM_RENEW_MAX times ("reports.claimRenewLimit"); then it lapses after CLAIM_TTL_MINUTES and
 * the report is back in the queue for everyone. An expert holds at most CLAIM_MAX live claims
 * ("reports.claimLimit", decision 0023). The expert whose claim ended (released or lapsed) cannot take
 * the same report again for one claim period unless another expert claimed it meanwhile
 * ("reports.claimCooldown"), so releasing and claiming again does not reset the renewals. An
 * expert without a registration number (approved before approval required one) cannot sign, so
 * cannot claim either ("reports.registrationToSign").
 *
 * The cap is counted inside the transaction after a write to the expert's own users row: on
 * SQLite BEGIN IMMEDIATE already runs one transaction at a time; on PostgreSQL that row lock
 * makes one expert's concurrent claims wait for each other, and the count (a new snapshot per
 * statement under READ COMMITTED) sees the claims committed before. The same write re-checks
 * that the expert is still approved.
 */
export async function claimReport(
  actor: Actor,
  reportId: string,
  opts: { ip?: string | null } = {},
): Promise<ApiReport> {
  requireApprovedExpert(actor);
  const c = config();
  const now = new Date();
  const id = String(reportId ?? "");
  await assertMayReviewSecond(actor, id);
  const ownLive = and(eq(reports.claimedBy, actor.id), gt(reports.claimExpiresAt, now))!;
  const outcome = await transaction(function* (tx) {
    if (!(yield* holdLogin(tx, actor.id, { approvedOnly: true }))) return "unapproved" as const;
    const part = yield* partInOtherOpinion(tx, actor.id, id);
    if (part) return part;
    const [profile] = yield* rows(
      tx
        .select({ registrationNumber: expertProfiles.registrationNumber })
        .from(expertProfiles)
        .where(eq(expertProfiles.userId, actor.id)),
    );
    if (!profile?.registrationNumber?.trim()) return "unregistered" as const;
    const held = yield* rows(
      tx
        .select({ n: count() })
        .from(reports)
        .where(
          and(
            eq(reports.claimedBy, actor.id),
            gt(reports.claimExpiresAt, now),
            eq(reports.status, "Pending"),
            ne(reports.id, id),
          ),
        ),
    );
    if ((held[0]?.n ?? 0) >= c.claimMax) return "cap" as const;
    const updated = yield* rows(
      tx
        .update(reports)
        .set({
          claimedBy: actor.id,
          claimedAt: now,
          claimExpiresAt: new Date(now.getTime() + c.claimTtlMs),
          claimRenewals: sql`CASE WHEN ${ownLive} THEN ${reports.claimRenewals} + 1 ELSE 0 END`,
        })
        .where(
          and(
            eq(reports.id, id),
            eq(reports.status, "Pending"),
            claimIsFree(actor.id, now),
            or(notOwnLiveClaim(actor.id, now), lt(reports.claimRenewals, c.claimRenewMax)),
            notCoolingDown(actor.id, now, c.claimTtlMs),
          ),
        )
        .returning({ id: reports.id, renewals: reports.claimRenewals }),
    );
    if (updated.length !== 1) return "refused" as const;
    yield* exec(
      auditInsert(
        tx,
        actor,
        "report.claim",
        "report",
        updated[0].id,
        updated[0].renewals ? { renewal: updated[0].renewals } : null,
        opts.ip,
      ),
    );
    return "won" as const;
  });
  if (outcome === "unapproved") throw new DomainError("forbidden", "reports.awaitApproval");
  if (outcome === "gaveFirst" || outcome === "other") throw otherPartRefusal(outcome);
  if (outcome === "unregistered") throw new DomainError("forbidden", "reports.registrationToSign");
  if (outcome === "cap") {
    throw new DomainError("conflict", "reports.claimLimit", { values: { max: c.claimMax } });
  }
  if (outcome === "refused") {
    const row = await findRow(id);
    if (row && row.status === "Pending" && row.claimedBy === actor.id && row.claimExpiresAt) {
      if (liveClaim(row)) {
        throw new DomainError("conflict", "reports.claimRenewLimit", { values: { max: c.claimRenewMax } });
      }
      const wait = row.claimExpiresAt.getTime() + c.claimTtlMs - Date.now();
      if (wait > 0) {
        throw new DomainError("conflict", "reports.claimCooldown", {
          values: { minutes: Math.max(1, Math.ceil(wait / 60_000)) },
        });
      }
    }
    await explainRefusal(id);
  }
  return getReportForReview(actor, reportId);
}

/** The claimant (or an admin) gives a report back to the queue. */
export async function releaseReport(
  actor: Actor,
  reportId: string,
  opts: { ip?: string | null } = {},
): Promise<ApiReport> {
  if (actor.accountType === "Expert") requireApprovedExpert(actor);
  else if (actor.accountType !== "Admin") throw new DomainError("forbidden", "reports.onlyExperts");
  const now = new Date();
  const released = await transaction(function* (tx) {
    const updated = yield* rows(
      tx
        .update(reports)
        // The claim ends now; claimed_by keeps who held it, for their cool-down (see notCoolingDown).
        .set({ claimExpiresAt: now, claimRenewals: 0 })
        .where(
          and(
            eq(reports.id, String(reportId ?? "")),
            eq(reports.status, "Pending"),
            isNotNull(reports.claimedBy),
            gt(reports.claimExpiresAt, now),
            actor.accountType === "Admin" ? undefined : eq(reports.claimedBy, actor.id),
          ),
        )
        .returning({ id: reports.id }),
    );
    if (updated.length === 1)
      yield* exec(auditInsert(tx, actor, "report.release", "report", updated[0].id, null, opts.ip));
    return updated.length === 1;
  });
  if (!released) {
    const row = await findRow(String(reportId ?? ""));
    if (!row) throw new DomainError("not_found", "reports.notFound");
    if (row.status === "Reviewed") throw new DomainError("conflict", "reports.alreadyReviewed");
    throw new DomainError("conflict", "reports.notYourClaim");
  }
  const joined = (await findJoined(String(reportId)))!;
  return (await hidePhonesOfRefusers(actor, [fromJoined(joined)]))[0];
}
