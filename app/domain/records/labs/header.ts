/**
 * The sample's date from a lab report's header (decision 0089): the date the sample was
 * collected, else the day it was received or registered, else the report's date — never a date
 * of birth or the day the page was printed. Dates as Indian labs print them: day first
 * ("12/03/2025", "12-Mar-2025", "12.03.25"), or ISO ("2025-03-12"), or "Mar 12, 2025".
 */

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

const DATE =
  /\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})\b|\b(\d{1,2})[-/.](\d{1,2})[-/.](\d{2}|\d{4})\b|\b(\d{1,2})[-\s./]?([a-z]{3,9})[-\s./,]*(\d{4}|\d{2})\b|\b([a-z]{3,9})\.?\s+(\d{1,2}),?\s+(\d{4})\b/gi;

/** Which date a label names, most wanted first; null: not the sample's (a birth date, a print date). */
const LABELS: [RegExp, number][] = [
  [/\b(dob|d\.o\.b|birth|born|printed|print(ing)?|expir\w*|valid)\b/i, -1],
  [
    /\b(coll(ection|ected|\.)?|drawn|sample\s*(date|taken|collected|collection)|specimen\s*(date|collected|collection)|date\s*of\s*(sample|collection|specimen))\b/i,
    3,
  ],
  [/\b(received|recd|registered|registration|reg|booked|booking|accession(ed)?|sample\s*received)\b/i, 2],
  [/\b(report(ed)?|rep|result(ed)?|authori[sz]ed|approved|validated|released|verified)\b/i, 1],
  [/\bdate\b/i, 0],
];

function iso(y: number, m: number, d: number): string | null {
  if (y < 100) y += 2000;
  if (y < 1990 || y > 2100 || m < 1 || m > 12 || d < 1 || d > 31) return null;
  const t = new Date(Date.UTC(y, m - 1, d));
  if (t.getUTCMonth() !== m - 1) return null;
  return `${y}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`;
}

function month(name: string): number {
  return MONTHS.indexOf(name.slice(0, 3).toLowerCase()) + 1;
}

function dateOf(m: RegExpMatchArray): string | null {
  if (m[1]) return iso(+m[1], +m[2]!, +m[3]!);
  if (m[4]) {
    const [a, b, y] = [+m[4], +m[5]!, +m[6]!];
    // Day first, as Indian labs print; month first only when the day cannot be first.
    return a > 12 || b <= 12 ? iso(y, b, a) : iso(y, a, b);
  }
  if (m[7]) return month(m[8]!) ? iso(+m[9]!, month(m[8]!), +m[7]) : null;
  return month(m[10]!) ? iso(+m[12]!, month(m[10]!), +m[11]!) : null;
}

/** The sample's date printed in a report's lines (ISO), or null when none is printed. */
export function sampleDate(lines: readonly string[]): string | null {
  let best: { date: string; rank: number } | null = null;
  for (const line of lines) {
    let from = 0;
    for (const m of line.matchAll(DATE)) {
      const before = line.slice(from, m.index);
      from = m.index + m[0].length;
      const date = dateOf(m);
      if (!date) continue;
      // The label just before the date ("Coll. Date :", "Reported On :"); a birth or print date is skipped.
      const tail = before.slice(-32);
      const ranks = LABELS.filter(([re]) => re.test(tail)).map(([, r]) => r);
      if (ranks.length === 0 || ranks.includes(-1)) continue;
      const rank = Math.max(...ranks);
      if (!best || rank > best.rank) best = { date, rank };
    }
  }
  return best?.date ?? null;
}
