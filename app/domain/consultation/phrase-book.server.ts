import { createHash } from "node:crypto";
import { and, desc, eq, inArray, isNull } from "drizzle-orm";
import { db, first } from "~/db/client.server";
import { builtInPhrases, patients, phrases, type PhraseKind } from "~/db/schema";
import { newPhraseSchema, phraseReviewSchema } from "~/schemas/phrases";
import { newId } from "~/lib/ids.server";
import { audit, type Actor } from "../platform/index.server";
import { DomainError, zodFieldErrors } from "../platform/errors";
import { BUILT_IN_PHRASES, type BuiltInPhrase } from "./phrase-book-builtin";

/**
 * The phrase book (decision 0081): sentences with reviewed translations that an expert chooses
 * beside the free text of an opinion, so the patient reads and hears them in her language. The
 * built-in ones ship in code; admins add more (the text in each language, and who reviewed them)
 * and retire them. A retired phrase is no longer offered, but opinions that chose it still show it.
 * A built-in sentence is reviewed only once an admin records who checked it (decision 0094), and
 * that record holds only while the sentence's texts are the ones the reviewer saw.
 */

export const PHRASE_LOCALES = ["en", "hi", "bn", "ta"] as const;
export type PhraseLocale = (typeof PHRASE_LOCALES)[number];
/** Phrases one opinion may carry. */
export const PHRASES_PER_OPINION = 12;

export type Phrase = {
  _id: string;
  kind: PhraseKind;
  texts: Record<PhraseLocale, string>;
  /** Who reviewed the translations; null: nobody yet (a built-in sentence not checked by a clinician). */
  reviewedBy: string | null;
  builtIn: boolean;
  retired: boolean;
};

export const phraseLocale = (locale: string): PhraseLocale =>
  (PHRASE_LOCALES as readonly string[]).includes(locale) ? (locale as PhraseLocale) : "en";

/** The four texts of a built-in sentence as a reviewer saw them. */
const textsHash = (p: BuiltInPhrase) =>
  createHash("sha256").update([p.en, p.hi, p.bn, p.ta].join("\n")).digest("hex").slice(0, 32);

/** The built-in sentences with what admins recorded about them (their review, their retirement). */
async function builtIn(): Promise<Phrase[]> {
  const recorded = new Map((await db().select().from(builtInPhrases)).map((r) => [r.id, r]));
  return BUILT_IN_PHRASES.map((p) => {
    const r = recorded.get(p.id);
    return {
      _id: p.id,
      kind: p.kind,
      texts: { en: p.en, hi: p.hi, bn: p.bn, ta: p.ta },
      reviewedBy: r?.reviewedBy && r.textsHash === textsHash(p) ? r.reviewedBy : null,
      builtIn: true,
      retired: !!r?.retiredAt,
    };
  });
}

function fromRow(r: typeof phrases.$inferSelect): Phrase {
  return {
    _id: r.id,
    kind: r.kind,
    texts: { en: r.en, hi: r.hi, bn: r.bn, ta: r.ta },
    reviewedBy: r.reviewedBy,
    builtIn: false,
    retired: !!r.retiredAt,
  };
}

/** The phrases offered in the opinion form (retired ones left out unless `all`), built-in first. */
export async function phraseBook(opts: { all?: boolean } = {}): Promise<Phrase[]> {
  const added = await db()
    .select()
    .from(phrases)
    .where(opts.all ? undefined : isNull(phrases.retiredAt))
    .orderBy(desc(phrases.createdAt), desc(phrases.id))
    .limit(500);
  const own = await builtIn();
  return [...(opts.all ? own : own.filter((p) => !p.retired)), ...added.map(fromRow)];
}

async function byIds(ids: string[]): Promise<Map<string, Phrase>> {
  const out = new Map<string, Phrase>();
  for (const p of await builtIn()) if (ids.includes(p._id)) out.set(p._id, p);
  const rest = ids.filter((id) => !out.has(id));
  if (rest.length)
    for (const r of await db().select().from(phrases).where(inArray(phrases.id, rest)))
      out.set(r.id, fromRow(r));
  return out;
}

/** The phrase book for the API: anyone signed in (the sentences are no one's data). */
export async function listPhrases(actor: Actor | null): Promise<Phrase[]> {
  if (!actor) throw new DomainError("not_authenticated", "api.notAuthenticated");
  return phraseBook();
}

/** The chosen phrases' texts in `locale` (English when the language is not one of the book's), in order. */
export async function phrasesFor(ids: readonly string[], locale: string): Promise<string[]> {
  if (!ids.length) return [];
  const lang = phraseLocale(locale);
  const found = await byIds([...ids]);
  return ids.flatMap((id) => {
    const p = found.get(id);
    return p ? [p.texts[lang]] : [];
  });
}

/** The ids an expert chose, checked: known, offered (not retired), no repeats, at most PHRASES_PER_OPINION. */
export async function checkPhraseIds(ids: readonly string[]): Promise<string[]> {
  const refuse = (key: string) => {
    throw new DomainError("invalid", "reports.reviewFailed", { fieldErrors: { phrases: [key] } });
  };
  if (ids.length > PHRASES_PER_OPINION) refuse("phrases.tooMany");
  if (new Set(ids).size !== ids.length) refuse("phrases.unknown");
  const found = await byIds([...ids]);
  if (ids.some((id) => !found.get(id) || found.get(id)!.retired)) refuse("phrases.unknown");
  return [...ids];
}

function requireAdmin(actor: Actor) {
  if (actor.accountType !== "Admin") throw new DomainError("forbidden", "phrases.adminsOnly");
}

/** An admin adds a phrase: its text in every language and who reviewed the translations. */
export async function addPhrase(actor: Actor, input: unknown): Promise<Phrase> {
  requireAdmin(actor);
  const parsed = newPhraseSchema.safeParse(input);
  if (!parsed.success)
    throw new DomainError("invalid", "phrases.checkFields", { fieldErrors: zodFieldErrors(parsed.error) });
  const row = { id: newId(), ...parsed.data, createdBy: actor.id, retiredAt: null, createdAt: new Date() };
  await db().insert(phrases).values(row);
  await audit(actor, "phrase.add", "phrase", row.id, { kind: row.kind });
  return fromRow(row);
}

/**
 * An admin retires a phrase: one an admin added, or a built-in one (decision 0094; recorded beside
 * it, the sentence stays in code for the opinions that chose it).
 */
export async function retirePhrase(actor: Actor, id: string): Promise<void> {
  requireAdmin(actor);
  const key = String(id ?? "");
  const now = new Date();
  const done = BUILT_IN_PHRASES.some((p) => p.id === key)
    ? await db()
        .insert(builtInPhrases)
        .values({ id: key, retiredAt: now, updatedAt: now })
        .onConflictDoUpdate({
          target: builtInPhrases.id,
          set: { retiredAt: now, updatedAt: now },
          setWhere: isNull(builtInPhrases.retiredAt),
        })
        .returning({ id: builtInPhrases.id })
    : await db()
        .update(phrases)
        .set({ retiredAt: now })
        .where(and(eq(phrases.id, key), isNull(phrases.retiredAt)))
        .returning({ id: phrases.id });
  if (!done.length) throw new DomainError("not_found", "phrases.notFound");
  await audit(actor, "phrase.retire", "phrase", key, null);
}

/**
 * An admin records who reviewed a built-in sentence's translations (decision 0094): a name and
 * qualification, with the texts they saw. Added sentences carry their reviewer from the start.
 */
export async function reviewBuiltInPhrase(actor: Actor, id: string, input: unknown): Promise<Phrase> {
  requireAdmin(actor);
  const phrase = BUILT_IN_PHRASES.find((p) => p.id === String(id ?? ""));
  if (!phrase) throw new DomainError("not_found", "phrases.notFound");
  const parsed = phraseReviewSchema.safeParse(input);
  if (!parsed.success)
    throw new DomainError("invalid", "phrases.checkFields", { fieldErrors: zodFieldErrors(parsed.error) });
  const now = new Date();
  const review = {
    reviewedBy: parsed.data.reviewedBy,
    textsHash: textsHash(phrase),
    reviewedAt: now,
    recordedBy: actor.id,
    updatedAt: now,
  };
  await db()
    .insert(builtInPhrases)
    .values({ id: phrase.id, ...review })
    .onConflictDoUpdate({ target: builtInPhrases.id, set: review });
  await audit(actor, "phrase.review", "phrase", phrase.id, { reviewedBy: review.reviewedBy });
  // What this admin recorded (another admin's review at the same moment may stand after it).
  return { ...(await builtIn()).find((p) => p._id === phrase.id)!, reviewedBy: review.reviewedBy };
}

export type PhraseChoice = {
  id: string;
  kind: PhraseKind;
  /** In the expert's language. */
  text: string;
  /** In the patient's language, when it is not the expert's. */
  patientText: string | null;
  reviewedBy: string | null;
};

/**
 * The opinion form's phrase book (decision 0094): each sentence offered in the expert's language,
 * with the patient's beside it — what she will read and hear — and whether a person checked it.
 */
export async function phrasePicker(
  patientId: string,
  expertLocale: string,
): Promise<{ expertLang: PhraseLocale; patientLang: PhraseLocale; choices: PhraseChoice[] }> {
  const expertLang = phraseLocale(expertLocale);
  const patient = await first(
    db().select({ locale: patients.locale }).from(patients).where(eq(patients.id, patientId)),
  );
  const patientLang = phraseLocale(patient?.locale ?? "en");
  const choices = (await phraseBook()).map((p) => ({
    id: p._id,
    kind: p.kind,
    text: p.texts[expertLang],
    patientText: patientLang === expertLang ? null : p.texts[patientLang],
    reviewedBy: p.reviewedBy,
  }));
  return { expertLang, patientLang, choices };
}
