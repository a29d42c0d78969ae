import { FilePicker } from "~/components/ui/FilePicker";
import { useTranslation } from "~/i18n/useTranslation";
import type { FieldMeta } from "~/components/ui/Field";
import type { useResumableUpload } from "./useResumableUpload";

type Upload = ReturnType<typeof useResumableUpload>;

/**
 * The file: the chosen name and size, a photo made smaller, an unfinished upload found, and the
 * server's refusal of the file (already translated) under the input.
 */
export function FileField({
  meta,
  upload: { file, prepared, preparing, uploading, choose },
  maxMb,
  studyMb,
  chooseAgain,
  say,
  size,
}: {
  meta: FieldMeta;
  upload: Upload;
  maxMb: number;
  /** MAX_STUDY_MB: the limit for medical images (DICOM, a ZIP of one study). */
  studyMb?: number;
  /** The form came back refused without JavaScript: the browser forgot the file. */
  chooseAgain: boolean;
  say: (msg: string) => string;
  size: (bytes: number) => string;
}) {
  const { t } = useTranslation();
  const fileError = meta.errors?.[0];
  const fileHintId = `${meta.id}-hint`;
  const fileNameId = `${meta.id}-chosen`;
  const photoId = `${meta.id}-photo`;
  const resumeId = `${meta.id}-resume`;
  const previous = prepared?.previous ?? null;
  const shrunk = prepared?.photo.changed ? prepared.photo : null;
  return (
    <div>
      <label htmlFor={meta.id} className="field-label">
        {t("reports.fileLabel")}
        <span aria-hidden="true" className="text-red-700">
          {" "}
          *
        </span>
      </label>
      <div
        className={`rounded-lg border-2 border-dashed px-3 py-3 ${
          fileError ? "border-red-700 bg-red-50/40" : "border-slate-300 bg-slate-50"
        }`}
      >
        <FilePicker
          id={meta.id}
          showName={false}
          name={meta.name}
          accept=".pdf,image/*,.dcm,.zip,application/dicom,application/zip"
          aria-required
          aria-invalid={fileError ? true : undefined}
          aria-describedby={[
            fileHintId,
            file ? fileNameId : null,
            shrunk ? photoId : null,
            previous ? resumeId : null,
            fileError ? meta.errorId : null,
          ]
            .filter(Boolean)
            .join(" ")}
          onChange={(e) => choose(e.currentTarget.files?.[0] ?? null)}
          disabled={uploading}
        />
        {file && (
          <p
            id={fileNameId}
            className="mt-2 text-sm font-semibold break-all text-slate-800"
            data-testid="chosen-file"
          >
            {t("reports.selectedFile", { name: file.name, size: size(file.size) })}
          </p>
        )}
        {preparing && (
          <p className="mt-1 text-sm text-slate-700" role="status">
            {t("reports.photoPreparing")}
          </p>
        )}
        {shrunk && (
          <p id={photoId} className="mt-1 text-sm text-green-800" data-testid="photo-size">
            {t("reports.photoSmaller", { before: size(shrunk.before), after: size(shrunk.after) })}
          </p>
        )}
        {previous && !uploading && (
          <p
            id={resumeId}
            className="mt-2 rounded-md border border-sky-300 bg-sky-50 px-3 py-2 text-sm text-sky-900"
            data-testid="resume-found"
          >
            {t("reports.resumeFound", { sent: size(previous.offset), total: size(previous.length) })}
          </p>
        )}
      </div>
      <p id={fileHintId} className="mt-1 text-sm text-slate-600">
        {t("reports.fileHint", { max: maxMb })}
        {studyMb ? <> {t("imaging.uploadHint", { max: studyMb })}</> : null}
      </p>
      {chooseAgain && !file && !fileError && (
        <p className="mt-1 text-sm text-amber-900">{t("reports.chooseAgain")}</p>
      )}
      {fileError ? (
        <p id={meta.errorId} className="field-error" role="alert">
          {say(fileError)}
        </p>
      ) : (
        <div id={meta.errorId} />
      )}
    </div>
  );
}
