import { LAYOUTS } from "../tests/helpers/lab-corpus";
import { scoreOne } from "../tests/helpers/lab-score";
for (const kind of ["text", "scan", "photo"] as const) for (const l of LAYOUTS) {
  const { scores, ms } = await scoreOne(l, kind);
  console.log(kind, l, ms, "ms", scores.filter((s) => s.exact).length, "/", scores.length, "wrong:", scores.filter((s) => s.wrong).map((s) => s.analyte).join(","), "missing:", scores.filter((s) => !s.found).map((s) => s.analyte).join(","), "CW", scores.filter((s) => s.confidentWrong).length);
}
