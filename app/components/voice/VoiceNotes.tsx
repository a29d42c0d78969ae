import { Form, useLocation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { VoicePlayer, useKindLabel, type VoiceNoteView } from "./VoicePlayer";

/** Where a voice form posts: the shared action, told to come back to this screen. */
export function useVoiceAction(reportId: string) {
  const location = useLocation();
  const back = `${location.pathname}${location.search}#voice-${reportId}`;
  return `/voice/${encodeURIComponent(reportId)}?back=${encodeURIComponent(back)}`;
}

/**
 * A report's voice notes, each with its player and the typed "what I heard"; `canHear` adds the
 * form to write that note beside the patient's own recordings (the expert holding the report, the
 * centre's health worker).
 */
export function VoiceNotes({
  reportId,
  notes,
  canHear,
  headingLevel = 3,
}: {
  reportId: string;
  notes: VoiceNoteView[];
  canHear?: boolean;
  headingLevel?: 3 | 4;
}) {
  const { t } = useTranslation();
  const kindLabel = useKindLabel();
  const action = useVoiceAction(reportId);
  const H = headingLevel === 3 ? "h3" : "h4";
  if (!notes.length) return null;
  return (
    <section aria-labelledby={`voice-h-${reportId}`} className="space-y-3" data-testid="voice-notes">
      <H id={`voice-h-${reportId}`} className="font-bold text-slate-900">
        {t("voice.heading")}
      </H>
      <ol className="space-y-3">
        {notes.map((n) => (
          <li
            key={n._id}
            className="space-y-2 rounded-lg border border-slate-200 p-3"
            data-testid="voice-note"
          >
            <p className="font-semibold text-slate-800">{kindLabel(n.kind)}</p>
            <VoicePlayer note={n} />
            {n.heardNote && !canHear && (
              <p className="text-sm break-words whitespace-pre-line text-slate-800">
                <span className="font-semibold">{t("voice.heardBy")}</span> {n.heardNote}
              </p>
            )}
            {canHear && n.kind !== "explanation" && (
              <Form method="post" action={action} className="space-y-2">
                <input type="hidden" name="noteId" value={n._id} />
                <label htmlFor={`heard-${n._id}`} className="field-label">
                  {t("voice.heardLabel")}
                </label>
                <textarea
                  id={`heard-${n._id}`}
                  name="heardNote"
                  rows={2}
                  maxLength={2000}
                  defaultValue={n.heardNote ?? ""}
                  className="field-input"
                />
                <button type="submit" className="btn-secondary max-w-full whitespace-normal">
                  {t("voice.heardSave")}
                </button>
              </Form>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}
