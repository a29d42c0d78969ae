import { createContext, useContext, type ReactNode } from "react";
import type { LabSentences } from "~/domain/consultation/lab-words";
import { useTranslation } from "~/i18n/useTranslation";

/**
 * The clinic's corrections of the lab sentences in the screen's language (decision 0108), given by
 * the route's loader to every lab component below it: a corrected sentence is said the clinic's
 * way, any other as the catalogue says it.
 */
const LabWordsContext = createContext<LabSentences>({});

/**
 * A correction's places filled as `fillPlaces` (lab-words.ts) fills them, written here so the
 * patient's reports page fetches no module of its own for it: that page is at its 120 KB budget
 * (decision 0094), and a file costs its response headers on a slow link.
 */
const fill = (text: string, values: Record<string, unknown> = {}) =>
  text.replace(/\{\{\s*([A-Za-z_]\w*)\s*\}\}/g, (_, name: string) => {
    const v = Object.hasOwn(values, name) ? values[name] : undefined;
    return v === undefined || v === null ? "" : String(v);
  });

export function LabWordsProvider({ words, children }: { words: LabSentences; children: ReactNode }) {
  return <LabWordsContext.Provider value={words}>{children}</LabWordsContext.Provider>;
}

/** `t` for the lab sentences: the clinic's correction filled, else the catalogue's sentence. */
export function useLabSay() {
  const { t } = useTranslation();
  const words = useContext(LabWordsContext);
  return (key: string, values?: Record<string, string | number>): string => {
    const own = words[key];
    return own === undefined ? (t(key, values) as string) : fill(own, values);
  };
}
