import { useTranslation } from "react-i18next";

/**
 * A real upload progress bar (bytes sent, from XMLHttpRequest) with the percentage in
 * words; screen readers hear it in steps of 10 % rather than every percent.
 */
export function UploadProgress({ percent, onCancel }: { percent: number; onCancel?: () => void }) {
  const { t } = useTranslation();
  const value = Math.max(0, Math.min(100, Math.round(percent)));
  const text = t("reports.uploadProgress", { percent: value });
  return (
    <div className="rounded-lg border border-brand-100 bg-brand-50 px-4 py-3" data-testid="upload-progress">
      <div className="flex items-center justify-between gap-3">
        <p className="font-semibold text-brand-800" aria-hidden="true">
          {text}
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
        aria-valuetext={text}
        className="mt-2 h-3 w-full overflow-hidden rounded-full [&::-moz-progress-bar]:bg-brand-600 [&::-webkit-progress-bar]:bg-white [&::-webkit-progress-value]:bg-brand-600"
      >
        {text}
      </progress>
      <p className="sr-only" aria-live="polite">
        {t("reports.uploadProgress", { percent: Math.floor(value / 10) * 10 })}
      </p>
    </div>
  );
}
