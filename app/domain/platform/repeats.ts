/**
 * Access-trail noise (decision 0073): one minute of reading writes a view per page or per file
 * opened, so a trail listed "Viewed by Dr X at 6:12 pm" three times. Lists are shown with the
 * repeats of the same person doing the same thing within REPEAT_WINDOW_MS folded into one line
 * that says how many times ("Viewed by Dr X, 3 times, 6:12 pm"). Pure, safe in the browser.
 */

/** Repeats of one person's same action closer together than this (from the group's newest) are one line. */
export const REPEAT_WINDOW_MS = 15 * 60 * 1000;

export type Repeated<T> = T & {
  /** How many events this line stands for (1: a single one). */
  count: number;
  /** The oldest of them (ISO-8601); `at` is the newest. */
  firstAt: string;
};

/**
 * Folds a newest-first list: an entry joins the line before it when `same` says it is the same
 * person doing the same thing and it is within `windowMs` of that line's newest event. Only
 * neighbours fold, so the order of what happened stays as it was.
 */
export function foldRepeats<T extends { at: string }>(
  items: readonly T[],
  same: (a: T, b: T) => boolean,
  windowMs = REPEAT_WINDOW_MS,
): Repeated<T>[] {
  const out: Repeated<T>[] = [];
  for (const item of items) {
    const last = out[out.length - 1];
    if (last && same(last, item) && Date.parse(last.at) - Date.parse(item.at) <= windowMs) {
      last.count += 1;
      last.firstAt = item.at;
    } else out.push({ ...item, count: 1, firstAt: item.at });
  }
  return out;
}
