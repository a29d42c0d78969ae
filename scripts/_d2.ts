import { ocrPdf } from "~/domain/records/lab-ocr.server";
import { recogniseLabRows } from "~/domain/records/labs";
const l = await ocrPdf(process.argv[2], 60000);
for (const x of l) console.log(JSON.stringify(x.text));
console.log(JSON.stringify(recogniseLabRows(l.map((x) => x.text)).rejected));
