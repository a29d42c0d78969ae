import { Form } from "@remix-run/react";
import { useEffect, useRef, useState, type ComponentType } from "react";
import { FilePicker } from "~/components/ui/FilePicker";
import { useTranslation } from "~/i18n/useTranslation";
import type { RecorderProps } from "./recorder.client";
import { useVoiceAction } from "./VoiceNotes";

const LANGS = [
  ["en", "English"],
  ["hi", "हिन्दी"],
  ["bn", "বাংলা"],
  ["ta", "தமிழ்"],
] as const;

/**
 * A voice note form that works without JavaScript: a file input that asks phones for their
 * recorder (`capture`), the language spoken, the kind, and for a question optional typed words.
 * Where the browser has MediaRecorder, the in-page recorder (recorder.client.tsx, fetched only by
 * the screens that show this form) records into that same file input, so the form sends a
 * recording exactly as it sends a chosen file.
 */
export function VoiceRecorder({
  reportId,
  kind,
  title,
  hint,
  maxSeconds,
  headingLevel = 3,
}: {
  reportId: string;
  kind: "description" | "question" | "explanation";
  title: string;
  hint?: string;
  maxSeconds: number;
  headingLevel?: 3 | 4;
}) {
  const { t, i18n } = useTranslation();
  const action = useVoiceAction(reportId);
  const fileRef = useRef<HTMLInputElement>(null);
  const [Recorder, setRecorder] = useState<ComponentType<RecorderProps> | null>(null);
  const id = `voice-${kind}-${reportId}`;
  const H = headingLevel === 3 ? "h3" : "h4";

  useEffect(() => {
    if (typeof window.MediaRecorder === "undefined" || !navigator.mediaDevices?.getUserMedia) return;
    let live = true;
    import("./recorder.client").then((m) => live && setRecorder(() => m.Recorder)).catch(() => {});
    return () => {
      live = false;
    };
  }, []);

  return (
    <Form
      method="post"
      encType="multipart/form-data"
      action={action}
      reloadDocument
      className="min-w-0 space-y-3 rounded-lg border border-slate-200 p-3"
      aria-labelledby={`${id}-h`}
      data-testid={`voice-form-${kind}`}
    >
      <H id={`${id}-h`} className="font-bold text-slate-900">
        {title}
      </H>
      {hint && <p className="text-sm text-slate-700">{hint}</p>}
      <input type="hidden" name="kind" value={kind} />
      {kind === "question" && (
        <div>
          <label htmlFor={`${id}-q`} className="field-label">
            {t("voice.questionText")} {t("common.optional")}
          </label>
          <textarea
            id={`${id}-q`}
            name="question"
            rows={2}
            maxLength={2000}
            className="field-input"
            aria-describedby={`${id}-qh`}
          />
          <p id={`${id}-qh`} className="mt-1 text-sm text-slate-600">
            {t("voice.questionTextHint")}
          </p>
        </div>
      )}
      {Recorder && <Recorder fileInput={fileRef} maxSeconds={maxSeconds} />}
      <div>
        <label htmlFor={`${id}-file`} className="field-label">
          {t("voice.fileLabel")}
        </label>
        <FilePicker
          ref={fileRef}
          id={`${id}-file`}
          name="audio"
          accept="audio/*"
          capture="user"
          aria-describedby={`${id}-fh`}
          data-testid="voice-file"
        />
        <p id={`${id}-fh`} className="mt-1 text-sm text-slate-600">
          {t("voice.fileHint", { max: maxSeconds })}
        </p>
      </div>
      <div>
        <label htmlFor={`${id}-lang`} className="field-label">
          {t("voice.language")}
        </label>
        <select id={`${id}-lang`} name="language" defaultValue={i18n.language} className="field-input">
          {LANGS.map(([code, name]) => (
            <option key={code} value={code} lang={code}>
              {name}
            </option>
          ))}
        </select>
      </div>
      <button type="submit" className="btn-primary max-w-full whitespace-normal" data-testid="voice-send">
        {t("voice.send")}
      </button>
    </Form>
  );
}
