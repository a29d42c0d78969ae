import {
  and,
  count,
  eq,
  gt,
  gte,
  inArray,
  isNotNull,
  isNull,
  sql,
  type AnyColumn,
  type Placeholder,
  type SQL,
} from "drizzle-orm";
import { constantText, db, opaqueTime, preparedOnce, runExclusive, timeParam } from "~/db/client.server";
import { auditEvents, reports, users } from "~/db/schema";
import { REPORT_TYPE_KEYS, type ReportType } from "~/schemas/reports";
import { audit } from "../platform/index.server";
import { DomainError } from "../platform/errors";
import { notify, recipientColumns } from "../messaging/index.server";
import { centreKey, COUNT_KEYS, counterColumn } from "../platform/index.server";
import type { ApiReport } from "./api-report.server";
import {
  dueCutoff,
  notYetDueCondition,
  overdueCondition,
  overdueReports,
  PRIORITIES,
} from "./overdue-reports.server";
import type { Actor } from "../platform/index.server";

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
async function figuresOf(now: number) {
  const since = new Date(now - WINDOW_DAYS * DAY);
  const [queue, times] = await Promise.all([queueCounts(null, now), opinionTimesOf(windowOf(null, since))]);
  return { figures: figuresFrom(queue, times), done: times.done, since };
}

/** The opinions given since `since`: of every report, or of one centre's. */
function windowOf(centreId: string | null, since: Date): SQL {
  const inWindow = and(eq(reports.status, "Reviewed"), gte(reports.reviewedAt, since))!;
  return centreId ? and(eq(reports.centreId, centreId), inWindow)! : inWindow;
}

function figuresFrom(queue: QueueCounts, times: Omit<WindowTimes, "done">): TurnaroundFigures {
  return {
    pending: queue.pending,
    inReview: queue.inReview,
    overdue: queue.overdue,
    windowDays: WINDOW_DAYS,
    reviewedInWindow: times.reviewed,
    medianMs: times.medianMs,
    p90Ms: times.p90Ms,
  };
}

/** Every report's, or a centre's: `centre` names one, or is the column of the centres a statement walks. */
type Scope = string | AnyColumn | null;

/**
 * The queue's counts as columns of one statement, none of them a count over the archive (decision
 * 0046): pending by priority from the list counters; in review from the claims still running
 * (reports_live_claims_idx: few, whatever the archive); and per priority the reports not yet due
 * (the last review-target hours of uploads), each its own index range. One statement, so the
 * counts are of one moment, and on PostgreSQL one round trip. A page of centres has each row bring
 * its `waitingColumns` (decision 0047) and reads the reports in review beside it (`inReviewByCentre`,
 * decision 0048).
 */
export function queueColumns(centre: Scope, now: number): Record<string, SQL<number | null>> {
  return {
    inReview: counted(centre, inReviewCondition(new Date(now))),
    ...waitingColumns(centre, (p) => dueCutoff(p, now)),
  };
}

/** Pending reports with a claim still running at `now` (few, whatever the archive: reports_live_claims_idx). */
const inReviewCondition = (now: Date | SQL | Placeholder) =>
  and(eq(reports.status, constantText("Pending")), gt(reports.claimExpiresAt, now))!;

const counted = (centre: Scope, c: SQL) =>
  sql<number>`(${db()
    .select({ n: count() })
    .from(reports)
    .where(centre === null ? c : and(eq(reports.centreId, centre), c))})`;

/**
 * `queueColumns` but the reports in review: by priority, the pending (counters) and those not due
 * yet, uploaded since `notDueSince(priority)` — `dueCutoff` at a moment, or a prepared statement's
 * `notDuePlaceholders`.
 */
export function waitingColumns(centre: Scope, notDueSince: NotDueSince): Record<string, SQL<number | null>> {
  const columns: Record<string, SQL<number | null>> = {};
  for (const p of PRIORITIES) {
    columns[`pending${p}`] = counterColumn(
      centre === null
        ? COUNT_KEYS.reportsOfStatusPriority("Pending", p)
        : centreKey((c) => COUNT_KEYS.centreReportsOf(c, "Pending", p), centre),
    );
    columns[`notDue${p}`] = counted(centre, notYetDueCondition(p, notDueSince(p)));
  }
  return columns;
}

/**
 * The reports in review at each centre that has any, in one statement over the claims running at
 * `now`. Apart from the page of centres: a claim's end is the one moment of the queue whose value
 * the planner must see (an opaque one reads every pending report of the centre), so this small
 * statement is planned for each request and the page keeps its generic plan.
 */
export async function inReviewByCentre(now: number): Promise<Map<string, number>> {
  const query = preparedOnce("in_review_by_centre", (d) =>
    d
      .select({ centreId: reports.centreId, n: count() })
      .from(reports)
      .where(and(inReviewCondition(sql.placeholder("now")), isNotNull(reports.centreId)))
      .groupBy(reports.centreId),
  );
  const found = await query.execute({ now: timeParam(now) });
  return new Map(found.map((r) => [r.centreId ?? "", Number(r.n)]));
}

/** The oldest upload of a priority that is not overdue yet: a moment, or a placeholder. */
type NotDueSince = (priority: number) => Date | SQL;

/**
 * A prepared statement's not-yet-due moments (`notDueValues` fills them), which PostgreSQL does not
 * look up in its statistics, so the statement keeps its generic plan (decisions 0044, 0048).
 */
export const notDuePlaceholders: NotDueSince = (p) => opaqueTime(sql.placeholder(`notDue${p}`));

export function notDueValues(now: number): Record<string, number | Date> {
  return Object.fromEntries(PRIORITIES.map((p) => [`notDue${p}`, timeParam(dueCutoff(p, now).getTime())]));
}

export type QueueCounts = {
  pending: number;
  inReview: number;
  overdue: number;
  /** Every pending report (in review or not), by priority in PRIORITIES' order. */
  waitingByPriority: number[];
};

/** The counts from a row of `queueColumns`: pending leaves out those in review; overdue is pending minus not yet due. */
export function queueFrom(row: Record<string, unknown>): QueueCounts {
  const n = (k: string) => Number(row[k] ?? 0);
  const waiting = PRIORITIES.map((p) => n(`pending${p}`));
  const inReview = n("inReview");
  return {
    pending: waiting.reduce((a, b) => a + b, 0) - inReview,
    inReview,
    overdue: PRIORITIES.reduce<number>((sum, p, i) => sum + Math.max(0, waiting[i] - n(`notDue${p}`)), 0),
    waitingByPriority: waiting,
  };
}

/** The queue's counts of every report or of one centre's, in one statement. */
export async function queueCounts(centreId: string | null, now: number): Promise<QueueCounts> {
  const [row] = await db().select(queueColumns(centreId, now)).from(ONE_ROW);
  return queueFrom(row);
}

/** A statement's FROM when all it reads are its columns' sub-selects. */
const ONE_ROW = sql`(select 1) as one_row`;

type WindowTimes = { done: OpinionRow[]; reviewed: number; medianMs: number | null; p90Ms: number | null };
/** What a node keeps of a centre's window: its figures only (a few numbers), never its rows. */
type KeptWindow = { version: number; from: number; until: number; times: Omit<WindowTimes, "done"> };
const keptWindows = new Map<string, KeptWindow>();
const KEPT_CENTRES = 10_000;

/**
 * A centre's figures, from its queue's counts and its version (read together, by the caller, before
 * this) and its 30-day times to opinion. The times are kept by this node while they cannot have
 * changed (decision 0047): they change only when one of the centre's reports is written — which
 * moves the centre's version, a counter row every node reads — or when the oldest opinion leaves
 * the window. Since the version was read before the opinions, figures are never kept under a
 * version newer than they are. The admin's centres list then costs its counters, not each
 * centre's month of opinions.
 */
export async function centreFigures(
  centreId: string,
  version: number,
  queue: QueueCounts,
  now: number,
): Promise<TurnaroundFigures> {
  const kept = keptWindows.get(centreId);
  if (kept && kept.version === version && now >= kept.from && now <= kept.until)
    return figuresFrom(queue, kept.times);
  const { done, ...times } = await opinionTimesOf(windowOf(centreId, new Date(now - WINDOW_DAYS * DAY)));
  const oldest = done.reduce((min, r) => Math.min(min, r.reviewedAt!.getTime()), Infinity);
  if (keptWindows.size >= KEPT_CENTRES) keptWindows.clear();
  keptWindows.set(centreId, { version, from: now, until: oldest + WINDOW_DAYS * DAY, times });
  return figuresFrom(queue, times);
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

/** The figures of every report (a centre's: `centreFigures`). No permission check: callers check. */
export async function turnaroundFigures(now = Date.now()): Promise<TurnaroundFigures> {
  return (await figuresOf(now)).figures;
}

export async function getTurnaround(actor: Actor, now = Date.now()): Promise<Turnaround> {
  if (actor.accountType !== "Admin") throw new DomainError("forbidden", "reports.adminsOnly");
  const { figures, done, since } = await figuresOf(now);
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
