import { and, desc, eq, gte, inArray, isNotNull, isNull } from "drizzle-orm";
import { db } from "~/db/client.server";
import { reports, voiceNotes } from "~/db/schema";
import { phraseIdsOf } from "./api-report.server";
import { getT } from "~/i18n/i18n.server";
import { isLocale } from "~/i18n/config";
import type { PhoneOpinion } from "../calls/index.server";
import { stepsFor } from "./next-steps.server";
import { phrasesFor } from "./phrase-book.server";
import { spokenSteps } from "./step-words.server";

/**
 * What a phone call may tell about a profile's opinions (decision 0080): the reviewed reports of
 * the last RECENT_DAYS (newest first, at most MAX_OPINIONS), each with the telephone copy of the
 * expert's newest spoken explanation, the phrase-book entries the expert chose, and the written
 * opinion — which a call reads out only in English, the language it was written in. The phrases
 * and the open next steps come in words of `locale` (the person's language): what the call says.
 */

const RECENT_DAYS = 60;
const MAX_OPINIONS = 3;

export async function opinionsForCall(
  patientId: string,
  locale: string,
  now = new Date(),
): Promise<PhoneOpinion[]> {
  const rows = await db()
    .select({
      id: reports.id,
      phraseIds: reports.phraseIds,
      findings: reports.findings,
      recommendations: reports.recommendations,
      review: reports.review,
    })
    .from(reports)
    .where(
      and(
        eq(reports.patientId, patientId),
        eq(reports.status, "Reviewed"),
        isNull(reports.secondOf),
        gte(reports.reviewedAt, new Date(now.getTime() - RECENT_DAYS * 86_400_000)),
      ),
    )
    .orderBy(desc(reports.reviewedAt), desc(reports.id))
    .limit(MAX_OPINIONS);
  if (!rows.length) return [];
  const [notes, steps] = await Promise.all([
    db()
      .select({ reportId: voiceNotes.reportId, key: voiceNotes.phoneFileKey })
      .from(voiceNotes)
      .where(
        and(
          inArray(
            voiceNotes.reportId,
            rows.map((r) => r.id),
          ),
          eq(voiceNotes.kind, "explanation"),
          isNotNull(voiceNotes.phoneFileKey),
        ),
      )
      .orderBy(desc(voiceNotes.createdAt), desc(voiceNotes.id)),
    stepsFor(rows.map((r) => r.id)),
  ]);
  const t = await getT(isLocale(locale) ? locale : "en");
  return Promise.all(
    rows.map(async (r) => {
      const ids = phraseIdsOf(r.phraseIds);
      const written = [r.findings, r.recommendations].filter((x): x is string => !!x?.trim());
      return {
        reportId: r.id,
        phoneNoteKey: notes.find((n) => n.reportId === r.id)?.key ?? null,
        phrases: ids.length ? await phrasesFor(ids, locale) : [],
        written: written.length ? written : r.review ? [r.review] : [],
        steps: spokenSteps(steps.get(r.id) ?? [], t, locale),
      };
    }),
  );
}
