import { getT } from "~/i18n/i18n.server";
import { isLocale } from "~/i18n/config";
import { log } from "~/lib/log.server";
import { openDecrypted, phoneWav, silence, speak, wavSamples } from "../records/index.server";
import { FINAL_PROMPTS, promptSentences, type Prompt } from "./ivr";
import type { CallPlan } from "./plan.server";

/**
 * The sound of each prompt of a call (decision 0080), as an 8 kHz WAV: sentences of the person's
 * language spoken by espeak-ng, the telephone copy of the expert's voice note, and the silence a
 * prompt ends with while it waits for keys (a prompt's end ends the call on the SIP line; a
 * provider's Gather waits its own time). Nothing medical is in "intro", "again", "menu" or any
 * goodbye: only "content" carries the opinion, and only after the right digits (ivr.ts); the
 * sentences of each prompt, and that no name comes before the digits, are ivr.ts's
 * `promptSentences` (decision 0102).
 */

/** How long a prompt that asks for keys waits before the call ends. */
export const WAIT_FOR_KEYS_MS = 12_000;
const PAUSE_MS = 400;

export async function promptAudio(
  plan: CallPlan,
  prompt: Prompt,
  opts: { waitForKeys: boolean },
): Promise<Buffer> {
  const locale = isLocale(plan.locale) ? plan.locale : "en";
  const t = await getT(locale);
  const parts: Buffer[] = [];
  const say = async (text: string) => {
    parts.push(await speak(text, locale), silence(PAUSE_MS));
  };
  const wait = () => {
    if (opts.waitForKeys) parts.push(silence(WAIT_FOR_KEYS_MS));
  };
  const { before, after } = promptSentences(prompt, plan, (key, vars) => t(key, vars));
  for (const text of before) await say(text);
  if (prompt === "content")
    for (const opinion of plan.opinions) {
      await opinionAudio(opinion, locale, t, say, parts);
      // Then its next steps, in her language from phrases (decision 0114).
      for (const text of opinion.steps) await say(text);
    }
  for (const text of after) await say(text);
  if (!FINAL_PROMPTS.includes(prompt)) wait();
  return phoneWav(Buffer.concat(parts));
}

/**
 * One opinion: the doctor's own voice when there is a telephone copy; else the phrase-book
 * entries in her language; else (English only) the written opinion; else where to find it.
 */
async function opinionAudio(
  opinion: CallPlan["opinions"][number],
  locale: string,
  t: (key: string) => string,
  say: (text: string) => Promise<void>,
  parts: Buffer[],
) {
  if (opinion.phoneNoteKey) {
    const samples = await readPhoneCopy(opinion.phoneNoteKey);
    if (samples) {
      await say(t("phonecall.doctorSaid"));
      parts.push(samples, silence(PAUSE_MS));
      return;
    }
  }
  const phrases = opinion.phrases;
  const written = locale === "en" ? opinion.written : [];
  if (phrases.length || written.length) {
    await say(t("phonecall.doctorWrote"));
    for (const text of [...phrases, ...written]) await say(text);
    return;
  }
  await say(t("phonecall.readInApp"));
}

async function readPhoneCopy(key: string): Promise<Buffer | null> {
  try {
    const stream = await openDecrypted(key);
    const chunks: Buffer[] = [];
    for await (const c of stream) chunks.push(c as Buffer);
    return wavSamples(Buffer.concat(chunks));
  } catch (err) {
    log("warn", "a voice note's telephone copy could not be read", {
      error: String((err as Error)?.message ?? err),
    });
    return null;
  }
}
