/**
 * Molar ↔ mass factors from a substance's molar mass (decision 0088): the catalogue states each
 * analyte's molar mass once and derives its molar units' factors here, never typing them. Only the
 * UCUM terms the catalogue uses: a numerator and a denominator, each mol, g or L with a prefix.
 * `tests/unit/labs-ucum.test.ts` checks every factor against NLM's UCUM library.
 */

const PREFIX: Record<string, number> = { "": 1, d: 1e-1, c: 1e-2, m: 1e-3, u: 1e-6, n: 1e-9, p: 1e-12 };

type Term = { kind: "mol" | "g" | "L"; scale: number };

function term(text: string | undefined): Term {
  const m = /^([dcmunp]?)(mol|g|L)$/.exec(text ?? "");
  if (!m) throw new Error(`not a molar, mass or volume term: ${text}`);
  return { kind: m[2] as Term["kind"], scale: PREFIX[m[1]!]! };
}

/** One `from`-kind base unit (mol or g) in the `to` kind's base unit. */
function base(from: Term, to: Term, molarMass: number): number {
  if (from.kind === to.kind) return 1;
  if (from.kind === "L" || to.kind === "L") throw new Error("a volume converts to a volume only");
  return from.kind === "mol" ? molarMass : 1 / molarMass;
}

/**
 * The factor that turns a value in `from` into `to` ("mmol/L" → "mg/dL" with 180.16 g/mol: 18.016),
 * where the numerators, or the denominators ("mg/mmol" → "mg/g" of creatinine), are one molar and
 * one mass unit of a substance of `molarMass` g/mol.
 */
export function molarFactor(from: string, to: string, molarMass: number): number {
  const [fn, fd, ...fr] = from.split("/");
  const [tn, td, ...tr] = to.split("/");
  if (fr.length || tr.length) throw new Error(`one "/" only: ${from} → ${to}`);
  const [a, b, c, d] = [term(fn), term(tn), term(fd), term(td)];
  // Numerator: one a in b; denominator: "per c" as "per d" (one d holds d/c of c). Twelve
  // significant digits: no float noise in the catalogue (18.016, not 18.016000000000002).
  const factor =
    ((a.scale * base(a, b, molarMass)) / b.scale) * ((d.scale * base(d, c, molarMass)) / c.scale);
  return Number(factor.toPrecision(12));
}

/**
 * Molar masses (g/mol) of what the catalogue's molar units count, from each formula and IUPAC's
 * standard atomic weights (C 12.011, H 1.008, N 14.007, O 15.999, I 126.904, Co 58.933, P 30.974).
 */
export const MOLAR_MASS = {
  glucose: 180.16, // C6H12O6
  cholesterol: 386.66, // C27H46O
  /** Triglycerides as triolein, the labs' convention (885.45 by the formula C57H104O6). */
  triglycerides: 885.7,
  bilirubin: 584.67, // C33H36N4O6
  urea: 60.06, // CH4N2O
  /** Urea nitrogen: the two nitrogen atoms of a mole of urea. */
  ureaNitrogen: 28.014,
  creatinine: 113.12, // C4H7N3O
  uricAcid: 168.11, // C5H4N4O3
  calcium: 40.078,
  phosphorus: 30.974,
  magnesium: 24.305,
  t3: 650.98, // C15H12I3NO4
  t4: 776.87, // C15H11I4NO4
  vitaminD: 400.64, // 25-hydroxyvitamin D3, C27H44O2
  cobalamin: 1355.39, // cyanocobalamin, C63H88CoN14O14P
  folate: 441.4, // folic acid, C19H19N7O6
  iron: 55.845,
  testosterone: 288.42, // C19H28O2
  cortisol: 362.46, // C21H30O5
  lactate: 89.07, // C3H5O3⁻
  ammonia: 17.031, // NH3
} as const;
