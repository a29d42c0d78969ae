import { readLocal } from "~/domain/records/index.server";
const r = await readLocal(process.argv[2], process.argv[3]);
for (const x of r.rows) console.log(x.analyte, "|", x.printedValue, "|", x.range?.text, "|", x.confidence, x.doubts.join(";"));
