import type { SubmissionResult } from "@conform-to/react";
import { useNavigate } from "@remix-run/react";
import { useEffect, useRef, useState, type RefObject } from "react";
import { useTranslation } from "~/i18n/useTranslation";
import type { PhotoResult, Previous, Refusal, Sending } from "~/components/reports/resumable.client";
import { toast } from "~/components/Toaster";
import { UPLOAD_FORM_FIELDS } from "~/schemas/reports";
import { SHRINKABLE } from "./client-schema";

export type UploadResult = SubmissionResult<string[]>;

type UploadModule = typeof import("~/components/reports/resumable.client");
type Prepared = { photo: PhotoResult; previous: Previous | null };

let uploadModule: Promise<UploadModule> | undefined;

/**
 * The upload code — tus-js-client and the photo shrinking — is its own chunk, fetched by this page
 * only (tests/integration/js-budget.test.ts checks that / and /login never load it).
 */
function loadUploadModule(): Promise<UploadModule> {
  uploadModule ??= import("~/components/reports/resumable.client").catch((err) => {
    uploadModule = undefined; // a flaky link: try again next time
    throw err;
  });
  return uploadModule;
}

/**
 * The upload with JavaScript: the chosen photo made smaller, an unfinished upload of the same file
 * found and continued, the file sent in chunks with progress, and the server's refusal put back on
 * the form. Without the upload code the form is posted as it is.
 */
export function useResumableUpload(owner: string, formRef: RefObject<HTMLFormElement>) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const sendingRef = useRef<Sending | null>(null);
  const preparedRef = useRef<Promise<Prepared | null> | null>(null);
  const [progress, setProgress] = useState<{ sent: number; total: number } | null>(null);
  const [waiting, setWaiting] = useState(false);
  const [serverResult, setServerResult] = useState<UploadResult | undefined>();
  const [file, setFile] = useState<File | null>(null);
  const [prepared, setPrepared] = useState<Prepared | null>(null);
  const [preparing, setPreparing] = useState(false);
  const [unfinished, setUnfinished] = useState(false);
  const uploading = progress !== null;

  useEffect(() => {
    let live = true;
    // Fetches the upload code while the patient fills in the form, and says when an upload is unfinished.
    loadUploadModule()
      .then((m) => m.hasUnfinished(owner))
      .then((yes) => live && setUnfinished(yes))
      .catch(() => {});
    return () => {
      live = false;
      // Leaving the page stops sending; choosing the same file later continues the upload.
      sendingRef.current?.pause();
    };
  }, [owner]);

  /** Makes a photo smaller and looks for an unfinished upload of the result. */
  const prepare = async (chosen: File): Promise<Prepared | null> => {
    try {
      const m = await loadUploadModule();
      const photo = await m.shrinkPhoto(chosen);
      return { photo, previous: await m.findPrevious(photo.file, owner) };
    } catch {
      return null; // the upload code could not be fetched: the form is posted as it is
    }
  };

  /** The details given when an unfinished upload began, back in the form. */
  const fillIn = (fields: Record<string, string>) => {
    const form = formRef.current;
    if (!form) return;
    for (const name of UPLOAD_FORM_FIELDS) {
      const el = form.elements.namedItem(name);
      if (el instanceof HTMLInputElement && el.type === "checkbox") el.checked = !!fields[name];
      else if (
        el instanceof HTMLInputElement ||
        el instanceof HTMLSelectElement ||
        el instanceof HTMLTextAreaElement
      )
        el.value = fields[name] ?? "";
    }
  };

  const choose = (chosen: File | null) => {
    setFile(chosen);
    setPrepared(null);
    if (!chosen) {
      preparedRef.current = null;
      setPreparing(false);
      return;
    }
    const job = prepare(chosen);
    preparedRef.current = job;
    setPreparing(SHRINKABLE.test(chosen.type));
    void job.then((p) => {
      if (preparedRef.current !== job) return;
      setPreparing(false);
      setPrepared(p);
      if (p?.previous) fillIn(p.previous.fields);
    });
  };

  const refused = (r: Refusal) => {
    sendingRef.current = null;
    setProgress(null);
    setWaiting(false);
    if (r.status === 401) {
      window.location.assign(`/login?redirectTo=${encodeURIComponent("/dashboard/upload-report")}`);
      return;
    }
    const message = r.message || t("reports.uploadFailed");
    if (r.status === 413 || r.status === 415 || r.errors?.report) {
      setServerResult({
        status: "error",
        error: { "": [t("reports.uploadFailed")], report: [r.errors?.report?.[0] ?? message] },
        fields: ["report"],
      });
      toast.show({ type: "error", message: t("reports.uploadFailed") });
      return;
    }
    if (r.errors)
      setServerResult({
        status: "error",
        error: { "": [message], ...r.errors },
        fields: [...UPLOAD_FORM_FIELDS],
      });
    toast.show({ type: "error", message });
  };

  const start = async (formData: FormData) => {
    if (!file) return;
    setServerResult(undefined);
    setProgress({ sent: 0, total: file.size });
    let m: UploadModule | null = null;
    try {
      m = await loadUploadModule();
    } catch {
      /* below */
    }
    const p = m ? await (preparedRef.current ?? prepare(file)) : null;
    if (!m || !p) {
      // Without the upload code the form goes as a plain post, as it does without JavaScript.
      setProgress(null);
      formRef.current?.submit();
      return;
    }
    const toSend = p.photo.file;
    const metadata = m.metadataFrom(formData, toSend);
    // The earlier upload continues only with the same details; otherwise a new one replaces it.
    const previous = p.previous && m.sameFields(p.previous.fields, metadata) ? p.previous : null;
    if (p.previous && !previous) m.forget(p.previous);
    setProgress({ sent: previous?.offset ?? 0, total: toSend.size });
    sendingRef.current = await m.send(toSend, {
      owner,
      metadata,
      previous,
      onProgress: (sent, total) => setProgress({ sent, total }),
      onWaiting: setWaiting,
      onDone: () => {
        sendingRef.current = null;
        setProgress({ sent: toSend.size, total: toSend.size });
        toast.show({ type: "success", message: t("reports.uploadSuccess") });
        navigate("/report-submitted");
      },
      onRefused: refused,
    });
  };

  const cancel = () => {
    sendingRef.current?.cancel();
    sendingRef.current = null;
    setProgress(null);
    setWaiting(false);
    setPrepared((p) => p && { ...p, previous: null });
    toast.show({ type: "info", message: t("reports.uploadCancelled") });
  };

  return {
    file,
    prepared,
    preparing,
    unfinished,
    progress,
    waiting,
    serverResult,
    uploading,
    choose,
    start,
    cancel,
    retryNow: () => sendingRef.current?.retryNow(),
  };
}
