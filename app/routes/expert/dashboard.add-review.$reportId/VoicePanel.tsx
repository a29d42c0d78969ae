import { useTranslation } from "~/i18n/useTranslation";
import { VoiceNotes } from "~/components/voice/VoiceNotes";
import type { VoiceNoteView } from "~/components/voice/VoicePlayer";
import { VoiceRecorder } from "~/components/voice/VoiceRecorder";

/**
 * The patient's voice notes beside the report (with the typed "what I heard" for the expert
 * holding it), and the expert's spoken explanation — offered only beside the written opinion,
 * which stays required.
 */
export function VoicePanel({
  reportId,
  notes,
  holds,
  maxSeconds,
}: {
  reportId: string;
  notes: VoiceNoteView[];
  holds: boolean;
  maxSeconds: number;
}) {
  const { t } = useTranslation();
  if (!notes.length && !holds) return null;
  return (
    <div id={`voice-${reportId}`} className="card scroll-mt-4 space-y-3">
      <VoiceNotes reportId={reportId} notes={notes} canHear={holds} headingLevel={3} />
      {holds && (
        <VoiceRecorder
          reportId={reportId}
          kind="explanation"
          title={t("voice.addExplanation")}
          hint={t("voice.explanationHint")}
          maxSeconds={maxSeconds}
        />
      )}
    </div>
  );
}
