import { describe, expect, it } from "vitest";
import { linesFromTsv } from "~/domain/records/lab-lines.server";
import { readTables, recogniseLabRows } from "~/domain/records/labs/index";

/**
 * A page's lines from its words (pdftotext's TSV of a text layer): words whose vertical middles
 * meet make a line. A watermark printed across the table puts its letters, each several times the
 * text's height, in the text layer among the rows (a real report's watermark did, and so do the
 * seeded layouts'); such a letter must neither join a row's line nor gather two rows into one, or a
 * range printed over two lines ("M: 65 - 175" / "F: 50 - 170") comes back as "M: F: 65 - 175 50 - 170".
 */
const head = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext";
let n = 0;
/** Words of one printed line at `top`, `height` points tall, each starting at its x. */
const words = (top: number, height: number, list: [number, string][]) =>
  list.map(
    ([left, text]) => `5\t1\t1\t1\t${++n}\t1\t${left}\t${top}\t${text.length * 5}\t${height}\t100\t${text}`,
  );
const tsv = (lines: string[]) => [head, "1\t1\t0\t0\t0\t0\t0\t0\t595\t842\t-1\t", ...lines].join("\n");

const table = [
  ...words(150, 9, [
    [40, "INVESTIGATION"],
    [210, "RESULT"],
    [370, "UNITS"],
    [440, "NORMAL"],
    [475, "RANGE"],
  ]),
  ...words(170, 9, [
    [40, "Serum"],
    [70, "Iron"],
    [210, "204"],
    [370, "µg/dL"],
    [440, "M:"],
    [455, "65"],
    [470, "-"],
    [478, "175"],
  ]),
  ...words(182, 9, [
    [440, "F:"],
    [455, "50"],
    [470, "-"],
    [478, "170"],
  ]),
  ...words(200, 9, [
    [40, "Ferritin"],
    [210, "49.5"],
    [370, "ng/mL"],
    [440, "30"],
    [455, "-"],
    [463, "400"],
  ]),
];
/** A watermark's letters (a 50-point font, turned): tall boxes whose middles fall among the rows. */
const watermark = [
  `5\t1\t2\t1\t90\t1\t300\t150\t30\t50\t100\tL`,
  `5\t1\t2\t1\t91\t1\t330\t158\t30\t50\t100\tA`,
  `5\t1\t2\t1\t92\t1\t360\t166\t30\t50\t100\tB`,
];

const texts = (page: string) => linesFromTsv(page).map((l) => l.text.replace(/\s+/g, " "));

describe("a text layer's lines, with a watermark's letters among the rows", () => {
  it("keeps each printed line a line of its own, the letters apart", () => {
    const plain = texts(tsv(table));
    const marked = texts(tsv([...table, ...watermark]));
    for (const line of plain) expect(marked).toContain(line);
    expect(marked).toContain("Serum Iron 204 µg/dL M: 65 - 175");
    expect(marked).toContain("F: 50 - 170");
    expect(marked.filter((l) => /\bL\b|\bA\b|\bB\b/.test(l)).every((l) => /^[LAB ]+$/.test(l))).toBe(true);
  });

  it("reads the range printed over two lines whole, as without the watermark", () => {
    const read = (page: string) =>
      recogniseLabRows(readTables(linesFromTsv(page)).map((l) => l.text)).rows.map((r) => [
        r.printedName,
        r.value,
        r.range?.text,
      ]);
    const marked = read(tsv([...table, ...watermark]));
    expect(marked).toEqual(read(tsv(table)));
    expect(marked.find(([, value]) => value === 204)?.[2]).toBe("M: 65 - 175 F: 50 - 170");
  });
});
