import { useEffect, useRef, useState, type RefObject } from "react";
import { useTranslation } from "~/i18n/useTranslation";
import { clock } from "./VoicePlayer";

export type RecorderProps = { fileInput: RefObject<HTMLInputElement>; maxSeconds: number };

type State = "idle" | "recording" | "paused" | "recorded";

/** WebM/Opus where the browser records it (Chromium, Firefox, Safari 18.4+), else MP4/AAC (older iOS Safari). */
function chooseType(): string {
  for (const type of ["audio/webm;codecs=opus", "audio/mp4"])
    if (MediaRecorder.isTypeSupported(type)) return type;
  return "";
}

/**
 * The in-page recorder: record, pause and resume with a visible timer, stop (by hand or at
 * `maxSeconds`), listen, record again. The recording is put into the form's file input, so the
 * form sends it like a chosen file.
 */
export function Recorder({ fileInput, maxSeconds }: RecorderProps) {
  const { t } = useTranslation();
  const [state, setState] = useState<State>("idle");
  const [elapsed, setElapsed] = useState(0);
  const [url, setUrl] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const rec = useRef<MediaRecorder | null>(null);
  const clockRef = useRef({ since: 0, before: 0, timer: 0 });

  const tick = () => {
    const c = clockRef.current;
    const ms = c.before + (c.since ? performance.now() - c.since : 0);
    setElapsed(ms);
    if (ms >= maxSeconds * 1000 && rec.current?.state === "recording") {
      setMessage(t("voice.limitReached"));
      stop();
    }
  };
  const run = () => {
    clockRef.current.since = performance.now();
    clockRef.current.timer = window.setInterval(tick, 200);
  };
  const halt = () => {
    const c = clockRef.current;
    if (c.since) c.before += performance.now() - c.since;
    c.since = 0;
    window.clearInterval(c.timer);
  };

  useEffect(
    () => () => {
      window.clearInterval(clockRef.current.timer);
      rec.current?.stream.getTracks().forEach((tr) => tr.stop());
    },
    [],
  );
  useEffect(() => () => void (url && URL.revokeObjectURL(url)), [url]);

  async function start() {
    setMessage(null);
    if (fileInput.current) fileInput.current.value = "";
    setUrl(null);
    let stream: MediaStream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    } catch {
      setMessage(t("voice.micRefused"));
      return;
    }
    const type = chooseType();
    const recorder = new MediaRecorder(stream, type ? { mimeType: type } : undefined);
    const parts: Blob[] = [];
    recorder.ondataavailable = (e) => e.data.size && parts.push(e.data);
    recorder.onstop = () => {
      stream.getTracks().forEach((tr) => tr.stop());
      const mime = (recorder.mimeType || type || "audio/webm").split(";")[0];
      const blob = new Blob(parts, { type: mime });
      const file = new File([blob], `voice-note.${mime === "audio/mp4" ? "m4a" : "webm"}`, { type: mime });
      const dt = new DataTransfer();
      dt.items.add(file);
      if (fileInput.current) {
        fileInput.current.files = dt.files;
        // The file picker beside it names the recording (it listens for the input's change).
        fileInput.current.dispatchEvent(new Event("change", { bubbles: true }));
      }
      setUrl(URL.createObjectURL(blob));
      setState("recorded");
    };
    rec.current = recorder;
    clockRef.current.before = 0;
    setElapsed(0);
    // One piece at the end, not time slices: Chromium then writes the WebM's duration and size
    // into its header, which the server reads (a sliced recording has neither).
    recorder.start();
    run();
    setState("recording");
  }
  function stop() {
    halt();
    if (rec.current && rec.current.state !== "inactive") rec.current.stop();
  }
  function pause() {
    halt();
    rec.current?.pause();
    setState("paused");
  }
  function resume() {
    rec.current?.resume();
    run();
    setState("recording");
  }

  const time = t("voice.timer", { time: clock(elapsed), max: clock(maxSeconds * 1000) });
  return (
    <div className="space-y-2" data-testid="voice-recorder">
      <p className="flex flex-wrap items-center gap-2">
        {state === "recording" && (
          <span className="inline-flex items-center gap-1 font-semibold text-red-800">
            <span aria-hidden="true" className="inline-block h-3 w-3 rounded-full bg-red-600" />
            {t("voice.recording")}
          </span>
        )}
        {state === "paused" && <span className="font-semibold text-slate-800">{t("voice.paused")}</span>}
        {state !== "idle" && (
          <span role="timer" className="font-mono text-slate-900 tabular-nums" data-testid="voice-timer">
            {time}
          </span>
        )}
      </p>
      <div className="flex flex-wrap gap-2">
        {(state === "idle" || state === "recorded") && (
          <button
            type="button"
            className="btn-secondary max-w-full whitespace-normal"
            onClick={start}
            data-testid="voice-record"
          >
            {state === "idle" ? t("voice.record") : t("voice.reRecord")}
          </button>
        )}
        {state === "recording" && (
          <button
            type="button"
            className="btn-secondary max-w-full whitespace-normal"
            onClick={pause}
            data-testid="voice-pause"
          >
            {t("voice.pause")}
          </button>
        )}
        {state === "paused" && (
          <button
            type="button"
            className="btn-secondary max-w-full whitespace-normal"
            onClick={resume}
            data-testid="voice-resume"
          >
            {t("voice.resume")}
          </button>
        )}
        {(state === "recording" || state === "paused") && (
          <button
            type="button"
            className="btn-secondary max-w-full whitespace-normal"
            onClick={stop}
            data-testid="voice-stop"
          >
            {t("voice.stop")}
          </button>
        )}
      </div>
      {url && state === "recorded" && (
        <div className="space-y-1">
          <p className="text-sm text-slate-800">{t("voice.recorded", { time: clock(elapsed) })}</p>
          <audio
            controls
            src={url}
            aria-label={t("voice.listen")}
            data-testid="voice-preview"
            className="w-full max-w-xs"
          />
        </div>
      )}
      <p role="status" className="text-sm text-slate-800">
        {message}
      </p>
    </div>
  );
}
