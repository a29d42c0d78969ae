import { useEffect, useRef, useState, type ComponentType, type FormEvent } from "react";
import { shrinkPhoto } from "~/components/reports/photo";
import { ReportTypeOptions } from "~/components/reports/ReportTypeSelect";
import { FilePicker } from "~/components/ui/FilePicker";
import type { RecorderProps } from "~/components/voice/recorder.client";
import { useTranslation } from "~/i18n/useTranslation";
import { enqueue, NoRoom } from "~/offline/outbox.client";
import type { ItemFile } from "~/offline/types";

/** A patient the forms can act for: from the last synced list, or registered here and not sent yet. */
export type Whom = { value: string; name: string; phone: string; after?: string; reviewedReportId?: string };

export async function fileOf(input: File): Promise<ItemFile> {
  return { name: input.name, type: input.type, bytes: await input.arrayBuffer() };
}

/** A chosen photo made smaller on the phone first (as the online upload does); other files as they are. */
export async function smallerFile(input: File): Promise<ItemFile> {
  try {
    return await fileOf((await shrinkPhoto(input)).file);
  } catch {
    return fileOf(input);
  }
}

export function useKeepError() {
  const { t } = useTranslation();
  return (err: unknown) =>
    err instanceof NoRoom
      ? t("offline.noRoom", { left: ((err.quota - err.usage) / (1024 * 1024)).toFixed(0) })
      : t("offline.keepFailed");
}

function useRecorder() {
  const [Recorder, setRecorder] = useState<ComponentType<RecorderProps> | null>(null);
  useEffect(() => {
    if (typeof window.MediaRecorder === "undefined" || !navigator.mediaDevices?.getUserMedia) return;
    let live = true;
    import("~/components/voice/recorder.client")
      .then((m) => live && setRecorder(() => m.Recorder))
      .catch(() => {});
    return () => {
      live = false;
    };
  }, []);
  return Recorder;
}

/** A report (photo or PDF) for a patient, with an optional spoken description: kept, then sent in order. */
export function OfflineUpload({
  whom,
  worker,
  voiceMaxSeconds,
  onKept,
}: {
  whom: Whom[];
  worker: boolean;
  voiceMaxSeconds: number;
  onKept: () => void;
}) {
  const { t, i18n } = useTranslation();
  const Recorder = useRecorder();
  const voiceRef = useRef<HTMLInputElement>(null);
  const keepError = useKeepError();
  const [picked, setPicked] = useState(whom[0]?.value ?? "");
  // The lists arrive after the first render: until the person picks, the first one shown is the one.
  const chosen = whom.some((w) => w.value === picked) ? picked : (whom[0]?.value ?? "");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const person = whom.find((w) => w.value === chosen);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    const report = data.get("report");
    if (!(report instanceof File) || report.size === 0) return setError(t("reports.fileRequired"));
    if (!String(data.get("reportType") ?? "")) return setError(t("reports.reportTypeRequired"));
    if (!String(data.get("phoneNumber") ?? "").trim()) return setError(t("reports.phoneRequired"));
    if (!data.get("consent")) return setError(t("reports.consentRequired"));
    setBusy(true);
    setError(null);
    try {
      const name = person?.name ?? "";
      const fields: Record<string, string> = {
        reportType: String(data.get("reportType")),
        phoneNumber: String(data.get("phoneNumber")).trim(),
        countryCode: "+91",
        description: String(data.get("description") ?? ""),
        consent: "true",
      };
      if (person && !person.after && person.value !== "self") fields.patientId = person.value;
      const upload = await enqueue(
        "upload",
        { label: t("offline.labelUpload", { name }), fields, file: await smallerFile(report) },
        person?.after,
      );
      const voice = voiceRef.current?.files?.[0];
      if (voice && voice.size > 0)
        await enqueue(
          "voice",
          {
            label: t("offline.labelVoice", { name }),
            fields: { kind: "description", language: String(data.get("language") ?? i18n.language) },
            file: await fileOf(voice),
          },
          upload.id,
        );
      form.reset();
      onKept();
    } catch (err) {
      setError(keepError(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit} className="card mt-4 space-y-4" noValidate aria-labelledby="offline-upload-h">
      <h2 id="offline-upload-h" className="text-lg font-bold text-slate-900">
        {t("offline.uploadTitle")}
      </h2>
      {error && (
        <p role="alert" className="field-error">
          {error}
        </p>
      )}
      <div>
        <label htmlFor="offline-whom" className="field-label">
          {t(worker ? "offline.whichPatient" : "offline.whoseReport")}
        </label>
        <select
          id="offline-whom"
          className="field-input"
          value={chosen}
          onChange={(e) => setPicked(e.currentTarget.value)}
        >
          {whom.map((w) => (
            <option key={w.value} value={w.value}>
              {w.name}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label htmlFor="offline-type" className="field-label">
          {t("reports.reportTypeLabel")}
        </label>
        <select id="offline-type" name="reportType" className="field-input" defaultValue="">
          <ReportTypeOptions placeholder={t("reports.selectReportType")} />
        </select>
      </div>
      <div>
        <label htmlFor="offline-phone" className="field-label">
          {t("reports.phoneLabel")}
        </label>
        <input
          id="offline-phone"
          key={chosen}
          name="phoneNumber"
          type="tel"
          inputMode="tel"
          className="field-input"
          defaultValue={person?.phone ?? ""}
        />
      </div>
      <div>
        <label htmlFor="offline-desc" className="field-label">
          {t("reports.descriptionLabel")} {t("common.optional")}
        </label>
        <textarea id="offline-desc" name="description" rows={3} maxLength={2000} className="field-input" />
      </div>
      <div>
        <label htmlFor="offline-report" className="field-label">
          {t("reports.fileLabel")}
        </label>
        <FilePicker
          id="offline-report"
          name="report"
          accept="application/pdf,image/png,image/jpeg,image/webp"
          capture="environment"
        />
      </div>
      <fieldset className="space-y-2 rounded-lg border border-slate-200 p-3">
        <legend className="field-label px-1">
          {t("offline.voiceTitle")} {t("common.optional")}
        </legend>
        {Recorder && <Recorder fileInput={voiceRef} maxSeconds={voiceMaxSeconds} />}
        <label htmlFor="offline-voice" className="field-label">
          {t("voice.fileLabel")}
        </label>
        <FilePicker ref={voiceRef} id="offline-voice" name="audio" accept="audio/*" capture="user" />
        <label htmlFor="offline-voice-lang" className="field-label">
          {t("voice.language")}
        </label>
        <select id="offline-voice-lang" name="language" defaultValue={i18n.language} className="field-input">
          <option value="en">English</option>
          <option value="hi">हिन्दी</option>
          <option value="bn">বাংলা</option>
          <option value="ta">தமிழ்</option>
        </select>
      </fieldset>
      <label className="flex items-start gap-3">
        <input type="checkbox" name="consent" value="true" className="mt-1 h-5 w-5 accent-brand-700" />
        <span>{t("offline.uploadConsent")}</span>
      </label>
      <button type="submit" className="btn-primary w-full sm:w-auto" disabled={busy}>
        {t("offline.keep")}
      </button>
    </form>
  );
}

/** A follow-up question the patient dictates, about the opinion on their latest report. */
export function OfflineFollowUp({ whom, onKept }: { whom: Whom[]; onKept: () => void }) {
  const { t } = useTranslation();
  const keepError = useKeepError();
  const reviewed = whom.filter((w) => w.reviewedReportId);
  const [error, setError] = useState<string | null>(null);
  if (!reviewed.length) return <p className="card mt-4">{t("offline.noOpinionsYet")}</p>;

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    const person = reviewed.find((w) => w.value === data.get("whom"));
    const question = String(data.get("question") ?? "").trim();
    if (!person || !question) return setError(t("followups.questionRequired"));
    try {
      await enqueue("follow-up", {
        label: t("offline.labelFollowUp", { name: person.name }),
        fields: { question },
        reportId: person.reviewedReportId,
      });
      form.reset();
      setError(null);
      onKept();
    } catch (err) {
      setError(keepError(err));
    }
  }
  return (
    <form onSubmit={submit} className="card mt-4 space-y-4" noValidate aria-labelledby="offline-fu-h">
      <h2 id="offline-fu-h" className="text-lg font-bold text-slate-900">
        {t("offline.followUpTitle")}
      </h2>
      {error && (
        <p role="alert" className="field-error">
          {error}
        </p>
      )}
      <div>
        <label htmlFor="offline-fu-whom" className="field-label">
          {t("offline.whichPatient")}
        </label>
        <select id="offline-fu-whom" name="whom" className="field-input">
          {reviewed.map((w) => (
            <option key={w.value} value={w.value}>
              {w.name}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label htmlFor="offline-fu-q" className="field-label">
          {t("offline.question")}
        </label>
        <textarea id="offline-fu-q" name="question" rows={3} maxLength={2000} className="field-input" />
      </div>
      <button type="submit" className="btn-primary w-full sm:w-auto">
        {t("offline.keep")}
      </button>
    </form>
  );
}
