import { and, eq, inArray, ne, type SQL } from "drizzle-orm";
import { db } from "~/db/client.server";
import { labReads, labValues } from "~/db/schema";
import { newId } from "~/lib/ids.server";
import type { LabRow } from "./labs";

/**
 * Where the reader's results go (decision 0082): one lab_values row per value, status "read" —
 * never shown to a patient until an expert confirmed or corrected it. A new reading replaces the
 * previous unchecked one; values an expert already checked stay. The row holds the value's measure
 * (decision 0088): the value and the printed range both in the analyte's unit, the range's text as
 * printed; a text result ("Reactive") is kept as text with its printed reference (decision 0098).
 */
export type PlacedRow = LabRow & { page: number; box: [number, number, number, number] };

export async function saveReading(
  reportId: string,
  source: "text" | "ocr",
  rows: PlacedRow[],
): Promise<number> {
  await db()
    .delete(labValues)
    .where(and(eq(labValues.reportId, reportId), eq(labValues.status, "read")));
  if (rows.length) {
    const now = new Date();
    await db()
      .insert(labValues)
      .values(
        rows.map((r) => ({
          id: newId(),
          reportId,
          loinc: r.loinc,
          printedName: r.printedName,
          // A number with its unit, or a text result with its printed reference: never both (0098).
          ...(r.measure.kind === "text"
            ? { value: null, unit: "", valueText: r.measure.text, rangeLow: null, rangeHigh: null }
            : {
                value: r.measure.value,
                unit: r.measure.unit,
                valueText: null,
                rangeLow: r.measure.low,
                rangeHigh: r.measure.high,
              }),
          printedValue: r.printedValue,
          printedUnit: r.printedUnit,
          rangeText: r.range?.text ?? null,
          flag: r.flag,
          page: r.page,
          box: JSON.stringify(r.box),
          confidence: r.confidence,
          status: "read",
          createdAt: now,
        })),
      );
  }
  await db().update(labReads).set({ source }).where(eq(labReads.reportId, reportId));
  return rows.length;
}

/** The values read or checked for one report, in page order. */
export async function labValuesOf(reportId: string) {
  return db()
    .select()
    .from(labValues)
    .where(eq(labValues.reportId, reportId))
    .orderBy(labValues.page, labValues.id);
}

/** The state of a report's reading (null: never queued). */
export async function labReadOf(reportId: string) {
  const [row] = await db().select().from(labReads).where(eq(labReads.reportId, reportId));
  return row ?? null;
}

type LabValueRow = typeof labValues.$inferSelect;
type InsertLabValue = typeof labValues.$inferInsert;

/**
 * The expert's check of one value written (decision 0090; the consultation decides who may and
 * what the check sets): a removed value changes only by its undo (`undoing`), anything else only
 * while it is not removed, whatever ran in between (two requests at once). The row, or undefined
 * when that no longer held.
 */
export async function applyLabCheck(
  id: string,
  set: { [K in keyof LabValueRow]?: LabValueRow[K] | SQL },
  undoing: boolean,
): Promise<LabValueRow | undefined> {
  const [updated] = await db()
    .update(labValues)
    .set(set)
    .where(
      and(eq(labValues.id, id), undoing ? eq(labValues.status, "removed") : ne(labValues.status, "removed")),
    )
    .returning();
  return updated;
}

/** A value the expert added (one the reader missed). */
export async function insertLabValue(row: InsertLabValue): Promise<LabValueRow> {
  const [created] = await db().insert(labValues).values(row).returning();
  return created;
}

/**
 * The values among `ids` of a report still unchecked when the statement runs, confirmed by
 * `checkedBy` in one statement (confirm-all, decision 0090): a step at the same time that checked
 * one first keeps its own.
 */
export async function confirmUnchecked(
  reportId: string,
  ids: string[],
  checkedBy: string,
): Promise<LabValueRow[]> {
  if (!ids.length) return [];
  return db()
    .update(labValues)
    .set({ status: "confirmed", checkedBy, checkedAt: new Date() })
    .where(and(eq(labValues.reportId, reportId), inArray(labValues.id, ids), eq(labValues.status, "read")))
    .returning();
}
