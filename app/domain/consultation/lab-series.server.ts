import { and, asc, eq, inArray, isNotNull, isNull, type SQL } from "drizzle-orm";
import { db, first } from "~/db/client.server";
import { labReads, labValues, nextSteps, reports } from "~/db/schema";
import { requirePatientAccess } from "../care/index.server";
import {
  analyteByLoinc,
  convert,
  displayUnit,
  factorFor,
  storedMeasure,
  ucumFor,
  type Judgement,
} from "../records/labs";
import type { Actor } from "../platform/index.server";
import { SHOWN_STATUSES } from "./lab-values.server";
import { requireStepAccess } from "./next-steps.server";

/**
 * The patient's values over time (decisions 0084, 0090): for each analyte in two or more of her
 * reviewed reports, its checked values by the date printed on each report, in the unit her reports
 * print, with the range each printed.
 */

export type LabPoint = {
  reportId: string;
  /** The sample's date printed on the report (YYYY-MM-DD), else the day it was uploaded (ISO time). */
  date: string;
  /** Which of the two `date` is. */
  dated: "printed" | "uploaded";
  /** The value and the printed range's bounds, all in the series' unit. */
  value: number;
  rangeLow: number | null;
  rangeHigh: number | null;
  /** The range as printed on this report. */
  rangeText: string | null;
  /** The test's name as printed on this report. */
  printedName: string;
  /** Where the value stands against the range printed beside it: its measure's (decision 0088). */
  judgement: Judgement;
};
export type LabSeries = {
  loinc: string;
  /** The catalogue's English name (screens put hers first). */
  name: string;
  /** The unit of the values and bounds: UCUM, and as she reads it on her reports. */
  unit: string;
  unitShown: string;
  points: LabPoint[];
};

type Row = typeof labValues.$inferSelect;

/**
 * The unit a series is drawn in: the one her reports print, when they all print one the catalogue
 * converts to the same UCUM unit ("/cumm" and "cells/cumm" alike: her paper's "4000 - 11000", not
 * "4.0 - 11.0 ×10³/µL"), named as most of them print it; else the analyte's. Only the drawing
 * changes: each value is judged in the analyte's unit, by its measure.
 */
function unitOf(loinc: string, rows: Row[]): { unit: string; shown: string; factor: number } {
  const analyte = analyteByLoinc(loinc);
  const fallback = {
    unit: analyte?.unit ?? rows[0].unit,
    shown: displayUnit(analyte?.unit ?? rows[0].unit),
    factor: 1,
  };
  if (!analyte) return fallback;
  const printed = rows.map((r) => r.printedUnit?.trim() ?? "");
  const codes = new Set(printed.map((p) => (p ? ucumFor(analyte, p) : null)));
  const [ucum] = [...codes];
  const factor = codes.size === 1 && ucum ? factorFor(analyte, ucum) : null;
  if (!ucum || !factor) return fallback;
  const times = (p: string) => printed.filter((q) => q === p).length;
  // The spelling most reports print; of two as common, the latest report's.
  const shown = [...printed].reverse().reduce((a, b) => (times(b) > times(a) ? b : a));
  return { unit: ucum, shown, factor };
}

/** Her analytes found in two or more reviewed reports, each point dated and drawn as her paper says. */
export async function labSeries(actor: Actor, patientId: string): Promise<LabSeries[]> {
  await requirePatientAccess(actor, patientId);
  return seriesOf(and(eq(reports.patientId, patientId), eq(reports.status, "Reviewed"))!);
}

/**
 * Before and after (decision 0114): for a repeat report attached to a tests step, the step's
 * analytes in the report the step was given with and in this one (under review: not yet Reviewed),
 * on one chart each. For the expert who asked (or holds the opinion's follow-ups), the patient's
 * side and her centre; anyone else, and a report attached to no step, get none.
 */
export async function repeatSeries(actor: Actor, reportId: string): Promise<LabSeries[]> {
  const step = await first(
    db()
      .select({ id: nextSteps.id, reportId: nextSteps.reportId, loincs: nextSteps.loincs })
      .from(nextSteps)
      .where(and(eq(nextSteps.attachedReportId, String(reportId ?? "")), eq(nextSteps.kind, "tests"))),
  );
  if (!step) return [];
  try {
    await requireStepAccess(actor, step.id);
  } catch {
    return [];
  }
  const loincs: string[] = JSON.parse(step.loincs ?? "[]");
  if (!loincs.length) return [];
  return seriesOf(and(inArray(reports.id, [step.reportId, reportId]), inArray(labValues.loinc, loincs))!);
}

async function seriesOf(which: SQL): Promise<LabSeries[]> {
  const found = await db()
    .select({ value: labValues, uploaded: reports.createdAt, printed: labReads.sampleDate })
    .from(labValues)
    .innerJoin(reports, eq(reports.id, labValues.reportId))
    .leftJoin(labReads, eq(labReads.reportId, labValues.reportId))
    .where(
      and(
        which,
        inArray(labValues.status, SHOWN_STATUSES),
        // Numbers only: a text result is said in words, never drawn on a chart (decision 0098).
        isNull(labValues.valueText),
        isNotNull(labValues.value),
      ),
    )
    .orderBy(asc(reports.createdAt), asc(labValues.createdAt));
  const byLoinc = new Map<string, { v: Row; date: string; dated: LabPoint["dated"] }[]>();
  for (const f of found) {
    const list = byLoinc.get(f.value.loinc) ?? [];
    const printed = f.printed && /^\d{4}-\d{2}-\d{2}$/.test(f.printed) ? f.printed : null;
    list.push({
      v: f.value,
      date: printed ?? f.uploaded.toISOString(),
      dated: printed ? "printed" : "uploaded",
    });
    byLoinc.set(f.value.loinc, list);
  }
  const out: LabSeries[] = [];
  for (const [loinc, found] of byLoinc) {
    if (new Set(found.map((p) => p.v.reportId)).size < 2) continue;
    // By the report's own date, not the day it was uploaded: an old report sent late goes first.
    const list = found
      .map((p, i) => ({ ...p, i }))
      .sort((a, b) => Date.parse(a.date) - Date.parse(b.date) || a.i - b.i);
    const u = unitOf(
      loinc,
      list.map((p) => p.v),
    );
    const shown = (n: number | null) => (n === null ? null : convert(n, 1 / u.factor));
    out.push({
      loinc,
      name: analyteByLoinc(loinc)?.name ?? list[0].v.printedName,
      unit: u.unit,
      unitShown: u.shown,
      points: list.flatMap(({ v, date, dated }) => {
        // The chart's point and band: one measure, one unit (decision 0088), drawn in the printed one.
        const m = storedMeasure(v);
        if (m.kind !== "number") return [];
        return {
          reportId: v.reportId,
          date,
          dated,
          value: shown(m.value)!,
          rangeLow: shown(m.low),
          rangeHigh: shown(m.high),
          rangeText: v.rangeText,
          printedName: v.printedName,
          judgement: m.judgement,
        };
      }),
    });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}
