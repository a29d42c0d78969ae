import { and, eq } from "drizzle-orm";
import { db } from "~/db/client.server";
import { labReads, labValues } from "~/db/schema";
import { newId } from "~/lib/ids.server";
import type { LabRow } from "./labs";

/**
 * Where the reader's results go (decision 0082): one lab_values row per value, status "read" —
 * never shown to a patient until an expert confirmed or corrected it. A new reading replaces the
 * previous unchecked one; values an expert already checked stay. The row holds the value's measure
 * (decision 0088): the value and the printed range both in the analyte's unit, the range's text as
 * printed.
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
          value: r.measure.value,
          unit: r.measure.unit,
          printedValue: r.printedValue,
          printedUnit: r.printedUnit,
          rangeText: r.range?.text ?? null,
          rangeLow: r.measure.low,
          rangeHigh: r.measure.high,
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
