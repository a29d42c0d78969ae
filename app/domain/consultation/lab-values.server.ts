import { and, asc, eq, inArray, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { db, first } from "~/db/client.server";
import { labValues, reports } from "~/db/schema";
import { newId } from "~/lib/ids.server";
import { DomainError, zodFieldErrors } from "../platform/errors";
import { findPatient, patientAccess } from "../care/index.server";
import {
  analyteByLoinc,
  appliedPart,
  factorFor,
  MAX_RANGE,
  MAX_TEXT,
  parseRange,
  patientOn,
  printedMeasure,
  storedMeasure,
  ucumFor,
  wordMeasure,
  type Analyte,
  type Judgement,
  type Patient,
} from "../records/labs";
import { applyLabCheck, insertLabValue, labReadOf } from "../records/index.server";
import type { Actor } from "../platform/index.server";
import { holdsReport } from "./voice-notes.server";

/**
 * Lab values read from a report, checked by the expert and shown to the patient (decision 0084).
 * The expert who holds the report sees every value with its status and confirms, corrects or
 * removes each in one step, or adds one the reader missed; who and when are stored, and a removed
 * value stays as a row for the trail. The patient's side (whoever may read the report) sees ONLY
 * values an expert confirmed, corrected or added, and only once the report has its opinion. The
 * reference range is always the one printed on the report, never one we invent; a row holds it in
 * the value's unit, and only its measure judges the value against it (decision 0088).
 */

export type LabStatus = "read" | "confirmed" | "corrected" | "removed" | "added";
export const SHOWN_STATUSES: LabStatus[] = ["confirmed", "corrected", "added"];

export type ApiLabValue = {
  _id: string;
  reportId: string;
  loinc: string;
  /** The catalogue's English name of the analyte (screens translate it by LOINC). */
  name: string;
  printedName: string;
  /** In `unit`; null for a text result (decision 0098). */
  value: number | null;
  unit: string;
  /** A text result ("Reactive", "Nil", "++"), its reference in `rangeText`; null for a number. */
  valueText: string | null;
  printedValue: string;
  printedUnit: string | null;
  rangeText: string | null;
  rangeLow: number | null;
  rangeHigh: number | null;
  /**
   * A range printed in parts (by sex, age or category): the part that applies, as printed, whose
   * bounds are `rangeLow` and `rangeHigh`; null for a range of one part, or when none could be
   * chosen from the patient's recorded sex and age (decision 0105).
   */
  rangePart: string | null;
  flag: "H" | "L" | null;
  /** Where it stands against what was printed beside it: its measure's (decisions 0088, 0098). */
  judgement: Judgement;
  page: number | null;
  box: [number, number, number, number] | null;
  confidence: number | null;
  status: LabStatus;
  checkedAt: string | null;
  createdAt: string;
};

type Row = typeof labValues.$inferSelect;
type ReportRow = typeof reports.$inferSelect;

function parseBox(text: string | null): ApiLabValue["box"] {
  if (!text) return null;
  try {
    const b = JSON.parse(text) as unknown;
    if (Array.isArray(b) && b.length === 4 && b.every((n) => typeof n === "number" && n >= 0 && n <= 1))
      return b as ApiLabValue["box"];
  } catch {
    /* a box we cannot read is no box */
  }
  return null;
}

export function toApiLabValue(row: Row): ApiLabValue {
  const m = storedMeasure(row);
  return {
    _id: row.id,
    reportId: row.reportId,
    loinc: row.loinc,
    name: analyteByLoinc(row.loinc)?.name ?? row.printedName,
    printedName: row.printedName,
    value: m.kind === "number" ? m.value : null,
    unit: row.unit,
    valueText: m.kind === "text" ? m.text : null,
    printedValue: row.printedValue,
    printedUnit: row.printedUnit,
    rangeText: row.rangeText,
    rangeLow: row.rangeLow,
    rangeHigh: row.rangeHigh,
    rangePart: m.kind === "number" ? partOf(row) : null,
    // The measure's flag (decision 0088): from the printed range, in the value's unit.
    flag: m.flag,
    judgement: m.judgement,
    page: row.page,
    box: parseBox(row.box),
    confidence: row.confidence,
    status: row.status as LabStatus,
    checkedAt: row.checkedAt ? row.checkedAt.toISOString() : null,
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * The part of a stored range that applies (decision 0105): the row keeps the range whole and the
 * bounds of that part in the value's unit, so the part is the one whose bounds, times the printed
 * unit's factor, are the row's.
 */
function partOf(row: Row): string | null {
  const a = analyteByLoinc(row.loinc);
  const ucum = a && row.printedUnit ? ucumFor(a, row.printedUnit) : null;
  const factor = a && ucum ? factorFor(a, ucum) : null;
  return appliedPart(row.rangeText, row.rangeLow, row.rangeHigh, factor ?? 1);
}

async function reportRow(reportId: unknown): Promise<ReportRow> {
  const id = typeof reportId === "string" ? reportId : "";
  if (!id || id.length > 100) throw new DomainError("not_found", "reports.notFound");
  const row = await first(db().select().from(reports).where(eq(reports.id, id)));
  if (!row) throw new DomainError("not_found", "reports.notFound");
  return row;
}

/** A report's values in reading order: page, then top to bottom, left to right; added ones last. */
async function valuesOf(reportId: string, statuses?: LabStatus[]): Promise<Row[]> {
  const rows = await db()
    .select()
    .from(labValues)
    .where(
      statuses
        ? and(eq(labValues.reportId, reportId), inArray(labValues.status, statuses))
        : eq(labValues.reportId, reportId),
    )
    .orderBy(asc(labValues.page), asc(labValues.createdAt), asc(labValues.id));
  const at = (r: Row) => {
    const b = parseBox(r.box);
    return [r.page ?? Number.MAX_SAFE_INTEGER, b ? Math.round(b[1] * 200) : 0, b ? b[0] : 0];
  };
  return rows
    .map((r, i) => ({ r, i, k: at(r) }))
    .sort((a, b) => a.k[0] - b.k[0] || a.k[1] - b.k[1] || a.k[2] - b.k[2] || a.i - b.i)
    .map((x) => x.r);
}

/** May this actor see every value of the report with its status: the expert holding it, or an admin. */
export function mayReviewValues(actor: Actor, row: ReportRow): boolean {
  return actor.accountType === "Admin" || holdsReport(actor, row);
}

/** Every value of the report with its status, for the expert holding it (admins read only). */
export async function valuesForReview(actor: Actor, reportId: string): Promise<ApiLabValue[]> {
  const row = await reportRow(reportId);
  if (!mayReviewValues(actor, row)) throw new DomainError("forbidden", "labs.notYours");
  return (await valuesOf(row.id)).map(toApiLabValue);
}

/** Where the reading of a report stands (null: never queued: not a PDF or an image). */
export type LabReading = "queued" | "reading" | "read" | "not-lab" | "failed" | null;

/**
 * The review screen's section: the reading's state and every value with its status, for the
 * expert holding the report (null for anyone else: the section is not shown).
 */
export async function labReview(
  actor: Actor,
  reportId: string,
): Promise<{ reading: LabReading; values: ApiLabValue[] } | null> {
  const row = await reportRow(reportId);
  if (!holdsReport(actor, row)) return null;
  const read = await labReadOf(row.id);
  return {
    reading: (read?.status ?? null) as LabReading,
    values: (await valuesOf(row.id)).map(toApiLabValue),
  };
}

/**
 * The values the patient's side sees: only those an expert confirmed, corrected or added, and only
 * once the report has its opinion. Who may read them is who may read the report (the person, a
 * family manager, the centre's health worker; admins).
 */
export async function confirmedValues(actor: Actor, reportId: string): Promise<ApiLabValue[]> {
  const row = await reportRow(reportId);
  const access = await patientAccess(actor, row.patientId);
  if (!access) throw new DomainError("forbidden", "reports.notYourReport");
  if (row.status !== "Reviewed") return [];
  return (await valuesOf(row.id, SHOWN_STATUSES)).map(toApiLabValue);
}

/**
 * The observations an API caller sees: the expert holding the report (or an admin) every value
 * with its status; the patient's side the confirmed ones; anyone else is refused. Text results
 * only `withText` (the API's `include=text`).
 */
export async function observationsFor(
  actor: Actor,
  reportId: string,
  withText = false,
): Promise<ApiLabValue[]> {
  const row = await reportRow(reportId);
  // Text results only for a caller that asked for them (decision 0098: `value` is null for those).
  const keep = (v: ApiLabValue) => withText || v.valueText === null;
  if (mayReviewValues(actor, row)) return (await valuesOf(row.id)).map(toApiLabValue).filter(keep);
  if (actor.accountType === "Expert") throw new DomainError("forbidden", "labs.notYours");
  return (await confirmedValues(actor, row.id)).filter(keep);
}

/** A number as typed: digits with one decimal point or comma ("7.0", "9,8", ".5"). */
const TYPED_NUMBER = /^(?:\d+(?:[.,]\d*)?|[.,]\d+)$/;
// The value, and the digits it was typed with: "7.0" is shown as 7.0, not 7 (decision 0105).
const numberField = z
  .union([z.number(), z.string().trim().min(1, "labs.valueRequired")], {
    errorMap: () => ({ message: "labs.valueRequired" }),
  })
  .transform((v) =>
    typeof v === "number"
      ? { n: v, text: String(v) }
      : { n: TYPED_NUMBER.test(v) ? Number(v.replace(",", ".")) : Number.NaN, text: v },
  )
  .refine((v) => Number.isFinite(v.n) && v.n >= 0, "labs.valueNotNumber");
const unitField = z
  .string({ errorMap: () => ({ message: "labs.unitRequired" }) })
  .trim()
  .min(1, "labs.unitRequired")
  .max(40, "labs.unitUnknown");
const rangeField = z
  .string({ errorMap: () => ({ message: "labs.rangeUnreadable" }) })
  .trim()
  .max(MAX_RANGE, "labs.rangeTooLong")
  .optional()
  .nullable();
/** A text result or its reference as the expert types it (decision 0098): a few words, no markup. */
const WORDS = /^[\p{L}\p{M}\p{N} +\-:/().,]*$/u;
const resultField = z
  .string({ errorMap: () => ({ message: "labs.resultRequired" }) })
  .trim()
  .min(1, "labs.resultRequired")
  .max(MAX_TEXT, "labs.resultTooLong")
  .regex(WORDS, "labs.resultWords");
const referenceField = z
  .string({ errorMap: () => ({ message: "labs.referenceTooLong" }) })
  .trim()
  .max(MAX_TEXT, "labs.referenceTooLong")
  .regex(WORDS, "labs.resultWords")
  .optional()
  .nullable();
/** The fields a number takes, and those a text result takes: which applies is the analyte's (0098). */
const numberFields = z.object({ value: numberField, unit: unitField, range: rangeField });
const textFields = z.object({ result: resultField, range: referenceField });

const checkSchema = z.discriminatedUnion(
  "action",
  [
    z.object({ action: z.literal("confirm") }),
    z.object({ action: z.literal("remove") }),
    // Undo a removal (decision 0090): the value gets back the status it was removed from.
    z.object({ action: z.literal("restore") }),
    // A number (value, unit, range) or a text result (result, range): checked against the analyte.
    z.object({
      action: z.literal("correct"),
      value: z.unknown().optional(),
      unit: z.unknown().optional(),
      result: z.unknown().optional(),
      range: z.unknown().optional(),
    }),
  ],
  { errorMap: () => ({ message: "labs.badAction" }) },
);
const addSchema = z.object({
  loinc: z
    .string({ errorMap: () => ({ message: "labs.analyteRequired" }) })
    .trim()
    .min(1, "labs.analyteRequired")
    .max(20, "labs.analyteUnknown"),
  value: z.unknown().optional(),
  unit: z.unknown().optional(),
  result: z.unknown().optional(),
  range: z.unknown().optional(),
});

export type CheckInput = z.input<typeof checkSchema> | Record<string, unknown>;
export type AddValueInput = z.input<typeof addSchema> | Record<string, unknown>;

type Typed = { value?: unknown; unit?: unknown; result?: unknown; range?: unknown };

/**
 * What the expert typed, as the row's value columns: for an analyte reported as a number, the value
 * and its printed range as one measure in the analyte's unit (decision 0088), the range's part
 * chosen for the report's patient (decision 0105); for one reported in words, the text result and
 * its printed reference (decision 0098). Field errors otherwise.
 */
async function normalised(report: ReportRow, loinc: string, typed: Typed) {
  const analyte = analyteByLoinc(loinc);
  if (!analyte) throw invalid({ loinc: ["labs.analyteUnknown"] });
  if (analyte.scale === "ord") return { analyte, fields: textColumns(typed) };
  const ranged = typeof typed.range === "string" && typed.range.trim() !== "";
  return { analyte, fields: numberColumns(analyte, typed, ranged ? await ownerOf(report) : undefined) };
}

/**
 * The report's patient as recorded (her sex, her age when the sample was taken: its printed date,
 * else the day the report came): what chooses the part of a range printed in parts, as the reader
 * chose it (decision 0089).
 */
async function ownerOf(report: ReportRow): Promise<Patient> {
  const [patient, read] = await Promise.all([findPatient(report.patientId), labReadOf(report.id)]);
  return patientOn(
    { sex: patient?.sex ?? null, birthYear: patient?.birthYear ?? null },
    read?.sampleDate ?? report.createdAt,
  );
}

function textColumns(typed: Typed) {
  const parsed = textFields.safeParse({ result: typed.result, range: typed.range ?? null });
  if (!parsed.success) throw invalid(zodFieldErrors(parsed.error));
  const m = wordMeasure(parsed.data.result, parsed.data.range ?? null)!;
  return {
    value: null,
    unit: "",
    valueText: m.text,
    printedValue: m.text,
    printedUnit: null,
    rangeText: m.reference,
    rangeLow: null,
    rangeHigh: null,
    flag: null,
  };
}

function numberColumns(analyte: Analyte, typed: Typed, patient: Patient | undefined) {
  const parsed = numberFields.safeParse({ value: typed.value, unit: typed.unit, range: typed.range });
  if (!parsed.success) throw invalid(zodFieldErrors(parsed.error));
  const { value, unit, range } = parsed.data;
  // The unit as UCUM or as labs print it ("mill/cumm", "×10³/µL"): the expert types what she reads.
  const ucum = ucumFor(analyte, unit);
  if (ucum == null) throw invalid({ unit: ["labs.unitUnknown"] });
  // The reader's grammar (decision 0105): kept whole, its bounds the part that applies to her.
  const printed = range ? parseRange(range, patient) : null;
  if (range && !printed) throw invalid({ range: ["labs.rangeUnreadable"] });
  // A unit printed inside the range is the value's: its bounds are in the value's unit.
  const factor = factorFor(analyte, ucum);
  if (printed?.units.some((u) => factorFor(analyte, u) !== factor))
    throw invalid({ range: ["labs.rangeOtherUnit"] });
  const m = printedMeasure(analyte, value.n, ucum, printed)!;
  if (m.value < analyte.possible[0] || m.value > analyte.possible[1])
    throw invalid({ value: ["labs.valueImpossible"] });
  // The row's value columns, as the check and the add both store them.
  return {
    value: m.value,
    unit: m.unit,
    valueText: null,
    printedValue: value.text,
    printedUnit: unit,
    rangeText: printed?.text ?? null,
    rangeLow: m.low,
    rangeHigh: m.high,
    flag: m.flag,
  };
}

/**
 * A number the reader doubted is not judged against its printed range (decision 0126): its bounds
 * were not stored. Her confirmation vouches for value and range as read, so they are judged now,
 * by the grammar her correction goes through — unless the printed flag says otherwise than the
 * range (a report at odds with itself stays unjudged), or the row no longer reads as it did.
 */
async function judgedOnConfirm(report: ReportRow, row: Row) {
  if (row.status !== "read" || row.valueText != null || row.value == null || !row.rangeText) return {};
  if (row.rangeLow != null || row.rangeHigh != null) return {};
  try {
    const { fields } = await normalised(report, row.loinc, {
      value: row.printedValue,
      unit: row.printedUnit ?? row.unit,
      range: row.rangeText,
    });
    if (fields.value !== row.value || (row.flag && row.flag !== fields.flag)) return {};
    return { rangeLow: fields.rangeLow, rangeHigh: fields.rangeHigh, flag: row.flag ?? fields.flag };
  } catch (e) {
    if (e instanceof DomainError) return {};
    throw e;
  }
}

function invalid(fieldErrors: Record<string, string[]>) {
  return new DomainError("invalid", "labs.checkFailed", { fieldErrors });
}

export async function heldReport(actor: Actor, reportId: string): Promise<ReportRow> {
  const row = await reportRow(reportId);
  if (!holdsReport(actor, row)) throw new DomainError("forbidden", "labs.notYours");
  return row;
}

/**
 * The expert holding the report confirms, corrects or removes one value, in one step, or undoes
 * its removal (decision 0090).
 */
export async function checkValue(
  actor: Actor,
  reportId: string,
  valueId: string,
  input: CheckInput,
): Promise<ApiLabValue> {
  const report = await heldReport(actor, reportId);
  const parsed = checkSchema.safeParse(input ?? {});
  if (!parsed.success) throw invalid(zodFieldErrors(parsed.error));
  const id = typeof valueId === "string" && valueId.length <= 100 ? valueId : "";
  const current = await first(
    db()
      .select()
      .from(labValues)
      .where(and(eq(labValues.id, id), eq(labValues.reportId, report.id))),
  );
  if (!current) throw new DomainError("not_found", "labs.valueNotFound");
  const data = parsed.data;
  const removed = current.status === "removed";
  if (removed !== (data.action === "restore"))
    throw new DomainError("conflict", removed ? "labs.alreadyRemoved" : "labs.notRemoved");
  const stamp = { checkedBy: actor.id, checkedAt: new Date() };
  let set: { [K in keyof Row]?: Row[K] | SQL };
  if (data.action === "confirm")
    set = {
      ...(await judgedOnConfirm(report, current)),
      status: current.status === "added" ? "added" : "confirmed",
      ...stamp,
    };
  // The status it had when the statement runs, kept for an undo (decision 0090).
  else if (data.action === "remove")
    set = { status: "removed", removedFrom: sql`${labValues.status}`, ...stamp };
  else if (data.action === "restore")
    set = { status: restoredStatus(current.removedFrom), removedFrom: null, ...stamp };
  else {
    set = {
      ...(await normalised(report, current.loinc, data)).fields,
      status: current.status === "added" ? "added" : "corrected",
      ...stamp,
    };
  }
  // A removed value changes only by its undo, whatever ran in between (two requests at once).
  const updated = await applyLabCheck(current.id, set, removed);
  if (!updated) throw new DomainError("conflict", removed ? "labs.notRemoved" : "labs.alreadyRemoved");
  return toApiLabValue(updated);
}

/** The status a removal undone gives back: the one it was removed from (unchecked if unknown). */
function restoredStatus(from: string | null): LabStatus {
  return from === "confirmed" || from === "corrected" || from === "added" ? from : "read";
}

/** The expert holding the report adds a value the reader missed (an analyte of the catalogue). */
export async function addValue(actor: Actor, reportId: string, input: AddValueInput): Promise<ApiLabValue> {
  const report = await heldReport(actor, reportId);
  const parsed = addSchema.safeParse(input ?? {});
  if (!parsed.success) throw invalid(zodFieldErrors(parsed.error));
  const { loinc } = parsed.data;
  const n = await normalised(report, loinc, parsed.data);
  const now = new Date();
  const created = await insertLabValue({
    id: newId(),
    reportId: report.id,
    loinc,
    printedName: n.analyte.name,
    ...n.fields,
    status: "added",
    checkedBy: actor.id,
    checkedAt: now,
    createdAt: now,
  });
  return toApiLabValue(created);
}
