import { sql } from "drizzle-orm";

/*
 * Plan tuning for PostgreSQL's prepared statements (decision 0042): a list's page size and offset
 * written into the statement as literals, with a bound on how many such statements are kept.
 */

/**
 * A page size or offset written into the statement as a literal. PostgreSQL plans a prepared
 * statement for unknown LIMIT/OFFSET parameters as if a tenth of the matching rows were wanted,
 * finds that plan dearer than the custom ones and so re-plans on every execution — planning cost
 * more than running (1.3 of 1.9 ms for the pending page at 100,000 reports). With both known, the
 * generic plan is the index walk of the custom ones and is kept after five executions (decision 0042).
 */
export const literal = (n: number) => sql.raw(String(Math.trunc(n))) as unknown as number;

/** At most this many (limit, offset) statements per list; further ones take parameters. */
const LITERAL_VARIANTS = 48;

/**
 * One list's statements with literal windows, each made once under its key: past LITERAL_VARIANTS
 * of them, `fallback` (the statement taking the window as parameters) is used instead.
 */
export function literalVariants() {
  const variants = new Map<string, unknown>();
  return <T>(key: string, make: () => T, fallback: T): T => {
    const found = variants.get(key) as T | undefined;
    if (found) return found;
    if (variants.size >= LITERAL_VARIANTS) return fallback;
    const made = make();
    variants.set(key, made);
    return made;
  };
}
