import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { CONFIDENT } from "~/domain/records/labs";
import { readLocal } from "~/domain/records/index.server";
import { inTempDir } from "./files";
import { labPdf, labPhoto, labPhotoAsSent, labScan, truthOf, type Kind, type Layout } from "./lab-corpus";

export type Score = {
  analyte: string;
  found: boolean;
  exact: boolean;
  wrong: boolean;
  confidentWrong: boolean;
};

/** Reads one corpus report and scores every true value: found, exact (value and printed range), wrong. */
export async function scoreOne(layout: Layout, kind: Kind): Promise<{ scores: Score[]; ms: number }> {
  const [bytes, type] =
    kind === "text"
      ? [await labPdf(layout), "application/pdf"]
      : kind === "scan"
        ? [await labScan(layout), "application/pdf"]
        : kind === "photo"
          ? [await labPhoto(layout), "image/jpeg"]
          : [await labPhotoAsSent(layout), "image/webp"];
  return inTempDir("labscore-", async (dir) => {
    const file = join(dir, "upload");
    writeFileSync(file, bytes);
    const t0 = Date.now();
    const reading = await readLocal(file, type);
    const ms = Date.now() - t0;
    const scores = truthOf(layout).map((t) => {
      const row = reading.rows.find((r) => r.analyte === t.analyte);
      if (!row)
        return { analyte: t.analyte, found: false, exact: false, wrong: false, confidentWrong: false };
      const exact =
        row.printedValue === t.value &&
        (row.range?.text ?? "").replace(/\s+/g, "") === t.range.replace(/\s+/g, "");
      return {
        analyte: t.analyte,
        found: true,
        exact,
        wrong: !exact,
        confidentWrong: !exact && row.confidence >= CONFIDENT,
      };
    });
    return { scores, ms };
  });
}
