import { useTranslation } from "~/i18n/useTranslation";

/** A voice note as the screens get it from their loaders (a subset of the API's VoiceNote). */
export type VoiceNoteView = {
  _id: string;
  kind: "description" | "question" | "explanation";
  language: string;
  durationMs: number;
  audioUrl: string;
  heardNote: string | null;
  followUpId: string | null;
  createdAt: string;
};

/** m:ss of a duration in milliseconds (whole seconds, at least 0:01 for a short sound). */
export function clock(ms: number) {
  const s = Math.max(ms > 0 ? 1 : 0, Math.round(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

const KIND_KEY = {
  description: "voice.kindDescription",
  question: "voice.kindQuestion",
  explanation: "voice.kindExplanation",
} as const;

/**
 * The browser's own player, loading nothing until played (preload="none"), with the length from
 * the database printed beside it so it shows before any byte is fetched.
 */
export function VoicePlayer({ note }: { note: VoiceNoteView }) {
  const { t } = useTranslation();
  const kind = t(KIND_KEY[note.kind]);
  const time = clock(note.durationMs);
  return (
    <div className="flex flex-wrap items-center gap-2" data-testid="voice-player" data-kind={note.kind}>
      <audio
        controls
        preload="none"
        src={note.audioUrl}
        lang={note.language}
        aria-label={t("voice.playerLabel", { kind, time })}
        className="w-full max-w-xs"
      />
      <span className="text-sm text-slate-700">{t("voice.duration", { time })}</span>
    </div>
  );
}

export function useKindLabel() {
  const { t } = useTranslation();
  return (kind: VoiceNoteView["kind"]) => t(KIND_KEY[kind]);
}
