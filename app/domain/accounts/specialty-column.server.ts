import { sql, type SQLWrapper } from "drizzle-orm";
import { textList } from "~/db/client.server";
import { expertSpecialties } from "~/db/schema";
import { bySpecialtyOrder } from "~/schemas/specialties";

/** Specialty names hold letters and spaces only (specialties.ts), never this. */
const SEPARATOR = "|";

/**
 * The specialties of the user whose id is in `userId`, as one column of a select (a correlated
 * list), so that a statement brings them along with its row — the session lookup for the signed-in
 * expert, every report row for its reviewer. Read it with `specialtiesFromColumn`.
 */
export function specialtiesColumn(userId: SQLWrapper) {
  return textList(
    expertSpecialties.specialty,
    sql`from ${expertSpecialties} where ${expertSpecialties.userId} = ${userId}`,
    SEPARATOR,
  );
}

/** The specialties a `specialtiesColumn` brought, in the fixed list's order. */
export function specialtiesFromColumn(value: string | null): string[] {
  return value ? value.split(SEPARATOR).sort(bySpecialtyOrder) : [];
}
