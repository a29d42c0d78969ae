import { execFile } from "node:child_process";
import { existsSync } from "node:fs";

/**
 * Lines of a page with their boxes (decision 0082): the words of a TSV (poppler's `pdftotext -tsv`
 * or Tesseract's `tsv`, same columns) grouped into lines by their vertical middle, each line's
 * box kept as fractions of its page so the reading keeps where every value was found.
 */
export type PageLine = {
  page: number;
  text: string;
  box: [number, number, number, number];
  /** Words the OCR was unsure of (Tesseract's confidence under WEAK_CONF); a text layer has none. */
  weak?: string[];
};

/** Tesseract's word confidence (0–100) under which a word is doubted. */
export const WEAK_CONF = 70;

type Word = {
  page: number;
  line: string;
  left: number;
  top: number;
  width: number;
  height: number;
  text: string;
  conf: number;
};

/** Parses a TSV of words (level 5) and pages (level 1) into lines, top to bottom, left to right. */
export function linesFromTsv(tsv: string, pageOffset = 0, ownLines = false): PageLine[] {
  const pages = new Map<number, { w: number; h: number }>();
  const words: Word[] = [];
  for (const raw of tsv.split("\n").slice(1)) {
    const c = raw.split("\t");
    if (c.length < 12) continue;
    const [level, page, block, par, line, , left, top, width, height, conf] = c.slice(0, 11).map(Number);
    const text = c.slice(11).join("\t").trim();
    if (level === 1) pages.set(page, { w: width, h: height });
    if (level !== 5 || !text || text.startsWith("###")) continue;
    words.push({ page, line: `${block}.${par}.${line}`, left, top, width, height, text, conf });
  }
  const out: PageLine[] = [];
  for (const [page, size] of [...pages].sort((a, b) => a[0] - b[0])) {
    const onPage = words
      .filter((w) => w.page === page)
      .sort((a, b) => a.top + a.height / 2 - (b.top + b.height / 2));
    const groups: Word[][] = [];
    for (const w of onPage) {
      const mid = w.top + w.height / 2;
      const last = groups.at(-1);
      const ref = last?.[0];
      if (ownLines) {
        // Tesseract's own lines follow a skewed page; words of one line share block, paragraph and line.
        const same = groups.find((g) => g[0].line === w.line);
        if (same) same.push(w);
        else groups.push([w]);
        continue;
      }
      if (last && ref && Math.abs(mid - (ref.top + ref.height / 2)) <= Math.max(ref.height, w.height) * 0.5)
        last.push(w);
      else groups.push([w]);
    }
    for (const g of groups) {
      g.sort((a, b) => a.left - b.left);
      const x0 = Math.min(...g.map((w) => w.left));
      const y0 = Math.min(...g.map((w) => w.top));
      const x1 = Math.max(...g.map((w) => w.left + w.width));
      const y1 = Math.max(...g.map((w) => w.top + w.height));
      const r = (n: number) => Math.round(n * 10_000) / 10_000;
      out.push({
        page: page + pageOffset,
        text: joinWords(g),
        box: [r(x0 / size.w), r(y0 / size.h), r((x1 - x0) / size.w), r((y1 - y0) / size.h)],
        ...(ownLines ? { weak: g.filter((w) => w.conf >= 0 && w.conf < WEAK_CONF).map((w) => w.text) } : {}),
      });
    }
  }
  return out;
}

/** Words joined with one space, or with three where a wide gap parts two columns. */
function joinWords(g: Word[]): string {
  let s = g[0].text;
  for (let i = 1; i < g.length; i++) {
    const gap = g[i].left - (g[i - 1].left + g[i - 1].width);
    s += (gap > g[i].height * 1.5 ? "   " : " ") + g[i].text;
  }
  return s;
}

export type RunLimits = { timeoutMs: number; maxBufferBytes?: number; env?: Record<string, string> };

/** Address space a native tool may map (prlimit --as): a hostile file cannot take the node's memory. */
const TOOL_MEMORY_BYTES = 768 * 1024 * 1024;
const PRLIMIT = "/usr/bin/prlimit";
let prlimit: boolean | undefined;

/**
 * Runs a tool as a child process (the CPU work off the event loop) with one thread, a time limit
 * and, for native tools where util-linux's prlimit exists, a memory limit (Node's own children set
 * their heap instead: V8 reserves far more address space than it uses).
 */
/** Whether a tool is on the PATH (a missing one is told apart from one that failed). */
export function onPath(cmd: string): boolean {
  return (process.env.PATH ?? "").split(":").some((dir) => dir && existsSync(`${dir}/${cmd}`));
}

export function run(cmd: string, args: string[], limits: RunLimits): Promise<string> {
  prlimit ??= existsSync(PRLIMIT);
  const bounded = prlimit && cmd !== process.execPath;
  return new Promise((resolve, reject) => {
    execFile(
      bounded ? PRLIMIT : cmd,
      bounded ? [`--as=${TOOL_MEMORY_BYTES}`, "--", cmd, ...args] : args,
      {
        timeout: limits.timeoutMs,
        killSignal: "SIGKILL",
        maxBuffer: limits.maxBufferBytes ?? 32 * 1024 * 1024,
        env: { ...process.env, ...limits.env, OMP_THREAD_LIMIT: "1" },
      },
      (err, stdout) => (err ? reject(err) : resolve(stdout)),
    );
  });
}
