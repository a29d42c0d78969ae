import { listCountsOf } from "../platform/index.server";
import { decodeCursor, encodeCursor } from "../platform/index.server";
import type { PageQuery } from "../platform/paging";
import { DomainError } from "../platform/errors";
import type { CaseColumns } from "./report-case.server";
import { SORTS, type Segment } from "./report-list-statements.server";
import type { Joined } from "./report-rows.server";

/**
 * One page of a report list across its segments, by page number or after a cursor, with the
 * list's total (read from its counter rows) and the next cursor.
 */

/**
 * One page across consecutive segments (e.g. matching reports, then the others), by page number
 * or after a cursor ([segment, ...sort values of the last row]), and the cursor of its last row.
 */
export async function pageOfSegments(segments: Segment[], query: PageQuery) {
  if (segments.length === 1 && segments[0].rowsWithTotal) return pageOfOne(segments[0], query);
  const { page, pageSize, cursor } = query;
  const keys = segments.flatMap((s) => s.totals);
  const values = await listCountsOf(keys);
  const byKey = new Map(keys.map((key, i) => [key, values[i]]));
  const totals = segments.map((s) => s.totals.reduce((sum, key) => sum + (byKey.get(key) ?? 0), 0));
  const total = totals.reduce((a, b) => a + b, 0);
  const sort = SORTS[segments[0]?.sort ?? "created"];
  const found: (Joined & CaseColumns)[] = [];
  let lastSegment = 0;
  let need = pageSize;
  if (cursor) {
    const [segment, ...after] = decodeCursor(cursor, ["number", ...sort.shape]);
    if ((segment as number) < 0 || (segment as number) >= segments.length)
      throw new DomainError("invalid", "api.badCursor", { fieldErrors: { cursor: ["api.badCursor"] } });
    for (let i = segment as number; i < segments.length && need > 0; i++) {
      const got = await segments[i].rows(need, 0, i === segment ? after : undefined);
      if (got.length) lastSegment = i;
      found.push(...got);
      need -= got.length;
    }
  } else {
    let offset = (page - 1) * pageSize;
    for (let i = 0; i < segments.length && need > 0; i++) {
      if (offset >= totals[i]) {
        offset -= totals[i];
        continue;
      }
      const got = await segments[i].rows(need, offset);
      if (got.length) lastSegment = i;
      found.push(...got);
      need -= got.length;
      offset = 0;
    }
  }
  const last = found.at(-1);
  const more = found.length === pageSize && (cursor ? true : (page - 1) * pageSize + found.length < total);
  const nextCursor = last && more ? encodeCursor([lastSegment, ...sort.key(last.report)]) : null;
  return { found, total, page, pageSize, nextCursor };
}

/**
 * One segment's page in one statement: the rows bring the total along. A window past the end (or
 * an empty list) has no row to carry it, and only then is the counter read on its own.
 */
async function pageOfOne(segment: Segment, { page, pageSize, cursor }: PageQuery) {
  const sort = SORTS[segment.sort];
  let got: (Joined & { listTotal: number | null })[];
  if (cursor) {
    const [index, ...after] = decodeCursor(cursor, ["number", ...sort.shape]);
    if (index !== 0)
      throw new DomainError("invalid", "api.badCursor", { fieldErrors: { cursor: ["api.badCursor"] } });
    got = await segment.rowsWithTotal!(pageSize, 0, after);
  } else {
    got = await segment.rowsWithTotal!(pageSize, (page - 1) * pageSize);
  }
  const total = got.length ? Number(got[0].listTotal ?? 0) : (await listCountsOf(segment.totals))[0];
  const found: (Joined & CaseColumns)[] = got;
  const last = found.at(-1);
  const more = found.length === pageSize && (cursor ? true : (page - 1) * pageSize + found.length < total);
  const nextCursor = last && more ? encodeCursor([0, ...sort.key(last.report)]) : null;
  return { found, total, page, pageSize, nextCursor };
}
