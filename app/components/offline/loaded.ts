/** What the offline screen's page carries (nothing of any person): consent texts, limits, language. */
export type OfflineLoaded = {
  title: string;
  locale: "en" | "hi" | "bn" | "ta";
  consent: Record<string, { text: string[]; question: string }>;
  textVersion: string;
  textDate: string;
  voiceMaxSeconds: number;
  maxUploadMb: number;
};
