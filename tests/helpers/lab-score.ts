import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { CONFIDENT } from "~/domain/records/labs";
import { readLocal } from "~/domain/records/index.server";
import { inTempDir } from "./files";
import {
  labPdf,
  labPhoto,
  labPhotoAsSent,
  labScan,
  patientOf,
  photoOf,
  sampleDateOf,
  scanOf,
  sentOf,
  truthOf,
  type Kind,
  type Layout,
  type Truth,
} from "./lab-corpus";
import { specPdf } from "./lab-render";
import type { SeededLayout } from "./lab-seeded";

export type Score = {
  /** The layout's name (a seeded one: "s<seed>-<n>"). */
  layout: string;
  analyte: string;
  found: boolean;
  /** Value and printed range read as printed (a word result: its word). */
  exact: boolean;
  /** Found, but not as printed. */
  wrong: boolean;
  confidentWrong: boolean;
  /** Found, but the number (or word) is not the one printed, whatever its range. */
  valueWrong: boolean;
  /** A number not the one printed, given as confident: what a patient must never be shown. */
  confidentWrongValue: boolean;
  /** Read as printed, but below CONFIDENT (the expert checks it on its own). */
  doubted: boolean;
  /** What the patient would be told (below / within / above) is not what the printed range says. */
  judgementWrong: boolean;
  /** What was read, for a failure's message: "<printed value> [<range>] <judgement> @<confidence>". */
  got?: string;
  /** What is printed: "<value> [<range>] <judgement>". */
  want: string;
};

export type Scored = { scores: Score[]; ms: number; date: { want: string | null; got: string | null } };

/** A report of the corpus: its bytes in each kind, what it prints, and the patient it is for. */
export type CorpusDoc = {
  name: string;
  bytes: (kind: Kind) => Promise<[Buffer, string]>;
  /** The values printed: all of them, or on the first page only (what a photo shows). */
  truth: (firstPage: boolean) => Truth[];
  patient: { sex: "female" | "male" | null; age: number | null };
  sampleDate: string | null;
};

/** One of the fixed layouts (decision 0089). */
export const fixedDoc = (layout: Layout): CorpusDoc => ({
  name: layout,
  bytes: async (kind) => {
    if (kind === "text") return [await labPdf(layout), "application/pdf"];
    if (kind === "scan") return [await labScan(layout), "application/pdf"];
    if (kind === "photo") return [await labPhoto(layout), "image/jpeg"];
    return [await labPhotoAsSent(layout), "image/webp"];
  },
  truth: (firstPage) => truthOf(layout, { firstPage }),
  patient: patientOf(layout),
  sampleDate: sampleDateOf(layout),
});

/** A layout drawn from a seed (decision 0107): scanned and photographed as it drew. */
export const seededDoc = (l: SeededLayout): CorpusDoc => {
  const noise = (l.seed * 97 + l.index) >>> 0;
  const pdf = () => specPdf(l.spec, l.dateStyle);
  return {
    name: l.name,
    bytes: async (kind) => {
      if (kind === "text") return [await pdf(), "application/pdf"];
      if (kind === "scan") return [await scanOf(await pdf(), l.scan, noise), "application/pdf"];
      const photo = photoOf(await pdf(), l.photo, noise);
      return kind === "photo" ? [photo, "image/jpeg"] : [sentOf(photo), "image/webp"];
    },
    truth: (firstPage) => (firstPage ? l.firstPage : l.truth),
    patient: { sex: l.spec.patient.sex, age: l.spec.patient.age },
    sampleDate: l.spec.sampleDate,
  };
};

/** Whitespace and letter case aside ("mg/dl" is "mg/dL"), as `npm run bench:labs:real` compares. */
const squash = (s: string | null | undefined) => (s ?? "").replace(/\s+/g, "").toLowerCase();

/**
 * Reads one corpus report with the patient's recorded sex and age, and scores every true value:
 * found, exact (value and printed range as printed), wrong, confident-and-wrong, and whether the
 * judgement a patient would see disagrees with the printed range; and the sample's date.
 */
export async function scoreDoc(doc: CorpusDoc, kind: Kind): Promise<Scored> {
  const [bytes, type] = await doc.bytes(kind);
  return inTempDir("labscore-", async (dir) => {
    const file = join(dir, "upload");
    writeFileSync(file, bytes);
    const t0 = Date.now();
    const { sex, age } = doc.patient;
    const year = Number((doc.sampleDate ?? "2025").slice(0, 4));
    const reading = await readLocal(file, type, undefined, undefined, {
      sex,
      birthYear: age === null ? null : year - age,
    });
    const ms = Date.now() - t0;
    const truth = doc.truth(kind === "photo" || kind === "sent");
    const scores = truth.map((t): Score => {
      const row =
        reading.rows.find((r) => r.analyte === t.analyte && r.printedName === t.printed) ??
        reading.rows.find((r) => r.analyte === t.analyte);
      const want = `${t.value} [${t.range}] ${t.judgement}`;
      const none = {
        layout: doc.name,
        analyte: t.analyte,
        found: false,
        exact: false,
        wrong: false,
        confidentWrong: false,
        valueWrong: false,
        confidentWrongValue: false,
        doubted: false,
        want,
      };
      if (!row) return { ...none, judgementWrong: false };
      // A unit printed inside the range may be read as the row's unit, the range without it.
      const range = squash(row.range?.text);
      const rangeRight =
        range === squash(t.range) ||
        (!!t.rangeUnit &&
          squash(row.printedUnit) === squash(t.rangeUnit) &&
          range === squash(t.range.split(t.rangeUnit).join("")));
      const valueWrong = row.printedValue !== t.value;
      const exact = !valueWrong && rangeRight;
      const said = row.measure.judgement;
      return {
        ...none,
        found: true,
        exact,
        wrong: !exact,
        confidentWrong: !exact && row.confidence >= CONFIDENT,
        valueWrong,
        confidentWrongValue: valueWrong && row.confidence >= CONFIDENT,
        doubted: exact && row.confidence < CONFIDENT,
        judgementWrong: said !== "unknown" && said !== t.judgement,
        got: `${row.printedValue} [${row.range?.text ?? ""}] ${said} @${row.confidence.toFixed(2)}`,
      };
    });
    return { scores, ms, date: { want: doc.sampleDate, got: reading.sampleDate ?? null } };
  });
}

/** Scores one of the fixed layouts (decision 0089). */
export const scoreOne = (layout: Layout, kind: Kind): Promise<Scored> => scoreDoc(fixedDoc(layout), kind);
