/** What the lab words screen shows (decision 0108): every word, or those reviewed, not yet, corrected. */
export const SHOWS = ["all", "not-reviewed", "reviewed", "corrected"] as const;
export type Show = (typeof SHOWS)[number];
