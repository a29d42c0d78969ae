import { useTranslation } from "~/i18n/useTranslation";
import { formatBytes } from "~/lib/format";

/**
 * A real upload progress bar (bytes the browser has sent) with the percentage and the bytes in
 * words; screen readers hear it in steps of 10 % rather than every percent. While the connection
 * is gone it says so (the upload continues by itself when it is back) and offers to try at once.
 */
export function UploadProgress({
  sent,
  total,
  waiting,
  onCancel,
  onRetry,
}: {
  sent: number;
  total: number;
  waiting?: boolean;
  onCancel?: () => void;
  onRetry?: () => void;
}) {
  const { t, i18n } = useTranslation();
  const value = total > 0 ? Math.max(0, Math.min(100, Math.floor((sent / total) * 100))) : 0;
  const text = t("reports.uploadProgress", { percent: value });
  const bytes = t("reports.uploadBytes", {
    sent: formatBytes(Math.min(sent, total), i18n.language),
    total: formatBytes(total, i18n.language),
  });
  return (
    <div
      className={`rounded-lg border px-4 py-3 ${waiting ? "border-amber-300 bg-amber-50" : "border-brand-100 bg-brand-50"}`}
      data-testid="upload-progress"
      data-percent={value}
    >
      <div className="flex flex-wrap items-center justify-between gap-x-3">
        {/* The bytes wrap as a whole: never "112" at a line's end and "kB" on the next. */}
        <p className="font-semibold text-brand-800" aria-hidden="true">
          {text} <span className="font-normal text-slate-700">·</span>{" "}
          <span className="whitespace-nowrap font-normal text-slate-700">{bytes}</span>
        </p>
        {onCancel && (
          <button type="button" onClick={onCancel} className="link min-h-11 text-sm">
            {t("reports.cancelUpload")}
          </button>
        )}
      </div>
      <progress
        max={100}
        value={value}
        aria-label={t("reports.uploadProgressLabel")}
        aria-valuetext={`${text}, ${bytes}`}
        className="mt-2 h-3 w-full overflow-hidden rounded-full [&::-moz-progress-bar]:bg-brand-600 [&::-webkit-progress-bar]:bg-white [&::-webkit-progress-value]:bg-brand-600"
      >
        {text}
      </progress>
      {waiting && (
        <div
          className="mt-2 flex flex-wrap items-center justify-between gap-x-3"
          data-testid="upload-waiting"
        >
          <p className="text-sm text-amber-900">{t("reports.uploadWaiting")}</p>
          {onRetry && (
            <button type="button" onClick={onRetry} className="link min-h-11 text-sm">
              {t("reports.retryNow")}
            </button>
          )}
        </div>
      )}
      <p className="sr-only" aria-live="polite">
        {waiting
          ? t("reports.uploadWaiting")
          : t("reports.uploadProgress", { percent: Math.floor(value / 10) * 10 })}
      </p>
    </div>
  );
}
