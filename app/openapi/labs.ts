import { z } from "zod";
import type { Endpoint } from "./endpoint";

/** A lab value read from a report and checked by the expert (decision 0084). */
export const observationObject = z.object({
  _id: z.string(),
  reportId: z.string(),
  loinc: z.string().describe("LOINC code of the analyte"),
  name: z.string().describe("The catalogue's English name of the analyte"),
  printedName: z.string().describe("The name as printed on the report"),
  value: z
    .number()
    .nullable()
    .describe(
      "In the analyte's UCUM unit (`unit`). Null only for a text result, which is listed only when asked for (`include=text`; decision 0098)",
    ),
  unit: z.string().describe("UCUM (empty for a text result)"),
  valueText: z
    .string()
    .nullable()
    .optional()
    .describe(
      'A text result ("Reactive", "Nil", "++", "1:80") with its printed reference in `rangeText`; null for a number (decision 0098)',
    ),
  printedValue: z
    .string()
    .describe('The value as printed, or as the expert typed it: its digits kept ("7.0", not 7)'),
  printedUnit: z.string().nullable(),
  rangeText: z
    .string()
    .nullable()
    .describe(
      'The reference range as printed on the report (never invented), kept whole: every part of a range printed in parts ("Male : 0.7 - 1.4 mg/dl Female : 0.6 - 1.2 mg/dl")',
    ),
  rangeLow: z
    .number()
    .nullable()
    .describe(
      "In `unit`: the low bound of the range, or of the part that applies to the patient (null: none printed, or no part could be chosen)",
    ),
  rangeHigh: z.number().nullable().describe("In `unit`: the high bound, as `rangeLow`"),
  rangePart: z
    .string()
    .nullable()
    .optional()
    .describe(
      "A range printed in parts (by sex, age band or category): the part that applies, as printed, chosen from the patient's recorded sex and age; null for a range of one part, or when no part could be chosen (then `judgement` is `unknown`; decision 0105)",
    ),
  flag: z.enum(["H", "L"]).nullable(),
  judgement: z
    .enum(["below", "within", "above", "outside", "unknown"])
    .optional()
    .describe(
      'Where the value stands against what its report prints beside it: a number against its range; a text result against its printed reference ("outside": "Reactive" against "Non-reactive"), judged only where the words are certain ("unknown" otherwise; decisions 0088, 0098)',
    ),
  page: z.number().int().nullable(),
  box: z
    .array(z.number())
    .nullable()
    .describe("[x, y, w, h] as fractions of the page where the value was found"),
  confidence: z.number().nullable(),
  status: z.enum(["read", "confirmed", "corrected", "removed", "added"]),
  checkedAt: z.string().datetime().nullable(),
  createdAt: z.string().datetime(),
});

const HOLDER =
  "the approved Expert holding the report (its live claim, or its reviewer or follow-up expert once reviewed)";
const RANGE_FORMS =
  'As printed, whole (up to 120 characters): "12.0-15.5", "< 200", "> 40", "Up to 40 U/L", "Less than 150", "4.0 - 6.0 million / cu.mm", or in parts by sex, age or category ("Male : 0.7 - 1.4 mg/dl Female : 0.6 - 1.2 mg/dl", "1 - 12 Yrs: 5 - 10 > 12 Yrs: 6 - 12", "Desirable : < 200 Borderline : 200 - 239"). The part that applies is chosen from the patient\'s recorded sex and age (the value is not judged when none can be); a unit printed inside must be the value\'s. The reader\'s own grammar (decision 0105): 400 with a field error when it is not a range';
const range = z.string().max(120).nullable().optional().describe(RANGE_FORMS);

export const LAB_ENDPOINTS: Endpoint[] = [
  {
    method: "get",
    path: "/report/{reportId}/observations",
    who: `${HOLDER} or Admin: every value with its status; the patient, a family manager or the centre's health worker: only values an expert confirmed, corrected or added, and only once the opinion is there (an empty list before)`,
    summary:
      "The lab values read from a report. Text results (Reactive, Nil, ++) are listed only with `include=text` (decision 0098), so a client that reads `value` as a number is never given one without it",
    auth: true,
    query: z.object({
      include: z
        .enum(["text"])
        .optional()
        .describe("`text`: list text results too (`valueText`, `value` null)"),
    }),
    data: z.array(observationObject),
    errors: [401, 403, 404],
  },
  {
    method: "post",
    path: "/report/{reportId}/observations",
    who: HOLDER,
    summary:
      "Add a value the reader missed: an analyte of the catalogue by LOINC, the value in one of its units (stored in the analyte's UCUM unit), the printed range if any. 400 with field errors",
    auth: true,
    body: z.object({
      loinc: z.string(),
      value: z
        .union([z.number(), z.string()])
        .optional()
        .describe(
          'A test reported as a number: the value; a string keeps the digits it was typed with ("7.0")',
        ),
      unit: z
        .string()
        .optional()
        .describe("UCUM (g/dL, 10*3/uL) or as labs print it (gm/dl, lakhs/cumm, ×10³/µL)"),
      result: z
        .string()
        .max(40)
        .optional()
        .describe("A test reported in words (HBsAg, urine sugar): the result as printed, e.g. Non-reactive"),
      range: range.describe(`${RANGE_FORMS}; for a text result its reference ("Negative")`),
    }),
    data: observationObject,
    status: 201,
    errors: [400, 401, 403, 404],
  },
  {
    method: "patch",
    path: "/report/{reportId}/observations/{valueId}",
    who: HOLDER,
    summary:
      "Confirm, correct (value, unit, printed range) or remove one value, storing who and when; a removed value stays for the trail (409 when already removed). `restore` undoes a removal: the value gets back the status it was removed from (409 when it is not removed; decision 0090)",
    auth: true,
    body: z.object({
      action: z.enum(["confirm", "correct", "remove", "restore"]),
      value: z
        .union([z.number(), z.string()])
        .optional()
        .describe('correct: the value; a string keeps the digits it was typed with ("7.0")'),
      unit: z.string().optional().describe("correct: its unit, UCUM or as printed (gm/dl, lakhs/cumm)"),
      result: z
        .string()
        .max(40)
        .optional()
        .describe("correct, a text result: the word(s), e.g. Reactive (decision 0098)"),
      range,
    }),
    data: observationObject,
    errors: [400, 401, 403, 404, 409],
  },
  {
    method: "post",
    path: "/report/{reportId}/observations/confirm",
    who: HOLDER,
    summary:
      "Confirm in one step the unchecked values the caller was shown (decision 0090): `valueIds` lists them (1–500). A value already checked or removed — also by a request at the same time — is left as it is, and so is one read with doubt (`confidence` below 0.9, or none: confirm it on its own with PATCH); each comes back in `skipped` with the reason. An id that is not a value of this report refuses the whole request (404) and nothing changes",
    auth: true,
    body: z.object({
      valueIds: z.array(z.string()).describe("The `_id`s of the values to confirm"),
    }),
    data: z.object({
      confirmed: z.array(observationObject).describe("The values this request confirmed"),
      skipped: z.array(
        z.object({
          _id: z.string(),
          reason: z
            .enum(["checked", "doubt"])
            .describe("checked: already confirmed, corrected, added or removed; doubt: read with doubt"),
        }),
      ),
    }),
    errors: [400, 401, 403, 404],
  },
  {
    method: "get",
    path: "/report/{reportId}/pages/{pageId}",
    who: "those who may open the report's file",
    summary:
      "One page of a PDF report (`pageId`: its number, from 1) as JPEG at 100 dpi: where a value's box lies (`page`, `box` of an observation); recorded like an opening of the file. 400 for a page number out of 1–50, 404 when the report is not a PDF or has no such page",
    auth: true,
    content: { description: "The page as JPEG", types: { "image/jpeg": z.string().describe("binary") } },
    errors: [400, 401, 403, 404],
  },
];
