import { and, desc, eq, gte, inArray, isNotNull, isNull } from "drizzle-orm";
import { db } from "~/db/client.server";
import { reports, voiceNotes } from "~/db/schema";
import { phraseIdsOf } from "./api-report.server";
import { stepsFor, type ApiNextStep } from "./next-steps.server";

/**
 * What a phone call may tell about a profile's opinions (decision 0080): the reviewed reports of
 * the last RECENT_DAYS (newest first, at most MAX_OPINIONS), each with the telephone copy of the
 * expert's newest spoken explanation, the phrase-book entries the expert chose, and the written
 * opinion — which a call reads out only in English, the language it was written in.
 */

export type PhoneOpinion = {
  reportId: string;
  /** The stored 8 kHz copy of the expert's explanation, if there is one. */
  phoneNoteKey: string | null;
  phraseIds: string[];
  written: string[];
  /** The opinion's next steps (decision 0114): the call says the open ones from phrases. */
  steps?: ApiNextStep[];
};

const RECENT_DAYS = 60;
const MAX_OPINIONS = 3;

export async function opinionsForCall(patientId: string, now = new Date()): Promise<PhoneOpinion[]> {
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
  return rows.map((r) => ({
    reportId: r.id,
    phoneNoteKey: notes.find((n) => n.reportId === r.id)?.key ?? null,
    phraseIds: phraseIdsOf(r.phraseIds),
    written: [r.findings, r.recommendations].filter((t): t is string => !!t?.trim()).length
      ? [r.findings, r.recommendations].filter((t): t is string => !!t?.trim())
      : r.review
        ? [r.review]
        : [],
    steps: steps.get(r.id) ?? [],
  }));
}
