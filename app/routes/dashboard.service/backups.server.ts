import type { TFunction } from "i18next";
import { backupNotice, backupOverview } from "~/domain/operations/index.server";
import type { Actor } from "~/domain/platform/index.server";
import { formatBytes, formatDateTime } from "~/lib/format";
import { DEFAULT_TIME_ZONE } from "~/lib/format";

const STATUS_KEYS: Record<string, string> = {
  running: "backups.statusRunning",
  verified: "backups.statusVerified",
  unverified: "backups.statusUnverified",
  failed: "backups.statusFailed",
};
const TRIGGER_KEYS: Record<string, string> = {
  scheduled: "backups.triggerScheduled",
  manual: "backups.triggerManual",
  upgrade: "backups.triggerUpgrade",
};

/** The Service screen's backup section, its words and figures made here (decision 0067). */
export async function backupSection(actor: Actor, t: TFunction, locale: string) {
  const [o, notice] = await Promise.all([backupOverview(actor), backupNotice(actor)]);
  const when = (d: Date) => formatDateTime(d, locale, DEFAULT_TIME_ZONE);
  return {
    scheduleText: !o.schedule
      ? t("backups.scheduleOff")
      : o.schedule.everyHours < 24
        ? t("backups.scheduleHours", { at: o.schedule.at, hours: o.schedule.everyHours })
        : t("backups.scheduleDaily", { at: o.schedule.at }),
    keepText: t("backups.keep", o.keep),
    notice,
    lastSheet: notice?.lastSheet
      ? t("backups.lastSheet", { date: when(notice.lastSheet.at), name: notice.lastSheet.by })
      : null,
    runs: o.runs.map((r) => ({
      id: r.id,
      status: r.status,
      statusText: t(STATUS_KEYS[r.status] ?? r.status),
      started: `${when(r.startedAt)} (${t(TRIGGER_KEYS[r.trigger] ?? r.trigger)})`,
      duration: r.durationMs === null ? "" : `${(r.durationMs / 1000).toFixed(1)} s`,
      size: r.sizeBytes === null ? "" : formatBytes(r.sizeBytes, locale),
      added: r.addedBytes === null ? "" : formatBytes(r.addedBytes, locale),
      snapshot: r.snapshotId?.slice(0, 8) ?? "",
      reason: r.reason ?? "",
    })),
  };
}

export type BackupSectionData = Awaited<ReturnType<typeof backupSection>>;
