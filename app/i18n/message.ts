import type { TFunction } from "i18next";

/**
 * One path for messages (decision 0073): a catalogue key ("family.takeOverProofWrong") comes from
 * the browser's own checks (the shared zod schemas) and is translated here; a refusal the server
 * sent is already a sentence in the reader's language (refusal-text.server.ts) and is shown as it
 * is — never looked up as a key, so the browser never asks /i18n.json for a sentence.
 */
const KEY = /^[a-z][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)+$/;

/** Whether `text` is shaped as a catalogue key (a sentence never is: it has spaces or ends in a stop). */
export const isMessageKey = (text: string) => KEY.test(text);

/** A field's or form's message as the reader sees it: a key translated, a server's sentence as is. */
export function messageText(t: TFunction, text: string, values?: Record<string, unknown>): string {
  return isMessageKey(text) ? (t(text, values) as string) : text;
}
