import { and, eq, gt, gte, lt, or, type SQL } from "drizzle-orm";
import { config } from "~/config.server";
import { constantInt, constantText } from "~/db/client.server";
import { reports } from "~/db/schema";
import { hidePhonesOfRefusers } from "../rights/index.server";
import type { ApiReport } from "./api-report.server";
import { byQueue, fromJoined, selectReports } from "./report-rows.server";

/** The priorities a report can have: 0 urgent, 1 routine — each with its own review target. */
export const PRIORITIES = [0, 1] as const;

/** A pending report of `priority` uploaded before this is overdue. */
export function dueCutoff(priority: number, now: number): Date {
  const c = config();
  return new Date(now - (priority === 0 ? c.reviewTargetUrgentMs : c.reviewTargetMs));
}

/** Pending reports past their due time (by priority's target), oldest first. */
export function overdueCondition(now = Date.now()): SQL {
  return and(
    eq(reports.status, "Pending"),
    or(
      and(eq(reports.priority, 0), lt(reports.createdAt, dueCutoff(0, now))),
      and(gt(reports.priority, 0), lt(reports.createdAt, dueCutoff(1, now))),
    ),
  )!;
}

/**
 * The pending reports of `priority` not overdue yet — overdueCondition's complement among the
 * pending, for one priority (an equality and a range on reports_queue_idx): the uploads of the last
 * review-target hours, however large the archive (decision 0046). `since` is `dueCutoff(priority, now)`
 * or a prepared statement's moment.
 */
export function notYetDueCondition(priority: number, since: Date | SQL): SQL {
  return and(
    eq(reports.status, constantText("Pending")),
    eq(reports.priority, constantInt(priority)),
    gte(reports.createdAt, since),
  )!;
}

/** The overdue list (urgent first, then oldest), for the Turnaround screen; `where` narrows it (a centre's). */
export async function overdueReports(limit: number, now = Date.now(), where?: SQL): Promise<ApiReport[]> {
  const found = await selectReports()
    .where(where ? and(overdueCondition(now), where) : overdueCondition(now))
    .orderBy(...byQueue)
    .limit(limit);
  // Admins see the overdue list: numbers of patients who refused calls are hidden.
  return hidePhonesOfRefusers(
    null,
    found.map((r) => fromJoined(r)),
  );
}
