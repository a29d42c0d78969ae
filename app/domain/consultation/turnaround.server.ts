import { and, count, eq, gt, gte, inArray, isNotNull, isNull, sql, type SQL } from "drizzle-orm";
import { db, runExclusive } from "~/db/client.server";
import { auditEvents, reports, users } from "~/db/schema";
import { REPORT_TYPE_KEYS, type ReportType } from "~/schemas/reports";
import { audit } from "../platform/audit.server";
import { DomainError } from "../platform/errors";
import { notify, recipientColumns } from "../messaging/notify.server";
import { COUNT_KEYS, listCount, listCountsOf } from "../platform/list-counts.server";
import {
  notYetDueCondition,
  overdueCondition,
  overdueReports,
  PRIORITIES,
  type ApiReport,
} from "./reports.server";
import type { Actor } from "../accounts/sessions.server";

/**
 * Turnaround (decision 0013): how long patients wait. Admins see pending / in review / overdue counts,
 * the median and 90th-percentile time from upload to opinion over the last 30 days, each
 * expert's claims, reviews and median time, and the overdue list; an hourly job mails admins a
 * digest of newly overdue reports (each report once).
 */

const DAY = 86_400_000;
const WINDOW_DAYS = 30;

/** Nearest-rank percentile of sorted values (ms), or null when there are none. */
export function percentile(sorted: number[], p: number): number | null {
  if (!sorted.length) return null;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1];
}

export type ExpertTurnaround = {
  expert: { _id: string; firstName: string; lastName: string };
  claimed: number;
  reviewed: number;
  medianMs: number | null;
};

export type Turnaround = {
  pending: number;
  inReview: number;
  overdue: number;
  windowDays: number;
  reviewedInWindow: number;
  medianMs: number | null;
  p90Ms: number | null;
  experts: ExpertTurnaround[];
  overdueReports: ApiReport[];
};

/** The queue counts and the time to opinion of a set of reports (every report, or one centre's). */
export type TurnaroundFigures = {
  pending: number;
  inReview: number;
  overdue: number;
  windowDays: number;
  reviewedInWindow: number;
  medianMs: number | null;
  p90Ms: number | null;
};

/**
 * The one definition of the figures: pending (not in review), in review (a live claim), overdue,
 * and the median and 90th percentile from upload to opinion over the last 30 days — of every report,
 * or of one centre's, so the centres screen and this one can never disagree.
 */
async function figuresOf(centreId: string | null, now: number) {
  const since = new Date(now - WINDOW_DAYS * DAY);
  const inWindow = and(eq(reports.status, "Reviewed"), gte(reports.reviewedAt, since))!;
  const [{ pending, inReview, overdue }, times] = await Promise.all([
    queueCounts(centreId, now),
    centreId ? centreWindow(centreId, now, inWindow) : opinionTimesOf(inWindow),
  ]);
  const figures: TurnaroundFigures = {
    pending,
    inReview,
    overdue,
    windowDays: WINDOW_DAYS,
    reviewedInWindow: times.reviewed,
    medianMs: times.medianMs,
    p90Ms: times.p90Ms,
  };
  return { figures, done: times.done, since };
}

/**
 * The queue's counts of every report or of one centre's, none of them a count over the archive
 * (decision 0046): pending by priority from the list counters; in review from the claims still
 * running (reports_live_claims_idx: few, whatever the archive); overdue as pending minus the
 * reports not yet due, per priority (the last review-target hours of uploads).
 */
export async function queueCounts(centreId: string | null, now: number) {
  const keyOf = (p: number) =>
    centreId
      ? COUNT_KEYS.centreReportsOf(centreId, "Pending", p)
      : COUNT_KEYS.reportsOfStatusPriority("Pending", p);
  const scoped = (c: SQL) => (centreId ? and(eq(reports.centreId, centreId), c)! : c);
  const [pending, claims, notDue] = await Promise.all([
    listCountsOf(PRIORITIES.map(keyOf)),
    db()
      .select({ centreId: reports.centreId, n: count() })
      .from(reports)
      .where(and(eq(reports.status, "Pending"), gt(reports.claimExpiresAt, new Date(now))))
      .groupBy(reports.centreId),
    notYetDue(scoped, now),
  ]);
  const inReview = claims
    .filter((c) => !centreId || c.centreId === centreId)
    .reduce((sum, c) => sum + Number(c.n), 0);
  const notDueOf = (p: number) => Number(notDue.find((r) => r.priority === p)?.n ?? 0);
  const pendingAll = pending.reduce((a, b) => a + b, 0);
  return {
    pending: pendingAll - inReview,
    inReview,
    overdue: PRIORITIES.reduce<number>((sum, p, i) => sum + Math.max(0, pending[i] - notDueOf(p)), 0),
    /** Every pending report (in review or not), by priority in PRIORITIES' order. */
    waitingByPriority: pending,
  };
}

/**
 * How many pending reports of each priority are not overdue yet: one count per priority, each its
 * own index range (one statement, their union) — a GROUP BY over both would walk every pending row.
 */
async function notYetDue(scoped: (c: SQL) => SQL, now: number) {
  const [urgent, routine] = PRIORITIES.map((p) =>
    db()
      .select({ priority: sql<number>`${sql.raw(String(p))}`.mapWith(Number), n: count() })
      .from(reports)
      .where(scoped(notYetDueCondition(p, now))),
  );
  return urgent.unionAll(routine);
}

type WindowTimes = { done: OpinionRow[]; reviewed: number; medianMs: number | null; p90Ms: number | null };
type KeptWindow = { version: number; from: number; until: number; times: WindowTimes };
const keptWindows = new Map<string, KeptWindow>();
const KEPT_CENTRES = 10_000;

/**
 * A centre's 30-day times to opinion, kept by this node while they cannot have changed (decision
 * 0047): they change only when one of the centre's reports is written — which moves the centre's
 * version, a counter row every node reads — or when the oldest opinion leaves the window. The
 * version is read before the opinions, so figures are never kept under a version newer than they
 * are. The admin's centres list then costs its counters, not each centre's month of opinions.
 */
async function centreWindow(centreId: string, now: number, inWindow: SQL): Promise<WindowTimes> {
  const version = await listCount(COUNT_KEYS.centreVersion(centreId));
  const kept = keptWindows.get(centreId);
  if (kept && kept.version === version && now >= kept.from && now <= kept.until) return kept.times;
  const times = await opinionTimesOf(and(eq(reports.centreId, centreId), inWindow)!);
  const oldest = Math.min(...times.done.map((r) => r.reviewedAt!.getTime()));
  if (keptWindows.size >= KEPT_CENTRES) keptWindows.clear();
  keptWindows.set(centreId, { version, from: now, until: oldest + WINDOW_DAYS * DAY, times });
  return times;
}

type OpinionRow = {
  id: string;
  secondOf: string | null;
  createdAt: Date;
  reviewedAt: Date | null;
  expertId: string | null;
};

/** The median and 90th percentile of the time to opinion of the cases whose opinions `where` selects. */
async function opinionTimesOf(where: SQL): Promise<WindowTimes> {
  const done: OpinionRow[] = await db()
    .select({
      id: reports.id,
      secondOf: reports.secondOf,
      createdAt: reports.createdAt,
      reviewedAt: reports.reviewedAt,
      expertId: reports.expertId,
    })
    .from(reports)
    .where(where);
  const durations = (await caseDurations(done)).sort((a, b) => a - b);
  return {
    done,
    reviewed: durations.length,
    medianMs: percentile(durations, 50),
    p90Ms: percentile(durations, 90),
  };
}

/** The time to opinion of the opinions given while `where` holds (the Service screen's weeks). */
export async function opinionTimes(where: SQL) {
  const { reviewed, medianMs, p90Ms } = await opinionTimesOf(and(eq(reports.status, "Reviewed"), where)!);
  return { reviewed, medianMs, p90Ms };
}

/**
 * The time a patient waited for each case (decision 0038): from the upload to its last opinion, so
 * a case with a second opinion counts once, until the second opinion is given; a case whose second
 * opinion is still awaited is not done yet and is left out. `done` are the opinions given in the
 * window; each case is counted at its last one.
 */
async function caseDurations(
  done: { id: string; secondOf: string | null; createdAt: Date; reviewedAt: Date | null }[],
): Promise<number[]> {
  const withSeconds = new Set(done.filter((r) => r.secondOf).map((r) => r.secondOf!));
  const started = new Map<string, Date>(done.filter((r) => !r.secondOf).map((r) => [r.id, r.createdAt]));
  const lookUp = [...withSeconds].filter((id) => !started.has(id));
  // reports_second_of_idx and the primary key: only cases that had a second opinion are looked up.
  const [roots, awaited] = await Promise.all([
    lookUp.length
      ? db()
          .select({ id: reports.id, createdAt: reports.createdAt })
          .from(reports)
          .where(inArray(reports.id, lookUp))
      : [],
    // The second opinions still awaited: a range of reports_second_queue_idx (status, then the
    // specialty every second opinion is asked of), not a walk of every pending report.
    done.length
      ? db()
          .select({ secondOf: reports.secondOf })
          .from(reports)
          .where(
            and(
              eq(reports.status, "Pending"),
              isNotNull(reports.secondSpecialty),
              isNotNull(reports.secondOf),
            )!,
          )
      : [],
  ]);
  for (const r of roots) started.set(r.id, r.createdAt);
  const open = new Set(awaited.map((r) => r.secondOf));
  const last = new Map<string, number>();
  for (const r of done) {
    const root = r.secondOf ?? r.id;
    last.set(root, Math.max(last.get(root) ?? 0, r.reviewedAt!.getTime()));
  }
  const out: number[] = [];
  for (const [root, at] of last) {
    const start = started.get(root);
    if (!start || open.has(root)) continue;
    out.push(at - start.getTime());
  }
  return out;
}

/** The figures of every report, or of one centre's. No permission check: callers check. */
export async function turnaroundFigures(
  centreId: string | null,
  now = Date.now(),
): Promise<TurnaroundFigures> {
  return (await figuresOf(centreId, now)).figures;
}

export async function getTurnaround(actor: Actor, now = Date.now()): Promise<Turnaround> {
  if (actor.accountType !== "Admin") throw new DomainError("forbidden", "reports.adminsOnly");
  const { figures, done, since } = await figuresOf(null, now);
  const perExpert = new Map<string, number[]>();
  for (const r of done) {
    if (!r.expertId) continue;
    const list = perExpert.get(r.expertId) ?? [];
    list.push(r.reviewedAt!.getTime() - r.createdAt.getTime());
    perExpert.set(r.expertId, list);
  }
  // audit_events_action_created_idx (action, created_at, id): claims in the window, per expert.
  const claims = await db()
    .select({ actorId: auditEvents.actorId, n: count() })
    .from(auditEvents)
    .where(and(eq(auditEvents.action, "report.claim"), gte(auditEvents.createdAt, since)))
    .groupBy(auditEvents.actorId);
  const claimed = new Map(claims.filter((c) => c.actorId).map((c) => [c.actorId!, c.n]));
  const ids = [...new Set([...perExpert.keys(), ...claimed.keys()])];
  const names = ids.length
    ? await db()
        .select({ id: users.id, firstName: users.firstName, lastName: users.lastName })
        .from(users)
        .where(inArray(users.id, ids))
    : [];
  const experts = names
    .map((u) => {
      const times = (perExpert.get(u.id) ?? []).sort((a, b) => a - b);
      return {
        expert: { _id: u.id, firstName: u.firstName, lastName: u.lastName },
        claimed: claimed.get(u.id) ?? 0,
        reviewed: times.length,
        medianMs: percentile(times, 50),
      };
    })
    .sort(
      (a, b) =>
        b.reviewed - a.reviewed ||
        b.claimed - a.claimed ||
        a.expert.firstName.localeCompare(b.expert.firstName),
    );
  return {
    ...figures,
    experts,
    overdueReports: await overdueReports(50, now),
  };
}

const DIGEST_LINES = 30;

/**
 * The hourly overdue digest: marks every newly overdue report as notified (one conditional update
 * on one node at a time), then mails each active admin one message listing them — type and how
 * long the patient has waited, never medical content. A report is in at most one digest.
 */
export async function sendOverdueDigest(now = Date.now()): Promise<number> {
  const sent = await runExclusive("overdue", async () => {
    const fresh = await db()
      .update(reports)
      .set({ overdueNotifiedAt: new Date(now) })
      .where(and(overdueCondition(now), isNull(reports.overdueNotifiedAt)))
      .returning({
        id: reports.id,
        reportType: reports.reportType,
        createdAt: reports.createdAt,
        priority: reports.priority,
      });
    if (!fresh.length) return 0;
    fresh.sort((a, b) => a.priority - b.priority || a.createdAt.getTime() - b.createdAt.getTime());
    await audit(null, "report.overdue_notice", "report", null, { reports: fresh.length });
    const admins = await db()
      .select(recipientColumns)
      .from(users)
      .where(and(eq(users.accountType, "Admin"), isNull(users.suspendedAt)));
    for (const admin of admins) {
      notify(admin, {
        subject: "mail.overdueSubject",
        body: "mail.overdueBody",
        action: "mail.overdueAction",
        path: "/dashboard/turnaround",
        vars: { count: fresh.length },
        lines: (t) => [
          ...fresh.slice(0, DIGEST_LINES).map((r) =>
            t(r.priority === 0 ? "mail.overdueLineUrgent" : "mail.overdueLine", {
              type: t(REPORT_TYPE_KEYS[r.reportType as ReportType] ?? r.reportType),
              hours: Math.floor((now - r.createdAt.getTime()) / 3_600_000),
            }),
          ),
          ...(fresh.length > DIGEST_LINES
            ? [t("mail.overdueMore", { count: fresh.length - DIGEST_LINES })]
            : []),
        ],
      });
    }
    return fresh.length;
  });
  return sent ?? 0;
}
