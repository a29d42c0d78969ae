import { createContext, useContext, type ReactNode } from "react";
import { fillPlaces, type LabSentences } from "~/domain/consultation/lab-words";
import { useTranslation } from "~/i18n/useTranslation";

/**
 * The clinic's corrections of the lab sentences in the screen's language (decision 0108), given by
 * the route's loader to every lab component below it: a corrected sentence is said the clinic's
 * way, any other as the catalogue says it.
 */
const LabWordsContext = createContext<LabSentences>({});

export function LabWordsProvider({ words, children }: { words: LabSentences; children: ReactNode }) {
  return <LabWordsContext.Provider value={words}>{children}</LabWordsContext.Provider>;
}

/** `t` for the lab sentences: the clinic's correction filled, else the catalogue's sentence. */
export function useLabSay() {
  const { t } = useTranslation();
  const words = useContext(LabWordsContext);
  return (key: string, values?: Record<string, string | number>): string => {
    const own = words[key];
    return own === undefined ? (t(key, values) as string) : fillPlaces(own, values);
  };
}
