import { sql, type AnyColumn } from "drizzle-orm";
import { timeParam } from "~/db/client.server";
import { DomainError } from "./errors";
import type { PageQuery } from "./paging";

/**
 * Cursors of keyset pagination (decision 0031): the last row's sort key, as base64url of a JSON
 * array of numbers and strings. Opaque to clients; a cursor that does not decode to the shape the
 * list expects is the input error `api.badCursor` (400), never a server error.
 */
export type CursorValue = number | string;
export type CursorShape = ("number" | "string")[];

export function encodeCursor(values: CursorValue[]): string {
  return Buffer.from(JSON.stringify(values), "utf8").toString("base64url");
}

export function decodeCursor(cursor: string, shape: CursorShape): CursorValue[] {
  const bad = () =>
    new DomainError("invalid", "api.badCursor", { fieldErrors: { cursor: ["api.badCursor"] } });
  if (typeof cursor !== "string" || cursor.length > 400 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw bad();
  let values: unknown;
  try {
    values = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw bad();
  }
  if (!Array.isArray(values) || values.length !== shape.length) throw bad();
  values.forEach((v, i) => {
    const ok =
      shape[i] === "number"
        ? typeof v === "number" && Number.isSafeInteger(v)
        : typeof v === "string" && v.length > 0 && v.length <= 100;
    if (!ok) throw bad();
  });
  return values as CursorValue[];
}

/**
 * Keyset pagination of a newest-first list — ordered by (created_at desc, id desc) on an index
 * ending in (…, created_at, id): the audit trail, messages, rights requests, workers, a centre's
 * patients. With a cursor the page starts right after that row (no OFFSET: the index is entered at
 * the row); by page number it is the OFFSET as before. One row more than the page is read, so the
 * page knows whether a next one exists without counting.
 */
export function newestFirstWindow(query: PageQuery, createdAt: AnyColumn, id: AnyColumn) {
  const after = query.cursor ? decodeCursor(query.cursor, ["number", "string"]) : null;
  return {
    /** The condition that starts the page after the cursor's row (undefined without a cursor). */
    after: after ? sql`(${createdAt}, ${id}) < (${timeParam(after[0] as number)}, ${after[1]})` : undefined,
    limit: query.pageSize + 1,
    offset: after ? 0 : (query.page - 1) * query.pageSize,
    /** The page's rows (the extra one dropped) and the cursor of its last row, or null after the last. */
    cut<T>(
      rows: T[],
      key: (row: T) => { createdAt: Date; id: string },
    ): { rows: T[]; nextCursor: string | null } {
      const page = rows.slice(0, query.pageSize);
      const last = page.at(-1);
      const more = rows.length > query.pageSize && last !== undefined;
      return {
        rows: page,
        nextCursor: more ? encodeCursor([key(last).createdAt.getTime(), key(last).id]) : null,
      };
    },
  };
}
