/**
 * `npm run bench:photo-size` (decision 0109): which long side the upload screen should send a
 * phone photo at, from accuracy against bytes on a slow link.
 *
 * For a set of lab photos — every `--every`th of the fixed corpus layouts (default 4th: 9 of 36,
 * from the first) and the first `--layouts` (default 2) layouts drawn from each of `--seeds`
 * (default 3) seeds from 1 — it makes the photo as the upload screen sends it at each long side
 * in `--sizes` (default 1200,1600,1800,2000,2400,2800) with the corpus's own `sentOf` (WebP at
 * quality 80, never enlarged), reads each with the reader exactly as `npm run bench:labs` scores its "sent"
 * kind (lab-score.ts's `scoreDoc`, the patient's sex and age given, the first page's values), and
 * prints per size: values read exactly, confident-and-wrong, mean bytes, the upload's seconds at
 * 400 kbit/s and at 100 kbit/s (payload only: bytes × 8 / rate), and the mean time per read.
 * Where the browser would send the photo as taken (it is small, or the WebP saves too little;
 * photo.ts), the photo as taken is what is read and counted. `--taken` adds the photos as taken
 * (the JPEG, the "photo" kind) as a row of their own.
 *
 *   nice npm run bench:photo-size    # 90 reads, about 10 min on a shared 2-core machine
 *   npm run bench:photo-size -- --sizes=1600,2000 --every=12 --seeds=1   # a quick look
 *
 * A corpus photo is a 220-dpi picture of an A4 page, 2,573 px on its long side: a size above that
 * sends the photo at its own size.
 */
import { execFileSync } from "node:child_process";
import { PHOTO_MIN_SAVING, PHOTO_SMALL_BYTES } from "~/components/reports/photo";
import { LAYOUTS, sentOf } from "../tests/helpers/lab-corpus";
import { layoutsFor } from "../tests/helpers/lab-seeded";
import { fixedDoc, scoreDoc, seededDoc, type CorpusDoc, type Score } from "../tests/helpers/lab-score";

const args = process.argv.slice(2);
const arg = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const numArg = (name: string, fallback: number) => {
  const v = arg(name);
  return v === undefined ? fallback : Number(v);
};
const SIZES = (arg("sizes") ?? "1200,1600,1800,2000,2400,2800").split(",").map(Number);
const EVERY = numArg("every", 4);
const SEEDS = numArg("seeds", 3);
const PER_SEED = numArg("layouts", 2);
const TAKEN = args.includes("--taken");
const RATES_KBPS = [400, 100];

const docs: CorpusDoc[] = [
  ...LAYOUTS.filter((_, i) => i % EVERY === 0).map(fixedDoc),
  ...Array.from({ length: SEEDS }, (_, i) => layoutsFor(i + 1, PER_SEED).map(seededDoc)).flat(),
];

/** The long side of an image, from ffprobe. */
function longSide(img: Buffer): number {
  const out = execFileSync(
    "ffprobe",
    ["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", "-"],
    {
      input: img,
    },
  );
  return Math.max(...out.toString().trim().split(",").map(Number));
}

/** What the upload screen sends of `photo` (a JPEG) at `maxSide`, as photo.ts decides it. */
function sent(photo: Buffer, maxSide: number): { bytes: Buffer; type: string; asTaken: boolean } {
  if (photo.length <= PHOTO_SMALL_BYTES) return { bytes: photo, type: "image/jpeg", asTaken: true };
  const webp = sentOf(photo, maxSide);
  if (webp.length > photo.length * (1 - PHOTO_MIN_SAVING))
    return { bytes: photo, type: "image/jpeg", asTaken: true };
  return { bytes: webp, type: "image/webp", asTaken: false };
}

type Row = { label: string; scores: Score[]; bytes: number[]; ms: number[]; px: number[]; asTaken: number };
const rows: Row[] = [];
const perDoc = new Map<string, string[]>();
const t0 = Date.now();

const photos = await Promise.all(docs.map(async (d) => (await d.bytes("photo"))[0]));
console.log(
  `${docs.length} photos (${docs.map((d) => d.name).join(", ")}), mean ${Math.round(photos.reduce((a, p) => a + p.length, 0) / photos.length / 1024)} KB as taken, long side ${[...new Set(photos.map(longSide))].join("/")} px\n`,
);

const columns: {
  label: string;
  make: (photo: Buffer) => { bytes: Buffer; type: string; asTaken: boolean };
}[] = [
  ...(TAKEN
    ? [{ label: "as taken", make: (p: Buffer) => ({ bytes: p, type: "image/jpeg", asTaken: true }) }]
    : []),
  ...SIZES.map((size) => ({ label: String(size), make: (p: Buffer) => sent(p, size) })),
];

for (const { label, make } of columns) {
  const row: Row = { label, scores: [], bytes: [], ms: [], px: [], asTaken: 0 };
  for (const [i, doc] of docs.entries()) {
    const s = make(photos[i]!);
    // The reader reads what is sent: scored as bench-labs scores its "sent" kind (first page).
    const { scores, ms } = await scoreDoc({ ...doc, bytes: async () => [s.bytes, s.type] }, "sent");
    row.scores.push(...scores);
    row.bytes.push(s.bytes.length);
    row.ms.push(ms);
    row.px.push(longSide(s.bytes));
    if (s.asTaken) row.asTaken++;
    perDoc.set(doc.name, [
      ...(perDoc.get(doc.name) ?? []),
      `${scores.filter((x) => x.exact).length}/${scores.length}`,
    ]);
  }
  rows.push(row);
  console.error(`${label}: done (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
}

const mean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / Math.max(1, xs.length);
console.log("per photo: values read exactly");
console.log(`${"photo".padEnd(22)} ${columns.map((c) => c.label.padStart(9)).join(" ")}`);
for (const [name, cells] of perDoc)
  console.log(`${name.padEnd(22)} ${cells.map((c) => c.padStart(9)).join(" ")}`);

console.log(
  `\nlong side  px sent  values  exact  exact %  confident-wrong (value)  mean KB  s @ ${RATES_KBPS.map((r) => `${r} kbit/s`).join("  s @ ")}  ms/read (mean)  sent as taken`,
);
for (const r of rows) {
  const exact = r.scores.filter((s) => s.exact).length;
  const cw = r.scores.filter((s) => s.confidentWrong).length;
  const cwv = r.scores.filter((s) => s.confidentWrongValue).length;
  const bytes = mean(r.bytes);
  const px = [...new Set(r.px)].join("/");
  console.log(
    [
      r.label.padEnd(9),
      px.padStart(7),
      String(r.scores.length).padStart(6),
      String(exact).padStart(5),
      `${((100 * exact) / Math.max(1, r.scores.length)).toFixed(1)} %`.padStart(7),
      `${cw} (${cwv})`.padStart(23),
      (bytes / 1024).toFixed(0).padStart(7),
      ...RATES_KBPS.map((k) => ((bytes * 8) / (k * 1000)).toFixed(1).padStart(k >= 1000 ? 15 : 14)),
      mean(r.ms).toFixed(0).padStart(14),
      `${r.asTaken}/${r.bytes.length}`.padStart(13),
    ].join("  "),
  );
}
console.log(`\n${((Date.now() - t0) / 1000).toFixed(0)} s in all`);
