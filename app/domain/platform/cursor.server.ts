import { DomainError } from "./errors";

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
