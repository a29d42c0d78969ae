import { describe, expect, it } from "vitest";
import { readTables, recogniseLabRows, type TableLine } from "~/domain/records/labs/index";

/*
 * The table reader (decision 0104): result tables laid out on a page — words with their boxes, as
 * pdftotext or Tesseract give them — in layouts drawn from a seed: the columns in any order, the
 * unit column or the flag column missing (the unit then printed inside the range), a method line
 * under a name, a value printed a little below its name, a name that wraps, a range printed over
 * two lines, two tables side by side. Each is read through readTables and the row recogniser, and
 * every value must come back with its range whole. A failure names its seed (LAB_TABLE_SEED
 * reruns one).
 */

/** A small seeded generator (mulberry32): the same seed, the same layouts. */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    pick: <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!,
    chance: (p: number) => next() < p,
    shuffle: <T>(list: readonly T[]): T[] => {
      const out = [...list];
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [out[i], out[j]] = [out[j]!, out[i]!];
      }
      return out;
    },
  };
}

type Test = { name: string; value: string; unit: string; range: string[]; loinc: string };
const TESTS: Test[] = [
  { name: "Haemoglobin", value: "11.2", unit: "g/dL", range: ["13.0 - 17.0"], loinc: "718-7" },
  { name: "Total Leucocyte Count", value: "7800", unit: "/cumm", range: ["4000 - 11000"], loinc: "6690-2" },
  { name: "Serum Creatinine", value: "1.1", unit: "mg/dL", range: ["0.7 - 1.3"], loinc: "2160-0" },
  { name: "Blood Urea", value: "32", unit: "mg/dL", range: ["15 - 45"], loinc: "3091-6" },
  { name: "Sodium", value: "138", unit: "mmol/L", range: ["135 - 145"], loinc: "2951-2" },
  { name: "Potassium (K+)", value: "4.6", unit: "mmol/L", range: ["3.5 - 5.1"], loinc: "2823-3" },
  { name: "Total Cholesterol", value: "212", unit: "mg/dL", range: ["< 200"], loinc: "2093-3" },
  { name: "SGPT (ALT)", value: "56", unit: "U/L", range: ["Up to 40"], loinc: "1742-6" },
  {
    name: "Uric Acid",
    value: "5.1",
    unit: "mg/dL",
    range: ["Male : 3.4 - 7.0", "Female : 2.4 - 5.7"],
    loinc: "3084-1",
  },
  { name: "Mean Corpuscular Volume", value: "88.4", unit: "fL", range: ["80 - 100"], loinc: "787-2" },
];
const HEADS: Record<string, string[]> = {
  name: ["Test", "Investigation", "Test Name", "Parameter"],
  result: ["Result", "Value", "Observed Value"],
  unit: ["Unit", "Units"],
  range: ["Reference Range", "Biological Ref. Interval", "Normal Values", "Ref. Range"],
};
const METHODS = ["Method : Jaffe's Kinetic", "Calculated", "Spectrophotometry", "Method: ISE Indirect"];

const CHAR = 0.0075; // a character's width, as a fraction of the page
const LINE = 0.018; // a line's height
const WORD_H = 0.011;

/** Words of a cell at x (left), y (top): one box per word, as a text layer gives them. */
function wordsAt(text: string, x: number, y: number) {
  const out: { text: string; box: [number, number, number, number] }[] = [];
  let at = x;
  for (const w of text.split(/\s+/).filter(Boolean)) {
    out.push({ text: w, box: [at, y, w.length * CHAR, WORD_H] });
    at += (w.length + 1) * CHAR;
  }
  return out;
}

type Placed = { x: number; y: number; text: string };
function toLines(placed: Placed[]): TableLine[] {
  const byY = new Map<number, Placed[]>();
  for (const p of placed) byY.set(p.y, [...(byY.get(p.y) ?? []), p]);
  return [...byY]
    .sort((a, b) => a[0] - b[0])
    .map(([y, cells]) => {
      const words = cells.sort((a, b) => a.x - b.x).flatMap((c) => wordsAt(c.text, c.x, y));
      const last = words.at(-1)!;
      return {
        page: 1,
        text: cells.map((c) => c.text).join("   "),
        box: [words[0]!.box[0], y, last.box[0] + last.box[2] - words[0]!.box[0], WORD_H],
        words,
      };
    });
}

type Layout = { seed: number; lines: TableLine[]; tests: Test[] };

/** One page: a letterhead, a header row and the tests, in a layout drawn from the seed. */
function layout(seed: number): Layout {
  const r = random(seed);
  const unitColumn = r.chance(0.7);
  const flagColumn = r.chance(0.3);
  const cols = ["result", ...(unitColumn ? ["unit"] : []), "range", ...(flagColumn ? ["flag"] : [])];
  const order = ["name", ...r.shuffle(cols)];
  const width: Record<string, number> = { name: 30, result: 12, unit: 12, range: 28, flag: 7 };
  const twoTables = r.chance(0.2);
  const tests = r.shuffle(TESTS).slice(0, twoTables ? 8 : 4 + Math.floor(r.next() * 6));
  const halves = twoTables ? [tests.slice(0, 4), tests.slice(4)] : [tests];
  const placed: Placed[] = [
    { x: 0.05, y: 0.03, text: r.pick(["City Diagnostics", "Sunrise Pathology Lab", "Sri Sai Labs"]) },
    { x: 0.05, y: 0.06, text: "Patient : Asha Devi Age : 54 Years" },
  ];
  let y = 0.12;
  const x0s = twoTables ? [0.02, 0.5] : [0.05];
  const heads = Object.fromEntries(order.map((c) => [c, c === "flag" ? "Flag" : r.pick(HEADS[c]!)]));
  // Each column as wide as its widest cell (a name that wraps: its widest line), and a gap.
  const widest = (c: string) =>
    Math.max(
      heads[c]!.length,
      ...tests.map((t) =>
        c === "name"
          ? Math.max(
              t.name.split(" ").slice(0, 2).join(" ").length,
              t.name.split(" ").slice(2).join(" ").length,
            )
          : c === "result"
            ? t.value.length
            : c === "unit"
              ? t.unit.length
              : c === "range"
                ? Math.max(...t.range.map((p) => p.length)) + t.unit.length + 1
                : 1,
      ),
    );
  let x = 0.03;
  const starts = x0s.map(() => {
    const s: Record<string, number> = {};
    for (const c of order) {
      s[c] = x;
      x += widest(c) * CHAR + 0.02 + (c === "name" ? width.name! * CHAR * 0.2 : 0);
    }
    x += 0.03;
    return s;
  });
  for (const s of starts) for (const c of order) placed.push({ x: s[c]!, y, text: heads[c]! });
  y += LINE * 1.5;
  const rowsTop = y;
  halves.forEach((half, h) => {
    y = rowsTop;
    const s = starts[h]!;
    for (const t of half) {
      const range = unitColumn ? t.range : [...t.range.slice(0, -1), `${t.range.at(-1)} ${t.unit}`];
      const nameY = y;
      // The value a little below its name (a cell centred on two lines), or on its line.
      const below = r.chance(0.2);
      const wrap = t.name.split(" ").length > 2 && r.chance(0.4);
      const name = wrap ? t.name.split(" ") : [t.name];
      if (wrap) {
        placed.push({ x: s.name!, y: nameY, text: name.slice(0, 2).join(" ") });
        placed.push({ x: s.name!, y: nameY + LINE, text: name.slice(2).join(" ") });
      } else placed.push({ x: s.name!, y: nameY, text: t.name });
      const valueY = below && !wrap ? nameY + LINE * 0.9 : nameY;
      placed.push({ x: s.result!, y: valueY, text: t.value });
      if (unitColumn) placed.push({ x: s.unit!, y: valueY, text: t.unit });
      range.forEach((part, i) => placed.push({ x: s.range!, y: valueY + i * LINE, text: part }));
      y = Math.max(valueY + range.length * LINE, nameY + name.length * LINE);
      if (r.chance(0.3) && !wrap) {
        placed.push({ x: s.name! + CHAR, y, text: r.pick(METHODS) });
        y += LINE;
      }
      y += LINE * 0.3;
    }
  });
  return { seed, lines: toLines(placed), tests };
}

const SEED = Number(process.env.LAB_TABLE_SEED) || Math.floor(Math.random() * 2 ** 31);

describe("the table reader (decision 0104)", () => {
  it("reads every value of a result table, in layouts drawn from a seed", () => {
    console.log(`labs-table: seed ${SEED} (LAB_TABLE_SEED=${SEED} reruns it)`);
    for (let n = 0; n < 200; n++) {
      const seed = SEED + n;
      const { lines, tests } = layout(seed);
      const tabled = readTables(lines).map((l) => l.text);
      const rows = recogniseLabRows(tabled, { sex: "female", age: 54 }).rows;
      for (const t of tests) {
        const row = rows.find((x) => x.loinc === t.loinc);
        const unitInRange = !lines.some((l) => /\bUnits?\b/.test(l.text));
        const whole = unitInRange ? [...t.range.slice(0, -1), `${t.range.at(-1)} ${t.unit}`] : t.range;
        const page = `${lines.map((l) => l.text).join("\n")}\n-- read as --\n${tabled.join("\n")}`;
        expect(row, `seed ${seed}: ${t.name} not read from\n${page}`).toBeDefined();
        expect(row!.printedValue, `seed ${seed}: ${t.name}`).toBe(t.value);
        // The range kept whole, with the unit printed inside it where there is no unit column.
        const squash = (s: string) => s.replace(/\s+/g, "");
        expect(squash(row!.range?.text ?? "-"), `seed ${seed}: ${t.name}`).toBe(squash(whole.join(" ")));
        expect(row!.printedUcum, `seed ${seed}: ${t.name}: its unit, from the range`).not.toBeNull();
      }
    }
  });

  it("keeps a unit printed inside the range, spaced out or not, and a value set beside a method line", () => {
    const lines = toLines([
      { x: 0.05, y: 0.1, text: "TEST" },
      { x: 0.3, y: 0.1, text: "RESULT" },
      { x: 0.45, y: 0.1, text: "UNITS" },
      { x: 0.6, y: 0.1, text: "NORMAL VALUES" },
      { x: 0.05, y: 0.12, text: "S.G.O.T." },
      { x: 0.3, y: 0.12, text: "48.6" },
      { x: 0.45, y: 0.12, text: "U/L" },
      { x: 0.6, y: 0.12, text: "Up to 46 U / L" },
      { x: 0.05, y: 0.14, text: "Triglycerides" },
      { x: 0.6, y: 0.14, text: "< 150.00 mg / dl" },
      { x: 0.05, y: 0.16, text: "Spectrophotometry" },
      { x: 0.3, y: 0.16, text: "100.00" },
      { x: 0.45, y: 0.16, text: "mg/dL" },
    ]);
    const rows = recogniseLabRows(readTables(lines).map((l) => l.text)).rows;
    expect(rows.map((r) => [r.printedName, r.printedValue, r.range?.text, r.confidence >= 0.9])).toEqual([
      ["S.G.O.T.", "48.6", "Up to 46 U / L", true],
      ["Triglycerides", "100.00", "< 150.00 mg / dl", true],
    ]);
  });

  it("splits two header words OCR ran together where two tables meet ('RangeTest')", () => {
    const lines = toLines([
      { x: 0.02, y: 0.1, text: "Test Result Unit Reference RangeTest" },
      { x: 0.35, y: 0.1, text: "Result Unit Reference Range" },
      { x: 0.02, y: 0.12, text: "HbA1c" },
      { x: 0.0575, y: 0.12, text: "7.2" },
      { x: 0.11, y: 0.12, text: "%" },
      { x: 0.1475, y: 0.12, text: "4.0 - 5.6" },
      { x: 0.26, y: 0.12, text: "Blood Urea" },
      { x: 0.35, y: 0.12, text: "24" },
      { x: 0.3875, y: 0.12, text: "mg/dL" },
      { x: 0.44, y: 0.12, text: "15 - 40" },
    ]);
    // The header's words as OCR boxes them: one box per word, "RangeTest" among them.
    const rows = recogniseLabRows(readTables(lines).map((l) => l.text)).rows;
    expect(rows.map((r) => [r.printedName, r.printedValue, r.range?.text])).toEqual([
      ["HbA1c", "7.2", "4.0 - 5.6"],
      ["Blood Urea", "24", "15 - 40"],
    ]);
  });

  it("gives lines outside a table back as they were, and a page without a header unchanged", () => {
    const lines = toLines([
      { x: 0.05, y: 0.1, text: "Haemoglobin 11.2 g/dL 13.0 - 17.0" },
      { x: 0.05, y: 0.12, text: "Method : Calculated" },
    ]);
    expect(readTables(lines).map((l) => l.text)).toEqual(lines.map((l) => l.text));
  });

  it("reads a header in a typewriter font as OCR boxes it: its words a letter and more apart (decision 0112)", () => {
    // Tesseract's boxes (page fractions) of a Courier page scanned at 300 dpi: a box holds only the
    // ink, lower than the text layer's, and "Test" and "Name" stand 1.25 letters apart.
    const line = (y: number, words: [string, number, number][]): TableLine => ({
      page: 1,
      text: words.map((w) => w[0]).join(" "),
      box: [words[0]![1], y, words.at(-1)![1] + words.at(-1)![2] - words[0]![1], 0.0077],
      words: words.map(([text, x, w]) => ({ text, box: [x, y, w, 0.0077] })),
    });
    const lines = [
      line(0.1804, [
        ["Test", 0.0677, 0.0347],
        ["Name", 0.1133, 0.0351],
        ["NORMAL", 0.289, 0.0536],
        ["RANGE", 0.3527, 0.0443],
        ["Observed", 0.4651, 0.0713],
        ["Value", 0.5466, 0.0447],
        ["Units", 0.6594, 0.0439],
      ]),
      line(0.2252, [
        ["SERUM", 0.0677, 0.0443],
        ["CHOLESTEROL", 0.1221, 0.0988],
        ["Up", 0.289, 0.0169],
        ["to", 0.3172, 0.0161],
        ["200", 0.3438, 0.0258],
        ["188", 0.4655, 0.0254],
        ["mg/dl", 0.659, 0.0443],
      ]),
      line(0.2445, [
        ["METHOD", 0.0677, 0.0536],
        [":", 0.1264, 0.004],
        ["Enzymatic", 0.1385, 0.0801],
      ]),
      line(0.2631, [
        ["HDL", 0.0681, 0.0254],
        ["CHOLESTEROL", 0.104, 0.0983],
        [">50", 0.2894, 0.0258],
        ["43", 0.4651, 0.0169],
        ["mg/dl", 0.659, 0.0443],
      ]),
    ];
    const rows = recogniseLabRows(readTables(lines).map((l) => l.text)).rows;
    expect(rows.map((r) => [r.printedName, r.printedValue, r.range?.text])).toEqual([
      ["SERUM CHOLESTEROL", "188", "Up to 200"],
      ["HDL CHOLESTEROL", "43", ">50"],
    ]);
  });

  it("keeps a range's next part printed beside the method line under the name", () => {
    const lines = toLines([
      { x: 0.05, y: 0.1, text: "INVESTIGATION" },
      { x: 0.3, y: 0.1, text: "UNIT" },
      { x: 0.45, y: 0.1, text: "VALUE" },
      { x: 0.6, y: 0.1, text: "REF. RANGE" },
      { x: 0.05, y: 0.12, text: "Hemoglobin" },
      { x: 0.3, y: 0.12, text: "gm/dl" },
      { x: 0.45, y: 0.12, text: "14.0" },
      { x: 0.6, y: 0.12, text: "Female : 12.0 - 15.5" },
      { x: 0.05, y: 0.14, text: "Method: Photometry" },
      { x: 0.6, y: 0.14, text: "Male : 13.0 - 17.0" },
    ]);
    const [hb] = recogniseLabRows(
      readTables(lines).map((l) => l.text),
      { sex: "male", age: 40 },
    ).rows;
    expect(hb?.range?.text).toBe("Female : 12.0 - 15.5 Male : 13.0 - 17.0");
    expect([hb?.range?.low, hb?.range?.high]).toEqual([13, 17]);
  });

  it("takes two header words of one kind side by side as one cell, whatever the gap between them (decision 0124)", () => {
    // "Bio." and "Ref. Interval" a wide Courier gap apart: before, a second range column began a
    // second table, and every range's bound under "Ref." was lost with its unit.
    const lines = toLines([
      { x: 0.05, y: 0.1, text: "Investigation" },
      { x: 0.3, y: 0.1, text: "Results" },
      { x: 0.42, y: 0.1, text: "Bio." },
      { x: 0.48, y: 0.1, text: "Ref. Interval" },
      { x: 0.65, y: 0.1, text: "UNITS" },
      { x: 0.05, y: 0.12, text: "Cholesterol Total" },
      { x: 0.3, y: 0.12, text: "175" },
      { x: 0.42, y: 0.12, text: "Upto 200" },
      { x: 0.65, y: 0.12, text: "mg/dl" },
      { x: 0.05, y: 0.14, text: "TSH" },
      { x: 0.3, y: 0.14, text: "4.78" },
      { x: 0.42, y: 0.14, text: "0.27 to 4.20" },
      { x: 0.65, y: 0.14, text: "uIU/mL" },
    ]);
    const rows = recogniseLabRows(readTables(lines).map((l) => l.text)).rows;
    expect(rows.map((r) => [r.printedName, r.printedValue, r.range?.text])).toEqual([
      ["Cholesterol Total", "175", "Upto 200"],
      ["TSH", "4.78", "0.27 to 4.20"],
    ]);
  });

  it("keeps a long name that runs on past its column's edge whole (decision 0124)", () => {
    // "ABSOLUTE NEUTROPHIL COUNT" runs into the unit column a space after "NEUTROPHIL": its last
    // word is the name's, not a unit the value is followed by.
    const lines = toLines([
      { x: 0.05, y: 0.1, text: "Parameter" },
      { x: 0.2, y: 0.1, text: "Unit" },
      { x: 0.32, y: 0.1, text: "RESULT" },
      { x: 0.45, y: 0.1, text: "NORMAL RANGE" },
      { x: 0.05, y: 0.12, text: "ABSOLUTE NEUTROPHIL COUNT" },
      { x: 0.245, y: 0.12, text: "/cumm" },
      { x: 0.32, y: 0.12, text: "2590" },
      { x: 0.45, y: 0.12, text: "2000 - 7000" },
      { x: 0.05, y: 0.14, text: "EOSINOPHILS" },
      { x: 0.2, y: 0.14, text: "%" },
      { x: 0.32, y: 0.14, text: "2" },
      { x: 0.45, y: 0.14, text: "1 - 6" },
    ]);
    const rows = recogniseLabRows(readTables(lines).map((l) => l.text)).rows;
    expect(rows.map((r) => [r.printedName, r.printedValue, r.range?.text])).toEqual([
      ["ABSOLUTE NEUTROPHIL COUNT", "2590", "2000 - 7000"],
      ["EOSINOPHILS", "2", "1 - 6"],
    ]);
  });
});
