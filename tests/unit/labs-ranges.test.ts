import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  appliedPart,
  MAX_RANGE,
  parseRange,
  patientOn,
  printedParts,
  type Patient,
} from "~/domain/records/labs";

/*
 * One range grammar (decision 0105): a printed range as text — typed by the expert, sent to the
 * API — is read by the reader's own lexer and `printedRange`: parts by sex, age or category in any
 * order, words ("Up to", "Less than"), comparators, units inside the range. It is kept whole; its
 * bounds are those of the part that applies to the patient, or none when that cannot be chosen.
 */

const female: Patient = { sex: "female", age: 40 };
const male: Patient = { sex: "male", age: 40 };
const unknown: Patient = { sex: null, age: null };

describe("parseRange: the forms labs print", () => {
  it.each([
    // [text, patient, low, high, applies]
    ["12.0-15.5", undefined, 12, 15.5, undefined],
    ["12.0 - 15.5", undefined, 12, 15.5, undefined],
    ["13 to 17", undefined, 13, 17, undefined],
    ["< 200", undefined, null, 200, undefined],
    ["<5.7", undefined, null, 5.7, undefined],
    ["> 40", undefined, 40, null, undefined],
    ["Up to 40 U/L", undefined, null, 40, undefined],
    ["upto 40", undefined, null, 40, undefined],
    ["Less than 150", undefined, null, 150, undefined],
    ["4.0 - 6.0 million / cu.mm", undefined, 4, 6, undefined],
    ["3.5 - 5.5 mEq/L.", undefined, 3.5, 5.5, undefined],
    ["150000 - 450000 / cu.mm", undefined, 150000, 450000, undefined],
    ["0.7-1.4mg/dl", undefined, 0.7, 1.4, undefined],
    ["4,000 - 11,000", undefined, 4000, 11000, undefined],
    ["12,5 - 15,5", undefined, 12.5, 15.5, undefined],
    ["Desirable < 200", undefined, null, 200, undefined],
    ["Desirable : < 200", undefined, null, 200, "Desirable : < 200"],
    ["Male : 0.7 - 1.4 mg/dl Female : 0.6 - 1.2 mg/dl", female, 0.6, 1.2, "Female : 0.6 - 1.2"],
    ["Male : 0.7 - 1.4 mg/dl Female : 0.6 - 1.2 mg/dl", male, 0.7, 1.4, "Male : 0.7 - 1.4"],
    ["Male : 0.7 - 1.4 mg/dl Female : 0.6 - 1.2 mg/dl", unknown, null, null, null],
    ["Male : 0.7 - 1.4 mg/dl Female : 0.6 - 1.2 mg/dl", undefined, null, null, null],
    ["male : 14 - 16 g% Female : 12 - 14 g%", female, 12, 14, "Female : 12 - 14"],
    ["F: 12-15.5 M: 13-17", male, 13, 17, "M: 13-17"],
    ["Adults: 13 - 17 Children: 11 - 14", { sex: null, age: 8 }, 11, 14, "Children: 11 - 14"],
    ["1 - 12 Yrs: 5 - 10 > 12 Yrs : 6 - 12", { sex: "male", age: 8 }, 5, 10, "1 - 12 Yrs: 5 - 10"],
    ["1 - 12 Yrs: 5 - 10 > 12 Yrs : 6 - 12", female, 6, 12, "> 12 Yrs : 6 - 12"],
    ["High: > 240 Desirable: < 200 Borderline High: 200 - 239", undefined, null, 200, "Desirable: < 200"],
  ] as const)("%s (%j)", (text, patient, low, high, applies) => {
    const r = parseRange(text, patient);
    expect(r).not.toBeNull();
    // Never cut: the text as typed, units and every part kept.
    expect(r!.text).toBe(text);
    expect([r!.low, r!.high]).toEqual([low, high]);
    expect(r!.applies).toBe(applies);
  });

  it("names the units printed inside, in UCUM", () => {
    expect(parseRange("Male : 0.7 - 1.4 mg/dl Female : 0.6 - 1.2 mg/dl")!.units).toEqual(["mg/dL", "mg/dL"]);
    expect(parseRange("4.0 - 6.0 million / cu.mm")!.units).toEqual(["10*6/uL"]);
    expect(parseRange("12 - 15")!.units).toEqual([]);
  });

  it.each([
    "",
    "normal",
    "12 15",
    "see note",
    "Male:",
    "Male : Female : 12 - 15",
    "Male : 13 - 17 Female :",
    "15 - 12",
    "Male : 17 - 13 Female : 12 - 15",
    "12 - 15 H",
    "12 - 15 and more",
    "12/03/2024",
  ])("refuses %j: not a range", (text) => {
    expect(parseRange(text, female)).toBeNull();
  });

  it("her age is counted in the year of the sample; a year of birth not recorded gives no age", () => {
    expect(patientOn({ sex: "female", birthYear: 1990 }, "2024-03-01")).toEqual({ sex: "female", age: 34 });
    expect(patientOn({ sex: "male", birthYear: 2016 }, new Date(Date.UTC(2025, 5, 1)))).toEqual({
      sex: "male",
      age: 9,
    });
    expect(patientOn({ sex: null, birthYear: null }, "2024-03-01")).toEqual({ sex: null, age: null });
  });

  it("finds again the stored part that applies from its bounds in the value's unit", () => {
    const text = "Male : 0.7 - 1.4 mg/dl Female : 0.6 - 1.2 mg/dl";
    expect(appliedPart(text, 0.6, 1.2, 1)).toBe("Female : 0.6 - 1.2");
    // Creatinine in µmol/L: the bounds stored converted (× 88.42).
    expect(appliedPart(text, 0.7 * 88.42, 1.4 * 88.42, 88.42)).toBe("Male : 0.7 - 1.4");
    expect(appliedPart(text, null, null, 1)).toBeNull();
    expect(appliedPart("0.6 - 1.2", 0.6, 1.2, 1)).toBeNull();
    expect(appliedPart(null, 0.6, 1.2, 1)).toBeNull();
  });

  it("cuts a range in parts before each part for the screen, units kept with their part", () => {
    expect(printedParts("Male : 0.7 - 1.4 mg/dl Female : 0.6 - 1.2 mg/dl")).toEqual([
      { printed: "Male : 0.7 - 1.4 mg/dl", part: "Male : 0.7 - 1.4" },
      { printed: "Female : 0.6 - 1.2 mg/dl", part: "Female : 0.6 - 1.2" },
    ]);
    expect(printedParts("M: 13-17, F: 12-15.5")?.map((p) => p.printed)).toEqual(["M: 13-17", "F: 12-15.5"]);
    expect(printedParts("12 - 15 g/dL")).toBeNull();
    expect(printedParts(null)).toBeNull();
  });
});

/*
 * Generated ranges: two to four parts of one kind (sex, age words, age bands, the categories of a
 * risk table) in any order, each two-sided or a comparator in symbols or words, a unit printed
 * after any part, commas between parts; for any patient. The model says which part applies.
 */

type Part = { label: string; key: string; years?: [number | null, number | null]; body: Body; unit: string };
type Body = { text: string; low: number | null; high: number | null };

const num = fc
  .tuple(fc.integer({ min: 1, max: 9999 }), fc.integer({ min: 0, max: 2 }))
  .map(([n, d]) => ({ n: n / 10 ** d, text: (n / 10 ** d).toFixed(d) }));

const body: fc.Arbitrary<Body> = fc.oneof(
  fc
    .tuple(num, num, fc.constantFrom(" - ", "-", " – ", " to "))
    .filter(([a, b]) => a.n < b.n)
    .map(([a, b, sep]) => ({ text: `${a.text}${sep}${b.text}`, low: a.n, high: b.n })),
  fc
    .tuple(num, fc.constantFrom("<", "<=", "≤", "Up to", "upto", "Less than", "below"))
    .map(([a, w]) => ({ text: `${w} ${a.text}`, low: null, high: a.n })),
  fc
    .tuple(num, fc.constantFrom(">", ">=", "≥", "More than", "Greater than", "above"))
    .map(([a, w]) => ({ text: `${w} ${a.text}`, low: a.n, high: null })),
);

const unit = fc.constantFrom(
  "",
  "",
  "mg/dl",
  "g/dL",
  "U/L",
  "mEq/L",
  "million / cu.mm",
  "/cumm",
  "%",
  "IU/L",
);

const colon = (word: string) => fc.constantFrom(`${word}:`, `${word} :`);

const SEX = [
  ["male", ["Male", "Males", "Men", "M"]],
  ["female", ["Female", "Females", "Women", "F"]],
] as const;
const sexParts = fc
  .tuple(
    ...SEX.map(([key, words]) =>
      fc
        .constantFrom(...words)
        .chain(colon)
        .map((label) => ({ key, label })),
    ),
  )
  .map((ls) => ls.map((l) => ({ ...l })));

const AGE = [
  ["adult", ["Adult", "Adults"]],
  ["child", ["Child", "Children", "Paediatric"]],
  ["newborn", ["Newborn", "Neonates", "Infants"]],
] as const;
const ageParts = fc.subarray([...AGE], { minLength: 2 }).chain((kinds) =>
  fc.tuple(
    ...kinds.map(([key, words]) =>
      fc
        .constantFrom(...words)
        .chain(colon)
        .map((label) => ({ key, label })),
    ),
  ),
);

/** Age bands that do not overlap: "0 - 1 Yrs:", "1 - 12 Yrs :", "> 12 Years:". */
const bandParts = fc
  .uniqueArray(fc.integer({ min: 1, max: 80 }), { minLength: 1, maxLength: 3 })
  .chain((cuts) => {
    const edges = [0, ...[...cuts].sort((a, b) => a - b)];
    return fc.tuple(
      ...edges.map((from, i) => {
        const to = edges[i + 1];
        const years: [number | null, number | null] = to === undefined ? [from, null] : [from, to];
        return fc.tuple(fc.constantFrom("Yrs", "Years", "yrs"), fc.constantFrom(":", " :")).map(([y, c]) => ({
          key: "band",
          years,
          label: to === undefined ? `> ${from} ${y}${c}` : `${from} - ${to} ${y}${c}`,
        }));
      }),
    );
  });

const REFERENCE = ["Desirable", "Normal", "Optimal"];
const OTHERS = [
  "Borderline",
  "Borderline High",
  "High",
  "Very High",
  "Near Optimal",
  "Prediabetes",
  "Diabetes",
];
const categoryParts = fc
  .tuple(fc.constantFrom(...REFERENCE), fc.subarray(OTHERS, { minLength: 1, maxLength: 3 }))
  .chain(([ref, others]) =>
    fc.tuple(...[ref, ...others].map((w) => colon(w).map((label) => ({ key: w.toLowerCase(), label })))),
  );

const labelled = fc
  .oneof(sexParts, ageParts, bandParts, categoryParts)
  .chain((labels) =>
    fc.tuple(
      fc.shuffledSubarray(
        labels as { key: string; label: string; years?: [number | null, number | null] }[],
        {
          minLength: labels.length,
        },
      ),
      fc.array(fc.tuple(body, unit, fc.boolean()), { minLength: labels.length, maxLength: labels.length }),
    ),
  )
  .map(([labels, bodies]) =>
    labels.map((l, i): Part & { comma: boolean } => ({
      ...l,
      body: bodies[i]![0],
      unit: bodies[i]![1],
      comma: bodies[i]![2],
    })),
  );

const patient: fc.Arbitrary<Patient> = fc.record({
  sex: fc.constantFrom("female", "male", "other", null),
  age: fc.option(fc.integer({ min: 0, max: 95 }), { nil: null }),
});

/** The part the patient's recorded sex and age choose (decision 0089), or null. */
function model(parts: Part[], p: Patient): Part | null {
  const kind = parts[0]!.years ? "band" : parts[0]!.key;
  const one = (xs: Part[]) => (xs.length === 1 ? xs[0]! : null);
  if (kind === "male" || kind === "female") return one(parts.filter((x) => x.key === p.sex));
  if (kind === "band") {
    if (p.age === null) return null;
    const age = p.age;
    // A year of birth gives an age one out either way: a band holds her only with that to spare.
    return one(
      parts.filter(({ years }) => {
        const [lo, hi] = years!;
        return (lo === null || age - 1 >= lo) && (hi === null || age + 1 <= hi);
      }),
    );
  }
  if (["adult", "child", "newborn"].includes(kind)) {
    if (p.age === null) return null;
    const key = p.age >= 18 ? "adult" : p.age >= 1 && p.age < 12 ? "child" : null;
    return one(parts.filter((x) => x.key === key));
  }
  return one(parts.filter((x) => REFERENCE.map((w) => w.toLowerCase()).includes(x.key)));
}

describe("parseRange: generated ranges in parts", () => {
  it("keeps every part whole and takes the bounds of the part the model chooses, or none", () => {
    fc.assert(
      fc.property(labelled, patient, (parts, p) => {
        const text = parts
          .map((x) => `${x.label} ${x.body.text}${x.unit ? ` ${x.unit}` : ""}${x.comma ? "," : ""}`)
          .join(" ");
        const r = parseRange(text, p);
        expect(r, text).not.toBeNull();
        expect(r!.text).toBe(text);
        expect(r!.parts!.map((x) => [x.text, x.low, x.high])).toEqual(
          parts.map((x) => [`${x.label} ${x.body.text}`, x.body.low, x.body.high]),
        );
        const chosen = model(parts, p);
        expect(r!.applies, text).toBe(chosen ? `${chosen.label} ${chosen.body.text}` : null);
        expect([r!.low, r!.high], text).toEqual(chosen ? [chosen.body.low, chosen.body.high] : [null, null]);
        expect(r!.units).toHaveLength(parts.filter((x) => x.unit).length);
      }),
      { numRuns: 400 },
    );
  });

  it("a range of one part, in symbols or words, with or without its unit", () => {
    fc.assert(
      fc.property(body, unit, (b, u) => {
        const text = u ? `${b.text} ${u}` : b.text;
        const r = parseRange(text);
        expect(r, text).toMatchObject({ text, low: b.low, high: b.high });
        expect(r!.parts).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });

  it("a range with a stray number or word is not a range", () => {
    fc.assert(
      fc.property(labelled, fc.constantFrom("12", "see", "note", "H"), (parts, stray) => {
        const text = `${parts.map((x) => `${x.label} ${x.body.text}`).join(" ")} ${stray}`;
        expect(parseRange(text), text).toBeNull();
      }),
      { numRuns: 100 },
    );
  });

  it(`the longest kept is ${MAX_RANGE} characters: a real range in three parts fits`, () => {
    const three = "Desirable : < 200 mg/dl Borderline High : 200 - 239 mg/dl High : > 240 mg/dl";
    expect(three.length).toBeLessThanOrEqual(MAX_RANGE);
    expect(parseRange(three)?.applies).toBe("Desirable : < 200");
  });
});
