import { useTranslation } from "~/i18n/useTranslation";
import { VoiceNotes } from "./VoiceNotes";
import type { VoiceNoteView } from "./VoicePlayer";
import { VoiceRecorder } from "./VoiceRecorder";

/**
 * A report's voice notes on the patient's side (their own list, a family manager's, the centre's):
 * the notes with their players, and — each folded away until opened — a spoken description and,
 * once the opinion is there and questions are left, a spoken follow-up question.
 */
export function ReportVoice({
  reportId,
  notes,
  maxSeconds,
  canAdd,
  canAsk,
  canHear,
}: {
  reportId: string;
  notes: VoiceNoteView[];
  maxSeconds: number;
  canAdd: boolean;
  canAsk: boolean;
  canHear?: boolean;
}) {
  const { t } = useTranslation();
  if (!notes.length && !canAdd) return null;
  return (
    <div id={`voice-${reportId}`} className="scroll-mt-4 space-y-3">
      <VoiceNotes reportId={reportId} notes={notes} canHear={canHear} />
      {canAdd && (
        <details className="group" data-testid="voice-add-description">
          <summary className="btn-secondary max-w-full cursor-pointer whitespace-normal">
            {t("voice.addDescription")}
          </summary>
          <div className="mt-2">
            <VoiceRecorder
              reportId={reportId}
              kind="description"
              title={t("voice.addDescription")}
              maxSeconds={maxSeconds}
              headingLevel={4}
            />
          </div>
        </details>
      )}
      {canAsk && (
        <details className="group" data-testid="voice-ask">
          <summary className="btn-secondary max-w-full cursor-pointer whitespace-normal">
            {t("voice.askByVoice")}
          </summary>
          <div className="mt-2">
            <VoiceRecorder
              reportId={reportId}
              kind="question"
              title={t("voice.askByVoice")}
              maxSeconds={maxSeconds}
              headingLevel={4}
            />
          </div>
        </details>
      )}
    </div>
  );
}
