import { sql } from "drizzle-orm";
import { aliasInSql } from "~/db/alias";
import { inList, listParam, preparedOnce, textList } from "~/db/client.server";
import { reports } from "~/db/schema";
import {
  followUpAllowance,
  followUpsColumn,
  followUpsFor,
  followUpsFromColumn,
  type ApiFollowUp,
} from "./followups.server";
import type { ApiReport } from "./api-report.server";
import { fromJoined, selectReportsWith } from "./report-rows.server";

/**
 * What comes with a report about its case: the follow-up threads (with how many more questions
 * the patient may ask) and the second opinions asked for it (decision 0038).
 */

/** What a list's row may bring about its case (LISTS' `columns`). */
export type CaseColumns = {
  followUpList?: string | null;
  secondIds?: string | null;
  fileViewList?: string | null;
  linkOpenList?: string | null;
};

/** A reviewed report's thread, with how many more questions the patient may ask and until when. */
function setFollowUps(r: ApiReport, thread: ApiFollowUp[]) {
  r.followUps = thread;
  const allowance = followUpAllowance(
    { status: r.status, reviewedAt: r.reviewedAt ? new Date(r.reviewedAt) : null },
    thread.length,
  );
  r.followUpsLeft = allowance.left;
  r.followUpsUntil = allowance.until;
}

/**
 * The threads the rows brought (followUpsColumn) on their reviewed items — `items[i]` is made
 * from `found[i]` — for a viewer who may read them (see canSeeFollowUps); `only` narrows further.
 */
export function withFollowUpsOf<T extends ApiReport>(
  items: T[],
  found: CaseColumns[],
  only?: (r: T, i: number) => boolean,
) {
  items.forEach((r, i) => {
    if (r.status === "Reviewed" && (!only || only(r, i)))
      setFollowUps(r, followUpsFromColumn(found[i].followUpList));
  });
  return items;
}

/** The follow-up threads, asked for on their own, for a viewer who may read them all. */
export async function withFollowUps<T extends ApiReport>(items: T[]): Promise<T[]> {
  const reviewed = items.filter((r) => r.status === "Reviewed");
  if (!reviewed.length) return items;
  const threads = await followUpsFor(reviewed.map((r) => r._id));
  for (const r of reviewed) setFollowUps(r, threads.get(r._id) ?? []);
  return items;
}

const secondReport = aliasInSql(reports, "second_report");

/** The ids of a report's second opinions (reports_second_of_idx), as one column: comma-separated hex ids. */
export function secondIdsColumn() {
  return textList(
    secondReport.as.id,
    sql`from ${secondReport.from} where ${secondReport.as.secondOf} = ${reports.id}`,
    ",",
  );
}

export function secondIdsOf(row: CaseColumns): string[] {
  return row.secondIds ? row.secondIds.split(",") : [];
}

/**
 * The second opinions of these case's first reports, oldest request first, with their reviewers'
 * details and follow-ups — for viewers who see the whole case (the patient and those acting for
 * them, admins, the letter). `asked`: the first reports known to have any (the others are not
 * asked about; none, no statement).
 */
export async function withSecondOpinions<T extends ApiReport>(items: T[], asked?: Set<string>): Promise<T[]> {
  const roots = items.filter((r) => !r.secondOf && (!asked || asked.has(r._id)));
  for (const r of items) if (!r.secondOf) r.secondOpinions = [];
  if (!roots.length) return items;
  // reports_second_of_idx; a case has a few, put in request order here rather than by a sort in SQL.
  const ids = roots.map((r) => r._id);
  const query = preparedOnce("second_opinions_of_reports", () =>
    selectReportsWith({ followUpList: followUpsColumn(reports.id) }).where(inList(reports.secondOf, "ids")),
  );
  const found = (await query.execute({ ids: listParam(ids) })).sort(
    (a, b) =>
      a.report.createdAt.getTime() - b.report.createdAt.getTime() || (a.report.id < b.report.id ? -1 : 1),
  );
  const seconds = withFollowUpsOf(
    found.map((r) => fromJoined(r)),
    found,
  );
  for (const r of roots) r.secondOpinions = seconds.filter((x) => x.secondOf === r._id);
  return items;
}
