import { and, desc, eq, inArray, isNull } from "drizzle-orm";
import { db } from "~/db/client.server";
import { phrases, type PhraseKind } from "~/db/schema";
import { newPhraseSchema } from "~/schemas/phrases";
import { newId } from "~/lib/ids.server";
import { audit, type Actor } from "../platform/index.server";
import { DomainError, zodFieldErrors } from "../platform/errors";
import { BUILT_IN_PHRASES, BUILT_IN_REVIEWER } from "./phrase-book-builtin";

/**
 * The phrase book (decision 0081): sentences with reviewed translations that an expert chooses
 * beside the free text of an opinion, so the patient reads and hears them in her language. The
 * built-in ones ship in code; admins add more (the text in each language, and who reviewed them)
 * and retire them. A retired phrase is no longer offered, but opinions that chose it still show it.
 */

export const PHRASE_LOCALES = ["en", "hi", "bn", "ta"] as const;
type PhraseLocale = (typeof PHRASE_LOCALES)[number];
/** Phrases one opinion may carry. */
export const PHRASES_PER_OPINION = 12;

export type Phrase = {
  _id: string;
  kind: PhraseKind;
  texts: Record<PhraseLocale, string>;
  reviewedBy: string;
  builtIn: boolean;
  retired: boolean;
};

const builtIn = (): Phrase[] =>
  BUILT_IN_PHRASES.map((p) => ({
    _id: p.id,
    kind: p.kind,
    texts: { en: p.en, hi: p.hi, bn: p.bn, ta: p.ta },
    reviewedBy: BUILT_IN_REVIEWER,
    builtIn: true,
    retired: false,
  }));

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
  return [...builtIn(), ...added.map(fromRow)];
}

async function byIds(ids: string[]): Promise<Map<string, Phrase>> {
  const out = new Map<string, Phrase>();
  for (const p of builtIn()) if (ids.includes(p._id)) out.set(p._id, p);
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
  const lang = (PHRASE_LOCALES as readonly string[]).includes(locale) ? (locale as PhraseLocale) : "en";
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

/** An admin retires a phrase they or another admin added (built-in phrases stay). */
export async function retirePhrase(actor: Actor, id: string): Promise<void> {
  requireAdmin(actor);
  const done = await db()
    .update(phrases)
    .set({ retiredAt: new Date() })
    .where(and(eq(phrases.id, String(id ?? "")), isNull(phrases.retiredAt)))
    .returning({ id: phrases.id });
  if (!done.length) throw new DomainError("not_found", "phrases.notFound");
  await audit(actor, "phrase.retire", "phrase", id, null);
}
