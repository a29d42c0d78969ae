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
  sampleDateOf,
  truthOf,
  type Kind,
  type Layout,
} from "./lab-corpus";

export type Score = {
  layout: Layout;
  analyte: string;
  found: boolean;
  /** Value and printed range read as printed (a word result: its word). */
  exact: boolean;
  /** Found, but not as printed. */
  wrong: boolean;
  confidentWrong: boolean;
  /** Read as printed, but below CONFIDENT (the expert checks it on its own). */
  doubted: boolean;
  /** What the patient would be told (below / within / above) is not what the printed range says. */
  judgementWrong: boolean;
};

export type Scored = { scores: Score[]; ms: number; date: { want: string | null; got: string | null } };

const squash = (s: string | null | undefined) => (s ?? "").replace(/\s+/g, "");

async function bytesOf(layout: Layout, kind: Kind): Promise<[Buffer, string]> {
  if (kind === "text") return [await labPdf(layout), "application/pdf"];
  if (kind === "scan") return [await labScan(layout), "application/pdf"];
  if (kind === "photo") return [await labPhoto(layout), "image/jpeg"];
  return [await labPhotoAsSent(layout), "image/webp"];
}

/**
 * Reads one corpus report with the patient's recorded sex and age, and scores every true value:
 * found, exact (value and printed range as printed), wrong, confident-and-wrong, and whether the
 * judgement a patient would see disagrees with the printed range; and the sample's date.
 */
export async function scoreOne(layout: Layout, kind: Kind): Promise<Scored> {
  const [bytes, type] = await bytesOf(layout, kind);
  return inTempDir("labscore-", async (dir) => {
    const file = join(dir, "upload");
    writeFileSync(file, bytes);
    const t0 = Date.now();
    const { sex, age } = patientOf(layout);
    const year = Number((sampleDateOf(layout) ?? "2025").slice(0, 4));
    const reading = await readLocal(file, type, undefined, undefined, {
      sex,
      birthYear: age === null ? null : year - age,
    });
    const ms = Date.now() - t0;
    const truth = truthOf(layout, kind === "photo" || kind === "sent" ? { firstPage: true } : {});
    const scores = truth.map((t): Score => {
      const row =
        reading.rows.find((r) => r.analyte === t.analyte && r.printedName === t.printed) ??
        reading.rows.find((r) => r.analyte === t.analyte);
      const none = {
        layout,
        analyte: t.analyte,
        found: false,
        exact: false,
        wrong: false,
        confidentWrong: false,
        doubted: false,
      };
      if (!row) return { ...none, judgementWrong: false };
      const exact = row.printedValue === t.value && squash(row.range?.text) === squash(t.range);
      const said = row.measure.judgement;
      return {
        layout,
        analyte: t.analyte,
        found: true,
        exact,
        wrong: !exact,
        confidentWrong: !exact && row.confidence >= CONFIDENT,
        doubted: exact && row.confidence < CONFIDENT,
        judgementWrong: said !== "unknown" && said !== t.judgement,
      };
    });
    return { scores, ms, date: { want: sampleDateOf(layout), got: reading.sampleDate ?? null } };
  });
}
