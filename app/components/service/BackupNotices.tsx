import { Link } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";

export const RECOVERY_SHEET_PATH = "/dashboard/service/recovery-sheet";

/**
 * What the admins are told about backups (decisions 0067, 0068), on their home and the Service
 * screen: that no copy leaves the machine (and how to add one), and to print the recovery sheet
 * until someone has printed it for the repository and password in effect.
 */
export function BackupNotices({
  notice,
}: {
  notice: { repository: string; localOnly: boolean; sheetNeeded: boolean } | null;
}) {
  const { t } = useTranslation();
  if (!notice) return null;
  const { repository } = notice;
  return (
    <>
      {notice.localOnly && (
        <div
          role="status"
          className="mt-4 max-w-prose rounded-lg border border-amber-300 bg-amber-50 p-4 text-slate-900"
          data-testid="backup-local-only"
        >
          <h2 className="font-bold">{t("backups.localOnlyTitle")}</h2>
          <p className="mt-1 break-words">{t("backups.localOnlyText", { repository })}</p>
          <p className="mt-1 break-words">{t("backups.localOnlyHow")}</p>
        </div>
      )}
      {notice.sheetNeeded && (
        <div
          role="status"
          className="mt-4 max-w-prose rounded-lg border border-amber-300 bg-amber-50 p-4 text-slate-900"
          data-testid="backup-sheet-needed"
        >
          <h2 className="font-bold">{t("backups.sheetNeededTitle")}</h2>
          <p className="mt-1 break-words">{t("backups.sheetNeededText", { repository })}</p>
          <Link to={RECOVERY_SHEET_PATH} className="btn-primary mt-3 inline-flex">
            {t("backups.sheetLink")}
          </Link>
        </div>
      )}
    </>
  );
}
