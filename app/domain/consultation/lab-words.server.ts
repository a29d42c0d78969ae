import { createHash } from "node:crypto";
import { and, eq, isNotNull } from "drizzle-orm";
import type { TFunction } from "i18next";
import type { z } from "zod";
import { config } from "~/config.server";
import { db, exec, rows, transaction, type DB, type TxSteps } from "~/db/client.server";
import { labWords, users } from "~/db/schema";
import labsBn from "~/i18n/locales/sections/labs.bn";
import labsEn from "~/i18n/locales/sections/labs.en";
import labsHi from "~/i18n/locales/sections/labs.hi";
import labsTa from "~/i18n/locales/sections/labs.ta";
import { wallClock } from "~/lib/clock";
import {
  LAB_NAME_MAX,
  labWordCorrectionSchema,
  labWordReviewSchema,
  labWordRevertSchema,
} from "~/schemas/lab-words";
import { auditInsert, type Actor } from "../platform/index.server";
import { DomainError, zodFieldErrors } from "../platform/errors";
import { CATALOGUE, localName, printsOtherName } from "../records/labs";
import {
  fillPlaces,
  isLabWordLocale,
  LAB_SENTENCES,
  nameWord,
  placesIn,
  placesOf,
  type LabSentences,
  type LabWordGroup,
  type LabWordLocale,
} from "./lab-words";

/**
 * The lab words a patient reads, reviewed where they are used (decision 0108). Every test's name
 * and every sentence of her lab values in Hindi, Bengali and Tamil, beside the English; an admin
 * records who reviewed which of them and on which day, and corrects any. A correction is what every
 * screen shows from then on (the catalogue's text stays the fallback); a review holds only for the
 * English and the text the reviewer read (a text changed since is "not yet reviewed" again), so no
 * screen says a word was reviewed unless a row says who reviewed it and when.
 */

const SECTIONS: Record<LabWordLocale | "en", Record<string, string>> = {
  en: labsEn,
  hi: labsHi,
  bn: labsBn,
  ta: labsTa,
};

/** A correction is written in the language's own script (a name may keep Latin letters beside it). */
const SCRIPT: Record<LabWordLocale, RegExp> = {
  hi: /\p{Script=Devanagari}/u,
  bn: /\p{Script=Bengali}/u,
  ta: /\p{Script=Tamil}/u,
};

const SCRIPT_REFUSAL: Record<LabWordLocale, string> = {
  hi: "labWords.script.hi",
  bn: "labWords.script.bn",
  ta: "labWords.script.ta",
};

type Word = { word: string; group: LabWordGroup; english: string; builtIn: string | null };

/** Every word of one language, in the screen's order: sentences by where she meets them, then names. */
function wordsOf(locale: LabWordLocale): Word[] {
  const sentences = (Object.keys(LAB_SENTENCES) as (keyof typeof LAB_SENTENCES)[]).flatMap((group) =>
    LAB_SENTENCES[group].map((word) => {
      const key = word.slice("labs.".length);
      const own = SECTIONS[locale][key];
      return {
        word,
        group,
        english: SECTIONS.en[key],
        builtIn: own && own !== SECTIONS.en[key] ? own : null,
      };
    }),
  );
  const names = CATALOGUE.map((a) => ({
    word: nameWord(a.loinc),
    group: "name" as const,
    english: a.name,
    builtIn: localName(a.loinc, locale),
  }));
  return [...sentences, ...names];
}

const known = new Map<string, Map<string, Word>>();
function wordOf(locale: LabWordLocale, word: string): Word {
  let words = known.get(locale);
  if (!words) known.set(locale, (words = new Map(wordsOf(locale).map((w) => [w.word, w]))));
  const found = words.get(word);
  if (!found) throw new DomainError("not_found", "labWords.notFound");
  return found;
}

/** What a review was of: the English and the text the patient read then. */
export const textHash = (english: string, text: string) =>
  createHash("sha256").update(`${english}\n${text}`).digest("hex");

/** The text's short mark a ticked word carries, so a review is recorded only of the text the admin saw. */
export const seenMark = (english: string, text: string) => textHash(english, text).slice(0, 12);

export type LabWordEntry = {
  word: string;
  group: LabWordGroup;
  english: string;
  /** The catalogue's text in the language; null when it has none (the patient reads the English). */
  builtIn: string | null;
  correction: { text: string; at: Date } | null;
  /** What the patient reads now: the correction, else the catalogue's text, else the English. */
  shown: string;
  /** The value a ticked word sends: the word and the mark of the text shown. */
  tick: string;
  places: string[];
  /** Who reviewed the text shown, and when; null: nobody has (as far as any row says). */
  review: { by: string; on: string; recordedBy: string | null; recordedAt: Date | null } | null;
  /** A review of an earlier text (the English or the text changed since): not a review of this one. */
  earlierReview: { by: string; on: string } | null;
};

function requireAdmin(actor: Actor) {
  if (actor.accountType !== "Admin") throw new DomainError("forbidden", "labWords.adminsOnly");
}

function language(locale: unknown): LabWordLocale {
  if (!isLabWordLocale(locale)) throw new DomainError("invalid", "labWords.languageUnknown");
  return locale;
}

/** Admin: every lab word of one language beside the English, with its correction and review. */
export async function labWordList(actor: Actor, locale: unknown): Promise<LabWordEntry[]> {
  requireAdmin(actor);
  const lang = language(locale);
  const found = await db()
    .select({
      word: labWords.word,
      correction: labWords.correction,
      correctedAt: labWords.correctedAt,
      reviewedBy: labWords.reviewedBy,
      reviewedOn: labWords.reviewedOn,
      reviewedHash: labWords.reviewedHash,
      recordedAt: labWords.recordedAt,
      recorderFirst: users.firstName,
      recorderLast: users.lastName,
    })
    .from(labWords)
    .leftJoin(users, eq(users.id, labWords.recordedBy))
    .where(eq(labWords.locale, lang));
  const byWord = new Map(found.map((r) => [r.word, r]));
  return wordsOf(lang).map((w) => {
    const r = byWord.get(w.word);
    const correction =
      r?.correction != null ? { text: r.correction, at: r.correctedAt ?? new Date(0) } : null;
    const shown = correction?.text ?? w.builtIn ?? w.english;
    const recorded = r?.reviewedBy && r.reviewedOn && r.reviewedHash ? r : null;
    const holds = recorded !== null && recorded.reviewedHash === textHash(w.english, shown);
    const recorder = recorded ? `${recorded.recorderFirst ?? ""} ${recorded.recorderLast ?? ""}`.trim() : "";
    return {
      ...w,
      correction,
      shown,
      tick: `${w.word}@${seenMark(w.english, shown)}`,
      places: placesIn(w.english),
      review: holds
        ? {
            by: recorded.reviewedBy!,
            on: recorded.reviewedOn!,
            recordedBy: recorder || null,
            recordedAt: recorded.recordedAt,
          }
        : null,
      earlierReview: recorded && !holds ? { by: recorded.reviewedBy!, on: recorded.reviewedOn! } : null,
    };
  });
}

/** The clinic's today, YYYY-MM-DD: a review cannot be dated after it. */
export function clinicToday(now = Date.now()): string {
  const w = wallClock(now, config().clinic.timeZone);
  return `${w.year}-${String(w.month).padStart(2, "0")}-${String(w.day).padStart(2, "0")}`;
}

function invalid(field: string, key: string): never {
  throw new DomainError("invalid", "labWords.checkFields", { fieldErrors: { [field]: [key] } });
}

/** The input as its schema reads it, or the fields' reasons; a review is never dated after today. */
function parse<S extends z.ZodTypeAny>(schema: S, input: unknown): z.infer<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success)
    throw new DomainError("invalid", "labWords.checkFields", { fieldErrors: zodFieldErrors(parsed.error) });
  const day = (parsed.data as { reviewedOn?: string }).reviewedOn;
  if (day !== undefined && day > clinicToday()) invalid("reviewedOn", "labWords.dateFuture");
  return parsed.data;
}

/** The corrections of one language, by word. */
async function correctionsOf(locale: LabWordLocale): Promise<Map<string, string>> {
  const found = await db()
    .select({ word: labWords.word, correction: labWords.correction })
    .from(labWords)
    .where(and(eq(labWords.locale, locale), isNotNull(labWords.correction)));
  return new Map(found.map((r) => [r.word, r.correction!]));
}

/** One word's row written (made or updated) and audited, in the caller's transaction. */
function* saveWord(
  tx: DB,
  actor: Actor,
  action: "lab_word.review" | "lab_word.correct",
  locale: LabWordLocale,
  word: string,
  set: Partial<typeof labWords.$inferInsert>,
  detail: Record<string, string>,
): TxSteps<void> {
  yield* exec(
    tx
      .insert(labWords)
      .values({ locale, word, ...set })
      .onConflictDoUpdate({ target: [labWords.locale, labWords.word], set }),
  );
  yield* exec(auditInsert(tx, actor, action, "lab_word", `${locale}:${word}`, detail));
}

/**
 * Admin: a clinician reviewed these words as shown on the admin's screen — their name and
 * qualification, and the day. Each ticked word carries the mark of the text the admin saw; a word
 * whose text changed since is refused (nothing is recorded), so a review is always of what she reads.
 */
export async function reviewLabWords(actor: Actor, input: unknown): Promise<number> {
  requireAdmin(actor);
  const data = parse(labWordReviewSchema, input);
  const corrected = await correctionsOf(data.locale);
  const ticked = [...new Set(data.words)].map((tick) => {
    const at = tick.lastIndexOf("@");
    const w = wordOf(data.locale, at > 0 ? tick.slice(0, at) : tick);
    const shown = corrected.get(w.word) ?? w.builtIn ?? w.english;
    if (tick.slice(at + 1) !== seenMark(w.english, shown)) invalid("words", "labWords.changedMeanwhile");
    return { w, hash: textHash(w.english, shown) };
  });
  const now = new Date();
  await transaction(function* (tx) {
    for (const { w, hash } of ticked) {
      const review = {
        reviewedBy: data.reviewedBy,
        reviewedOn: data.reviewedOn,
        reviewedHash: hash,
        recordedBy: actor.id,
        recordedAt: now,
        updatedAt: now,
      };
      yield* saveWord(tx, actor, "lab_word.review", data.locale, w.word, review, {
        reviewedBy: data.reviewedBy,
        reviewedOn: data.reviewedOn,
      });
    }
  });
  return ticked.length;
}

/**
 * Admin: the clinic's correction of one word, with who gave it and when (a correction is a review
 * of the corrected text). It keeps the English sentence's places, each once, and is written in the
 * language's script; a test's name fills no places and stays short.
 */
export async function correctLabWord(actor: Actor, input: unknown): Promise<void> {
  requireAdmin(actor);
  const data = parse(labWordCorrectionSchema, input);
  const w = wordOf(data.locale, data.word);
  const text = data.text.replace(/\s+/g, " ");
  if (w.group === "name" && text.length > LAB_NAME_MAX) invalid("text", "labWords.nameTooLong");
  // Each of the English sentence's places, each once, and no other brace.
  const filled = text.match(/\{\{\s*[A-Za-z_]\w*\s*\}\}/g) ?? [];
  const bare = text.replace(/\{\{\s*[A-Za-z_]\w*\s*\}\}/g, "");
  const wanted = placesOf(w.english);
  if (placesOf(text).join() !== wanted.join() || filled.length !== wanted.length || /[{}]/.test(bare))
    invalid("text", "labWords.placesChanged");
  if (!SCRIPT[data.locale].test(bare)) invalid("text", SCRIPT_REFUSAL[data.locale]);
  const current = (await correctionsOf(data.locale)).get(w.word) ?? w.builtIn;
  if (text === current) invalid("text", "labWords.sameText");
  const now = new Date();
  const row = {
    correction: text,
    correctedBy: actor.id,
    correctedAt: now,
    reviewedBy: data.reviewedBy,
    reviewedOn: data.reviewedOn,
    reviewedHash: textHash(w.english, text),
    recordedBy: actor.id,
    recordedAt: now,
    updatedAt: now,
  };
  await transaction((tx) =>
    saveWord(tx, actor, "lab_word.correct", data.locale, w.word, row, {
      text,
      reviewedBy: data.reviewedBy,
      reviewedOn: data.reviewedOn,
    }),
  );
}

/**
 * Admin: a correction taken back — the catalogue's text is shown again. The review recorded with
 * the correction was of the corrected text, so the catalogue's text reads "not yet reviewed" unless
 * a review of it holds.
 */
export async function revertLabWord(actor: Actor, input: unknown): Promise<void> {
  requireAdmin(actor);
  const { locale, word } = parse(labWordRevertSchema, input);
  wordOf(locale, word);
  const now = new Date();
  await transaction(function* (tx) {
    const done = yield* rows(
      tx
        .update(labWords)
        .set({ correction: null, correctedBy: null, correctedAt: null, updatedAt: now })
        .where(and(eq(labWords.locale, locale), eq(labWords.word, word), isNotNull(labWords.correction)))
        .returning({ word: labWords.word }),
    );
    if (!done.length) throw new DomainError("not_found", "labWords.notCorrected");
    yield* exec(auditInsert(tx, actor, "lab_word.revert", "lab_word", `${locale}:${word}`, null));
  });
}

/** The clinic's corrections in one language: sentences by key, test names by LOINC. */
export type LabWords = { sentences: LabSentences; names: Record<string, string> };

const NONE: LabWords = { sentences: {}, names: {} };

/** The corrections every screen showing lab words in `locale` uses (none in English). */
export async function labWordsFor(locale: string): Promise<LabWords> {
  const lang = locale.slice(0, 2);
  if (!isLabWordLocale(lang)) return NONE;
  const words: LabWords = { sentences: {}, names: {} };
  for (const [word, text] of await correctionsOf(lang)) {
    if (word.startsWith("name.")) words.names[word.slice("name.".length)] = text;
    else words.sentences[word] = text;
  }
  return words;
}

/** A test's name for a reader of `locale`: the clinic's correction, the catalogue's, else the English. */
export function testName(words: LabWords, loinc: string, english: string, locale: string): string {
  return words.names[loinc] ?? localName(loinc, locale) ?? english;
}

/**
 * The test as she reads it (decision 0090) with the clinic's words: her name for it, followed by the
 * name her report prints when that says something else.
 */
export function testNameAsPrinted(
  words: LabWords,
  loinc: string,
  english: string,
  printed: string,
  locale: string,
): string {
  const own = testName(words, loinc, english, locale);
  return printsOtherName(printed, own) ? `${own} (${printed.trim()})` : own;
}

/** A lab sentence in the reader's language: the clinic's correction filled, else the catalogue's. */
export function labSentence(
  t: TFunction,
  words: LabWords,
  key: string,
  values: Record<string, string | number>,
): string {
  const own = words.sentences[key];
  return own === undefined ? (t(key, values) as string) : fillPlaces(own, values);
}
