/**
 * `npm run bench:labs:real`: reads the real sample reports listed in `../shared/labs-real/manifest.json`
 * (or LABS_REAL_MANIFEST) from the folder LABS_REAL_DIR (default `labs-real/`, which git ignores:
 * their licence is unknown, so they are fetched, never committed) with the reader itself, and prints
 * per document and per kind: printed values, read exactly (value as printed and range as printed,
 * whitespace collapsed), confident-and-wrong, and judgements against a printed flag. Documents not
 * there are listed as missing; nothing fails. See docs/performance.md ("Lab reports read").
 *
 *   npm run bench:labs:real                 # every document there
 *   npm run bench:labs:real -- rl06 rl10    # those whose file name starts so
 *   npm run bench:labs:real -- --rows rl06  # and print each value's reading
 *   npm run bench:labs:real -- --as=text,scan,photo  # the text PDFs also scanned and photographed
 *
 * `--as` reads each text PDF also as a patient would bring it on paper: "scan", a grey 200-dpi scan
 * of every page (a little skew and noise, no text layer), and "photo", a phone photo of every page
 * (turned 2.5°, blurred, uneven light, JPEG 70) sent as the upload screen sends it (WebP,
 * PHOTO_MAX_SIDE px), each page read on its own and the rows pooled. Both are made by the corpus's
 * own degrading (tests/helpers/lab-corpus.ts), so a value counts as seen when it is printed.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { CONFIDENT } from "~/domain/records/labs";
import { readLocal, type Reading } from "~/domain/records/lab-reader.server";
import { photosOf, scanOf, sentOf } from "../tests/helpers/lab-corpus";

type Printed = {
  name: string;
  value: string;
  unit: string | null;
  range: string | null;
  flag: string | null;
};
type Entry = { file: string; kind: "text-pdf" | "photo" | "image"; isLab: boolean; values: Printed[] };

const args = process.argv.slice(2);
const showRows = args.includes("--rows");
const only = args.filter((a) => !a.startsWith("--"));
const asKinds = (args.find((a) => a.startsWith("--as="))?.slice(5) ?? "text").split(",");
const dir = path.resolve(process.env.LABS_REAL_DIR ?? "labs-real");
const manifestFile = path.resolve(process.env.LABS_REAL_MANIFEST ?? "../shared/labs-real/manifest.json");
if (!existsSync(manifestFile)) {
  console.log(`no manifest at ${manifestFile}: nothing to read`);
  process.exit(0);
}
const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as Entry[];
const squash = (s: string | null | undefined) => (s ?? "").replace(/\s+/g, "").toLowerCase();
const num = (s: string) => Number(s.replace(/,(?=\d{3}\b)/g, ""));
const key = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, "");

type Tally = {
  values: number;
  exact: number;
  found: number;
  cw: number;
  flagWrong: number;
  docs: number;
  notLab: number;
};
const byKind = new Map<string, Tally>();
const pct = (n: number, d: number) => `${((100 * n) / Math.max(1, d)).toFixed(1)} %`;

const scratch = mkdtempSync(path.join(tmpdir(), "labs-real-"));
process.on("exit", () => rmSync(scratch, { recursive: true, force: true }));
const patient = { sex: null, birthYear: null };
const mimeOf = (f: string) =>
  f.endsWith(".pdf")
    ? "application/pdf"
    : f.endsWith(".png")
      ? "image/png"
      : f.endsWith(".webp")
        ? "image/webp"
        : "image/jpeg";

/** The reading of a document as it is, or of its scan, or of its pages' photos (rows pooled). */
async function readAs(file: string, as: string): Promise<Pick<Reading, "lab" | "rows">> {
  if (as === "text" || as === "image") return readLocal(file, mimeOf(file), 120_000, undefined, patient);
  const pdf = readFileSync(file);
  if (as === "scan") {
    const out = path.join(scratch, "scan.pdf");
    writeFileSync(out, await scanOf(pdf, { dpi: 200, angle: 0.5, light: 0.1, noise: 24, blur: false }, 7));
    return readLocal(out, "application/pdf", 120_000, undefined, patient);
  }
  const photos = photosOf(pdf, { dpi: 220, angle: 2.5, light: 0.35, noise: 24, blur: true, quality: 70 }, 11);
  const pooled: Pick<Reading, "lab" | "rows"> = { lab: false, rows: [] };
  for (const [i, photo] of photos.entries()) {
    const out = path.join(scratch, `photo-${i}.webp`);
    writeFileSync(out, sentOf(photo));
    const r = await readLocal(out, "image/webp", 120_000, undefined, patient);
    pooled.lab ||= r.lab;
    pooled.rows.push(...r.rows);
  }
  return pooled;
}

/** One reading against what the document prints: found, exact, confident and not as printed, flags contradicted. */
function score(e: Entry, reading: Pick<Reading, "rows">) {
  const used = new Set<number>();
  const out = { found: 0, exact: 0, cw: 0, flagWrong: 0, lines: [] as string[] };
  for (const v of e.values) {
    // The row for this printed value: by its printed name, else by its value as printed.
    let at = reading.rows.findIndex((r, i) => !used.has(i) && key(r.printedName) === key(v.name));
    if (at < 0)
      at = reading.rows.findIndex(
        (r, i) =>
          !used.has(i) &&
          (key(v.name).includes(key(r.printedName)) || key(r.printedName).includes(key(v.name))) &&
          key(r.printedName).length >= 2,
      );
    if (at < 0) at = reading.rows.findIndex((r, i) => !used.has(i) && num(r.printedValue) === num(v.value));
    const r = at >= 0 ? reading.rows[at] : undefined;
    if (at >= 0) used.add(at);
    const ok = !!r && num(r.printedValue) === num(v.value) && squash(r.range?.text) === squash(v.range);
    if (r) out.found++;
    if (ok) out.exact++;
    if (r && !ok && r.confidence >= CONFIDENT) out.cw++;
    const printedFlag = /^(h|high)$/i.test(v.flag ?? "")
      ? "above"
      : /^(l|low)$/i.test(v.flag ?? "")
        ? "below"
        : null;
    const said = r?.measure.judgement;
    if (r && printedFlag && said && said !== "unknown" && said !== printedFlag) out.flagWrong++;
    if (showRows)
      out.lines.push(
        `  ${ok ? "ok " : r ? "≠  " : "—  "} ${v.name} = ${v.value} [${v.range ?? ""}]${r ? `  → ${r.printedName} = ${r.printedValue} [${r.range?.text ?? ""}] ${r.confidence}${r.doubts.length ? ` (${r.doubts.join("; ")})` : ""}` : ""}`,
      );
  }
  return out;
}

console.log(`${"document".padEnd(30)} kind       values found exact  !cw  ?flag  ms`);
for (const e of manifest) {
  if (only.length && !only.some((o) => e.file.startsWith(o))) continue;
  const file = path.join(dir, e.file);
  if (!existsSync(file)) {
    console.log(`${e.file.padEnd(30)} missing (fetch it: ../shared/labs-real/README.md)`);
    continue;
  }
  for (const kind of e.kind === "text-pdf" ? asKinds : ["image"]) {
    const t0 = Date.now();
    const reading = await readAs(file, kind);
    const ms = Date.now() - t0;
    const { found, exact, cw, flagWrong, lines } = score(e, reading);
    const t = byKind.get(kind) ?? { values: 0, exact: 0, found: 0, cw: 0, flagWrong: 0, docs: 0, notLab: 0 };
    t.docs++;
    if (e.isLab && !reading.lab) t.notLab++;
    t.values += e.values.length;
    t.found += found;
    t.exact += exact;
    t.cw += cw;
    t.flagWrong += flagWrong;
    byKind.set(kind, t);
    console.log(
      `${e.file.padEnd(30)} ${kind.padEnd(8)} ${String(e.values.length).padStart(7)} ${String(found).padStart(5)} ${String(exact).padStart(5)} ${String(cw).padStart(4)} ${String(flagWrong).padStart(6)}  ${ms}${e.isLab && !reading.lab ? "  NOT READ AS A LAB REPORT" : ""}`,
    );
    for (const l of lines) console.log(l);
  }
}
console.log("\nkind     docs values found exact  exact%  confident-wrong  flag-wrong  not-lab");
for (const [kind, t] of byKind)
  console.log(
    `${kind.padEnd(8)} ${String(t.docs).padStart(4)} ${String(t.values).padStart(6)} ${String(t.found).padStart(5)} ${String(t.exact).padStart(5)}  ${pct(t.exact, t.values).padStart(7)}  ${String(t.cw).padStart(15)}  ${String(t.flagWrong).padStart(10)}  ${String(t.notLab).padStart(7)}`,
  );
