import { Form, Link, useNavigation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { BackupNotices, RECOVERY_SHEET_PATH } from "./BackupNotices";

type Run = {
  id: string;
  status: string;
  statusText: string;
  started: string;
  duration: string;
  size: string;
  added: string;
  /** When the snapshot was taken, in the clinic's time; its short ID beside it. */
  snapshot: string;
  snapshotId: string;
  reason: string;
};

const STATUS_CLASS: Record<string, string> = {
  verified: "bg-green-100 text-green-900",
  running: "bg-slate-100 text-slate-900",
  unverified: "bg-red-100 text-red-900",
  failed: "bg-red-100 text-red-900",
};

/**
 * The Service screen's backups (decisions 0067, 0091): the schedule in the clinic's time, the
 * notices, "Back up now" and "Test a restore now", and every run with its result and why.
 */
export function BackupsSection({
  data,
}: {
  data: {
    scheduleText: string;
    keepText: string;
    busy: boolean;
    notice: { repository: string; localOnly: boolean; sheetNeeded: boolean } | null;
    lastSheet: string | null;
    runs: Run[];
  };
}) {
  const { t } = useTranslation();
  const sending = useNavigation().state === "submitting";
  return (
    <section aria-labelledby="service-backups" className="card min-w-0 max-sm:px-3" data-testid="backups">
      <h2 id="service-backups" className="mb-3 text-lg font-bold text-slate-900">
        {t("backups.title")}
      </h2>
      <p className="max-w-prose text-slate-700">{t("backups.intro")}</p>
      <p className="mt-2 max-w-prose text-slate-700">{data.scheduleText}</p>
      <p className="mt-2 max-w-prose text-slate-700">{data.keepText}</p>
      {data.notice && (
        <p className="mt-2 max-w-prose text-slate-700">
          {t("backups.repository")}:{" "}
          <code className="break-all font-mono text-sm">{data.notice.repository}</code>
        </p>
      )}
      <BackupNotices notice={data.notice && { ...data.notice, sheetNeeded: data.notice.sheetNeeded }} />
      {!data.notice?.sheetNeeded && (
        <p className="mt-4">
          <Link to={RECOVERY_SHEET_PATH} className="btn-secondary inline-flex">
            {t("backups.sheetLink")}
          </Link>
        </p>
      )}
      {data.lastSheet && <p className="mt-2 text-sm text-slate-600">{data.lastSheet}</p>}
      <Form method="post" className="mt-4 flex flex-wrap gap-3" data-testid="backup-actions">
        <button type="submit" name="intent" value="backup" className="btn-primary" disabled={sending}>
          {t("backups.backupNow")}
        </button>
        <button type="submit" name="intent" value="restore-test" className="btn-secondary" disabled={sending}>
          {t("backups.restoreTestNow")}
        </button>
      </Form>
      <p className="mt-2 max-w-prose text-sm text-slate-700">
        {data.busy ? t("backups.busyNote") : t("backups.restoreTestHelp")}
      </p>
      {data.runs.length === 0 ? (
        <p className="mt-4 text-slate-700" data-testid="backups-none">
          {t("backups.none")}
        </p>
      ) : (
        <>
          {/* On a phone: one block per run, the same figures with their names. */}
          <ul className="mt-4 space-y-3 sm:hidden" data-testid="backup-runs-list">
            {data.runs.map((r) => (
              <li
                key={r.id}
                className="rounded-lg border border-slate-200 p-3 text-sm"
                data-status={r.status}
              >
                <p className="flex flex-wrap items-center justify-between gap-2">
                  <span>{r.started}</span>
                  <span className={`rounded px-2 py-0.5 font-medium ${STATUS_CLASS[r.status] ?? ""}`}>
                    {r.statusText}
                  </span>
                </p>
                <dl className="mt-2 grid grid-cols-2 gap-x-3 gap-y-1 text-slate-700">
                  {(
                    [
                      ["backups.duration", r.duration],
                      ["backups.size", r.size],
                      ["backups.added", r.added],
                      ["backups.snapshot", r.snapshot && `${r.snapshot} · ${r.snapshotId}`],
                    ] as const
                  )
                    .filter(([, v]) => v)
                    .map(([k, v]) => (
                      <div key={k}>
                        <dt className="text-slate-500">{t(k)}</dt>
                        <dd className="tabular-nums">{v}</dd>
                      </div>
                    ))}
                </dl>
                {r.reason && <p className="mt-2 break-words text-slate-700">{r.reason}</p>}
              </li>
            ))}
          </ul>
          <div className="mt-4 hidden overflow-x-auto sm:block">
            <table className="w-full min-w-[40rem] text-left text-sm" data-testid="backup-runs">
              <thead>
                <tr className="border-b border-slate-200 text-slate-600">
                  <th scope="col" className="py-2 pr-3">
                    {t("backups.started")}
                  </th>
                  <th scope="col" className="py-2 pr-3">
                    {t("backups.status")}
                  </th>
                  <th scope="col" className="py-2 pr-3">
                    {t("backups.duration")}
                  </th>
                  <th scope="col" className="py-2 pr-3">
                    {t("backups.size")}
                  </th>
                  <th scope="col" className="py-2 pr-3">
                    {t("backups.added")}
                  </th>
                  <th scope="col" className="py-2 pr-3">
                    {t("backups.snapshot")}
                  </th>
                  <th scope="col" className="py-2">
                    {t("backups.reason")}
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.runs.map((r) => (
                  <tr key={r.id} className="border-b border-slate-100 align-top" data-status={r.status}>
                    <td className="py-2 pr-3">{r.started}</td>
                    <td className="py-2 pr-3">
                      <span className={`rounded px-2 py-0.5 font-medium ${STATUS_CLASS[r.status] ?? ""}`}>
                        {r.statusText}
                      </span>
                    </td>
                    <td className="py-2 pr-3 tabular-nums">{r.duration}</td>
                    <td className="py-2 pr-3 tabular-nums">{r.size}</td>
                    <td className="py-2 pr-3 tabular-nums">{r.added}</td>
                    <td className="py-2 pr-3">
                      {r.snapshot}
                      {r.snapshotId && (
                        <span className="block font-mono text-xs text-slate-600">{r.snapshotId}</span>
                      )}
                    </td>
                    <td className="max-w-xs break-words py-2 text-slate-700">{r.reason}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}
