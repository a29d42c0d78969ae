import type { ActionFunctionArgs } from "@remix-run/node";
import type { TFunction } from "i18next";
import {
  backupNotice,
  backupOverview,
  startBackupNow,
  startRestoreTest,
  type BackupRun,
} from "~/domain/operations/index.server";
import type { Actor } from "~/domain/platform/index.server";
import { tFor } from "~/i18n/i18n.server";
import { formatBytes, formatDateTime, zoneName } from "~/lib/format";
import { requireRole } from "~/web/auth.server";
import { readForm } from "~/web/forms.server";
import { guardForm } from "~/web/guard.server";
import { clientOf } from "~/web/request.server";
import { toastFailure } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";
import { workAction } from "./work.server";

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
  "restore-test": "backups.triggerRestoreTest",
};

/** The "Why" of a run: what a failure said, or what was checked for a good one — never empty. */
function why(r: BackupRun, t: TFunction): string {
  if (r.reason) return r.reason;
  if (r.status === "running") return t("backups.whyRunning");
  if (r.trigger === "restore-test") return t("backups.whyRestoreTested", { files: r.files ?? 0 });
  return t("backups.whyVerified", { files: r.files ?? 0 });
}

/** The Service screen's backup section, its words and figures made here, times in the clinic's zone (decisions 0067, 0091, 0092). */
export async function backupSection(actor: Actor, t: TFunction, locale: string) {
  const [o, notice] = await Promise.all([backupOverview(actor), backupNotice(actor)]);
  const when = (d: Date) => formatDateTime(d, locale, o.timeZone);
  // The clinic's zone in words of the screen's language, never its IANA id.
  const zone = zoneName(o.timeZone, locale);
  return {
    scheduleText: !o.schedule
      ? t("backups.scheduleOff")
      : o.schedule.everyHours < 24
        ? t("backups.scheduleHours", { at: o.schedule.at, hours: o.schedule.everyHours, zone })
        : t("backups.scheduleDaily", { at: o.schedule.at, zone }),
    keepText: t("backups.keep", o.keep),
    busy: o.busy,
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
      // When the snapshot was taken (what a restore of it brings back), its short ID beside it.
      snapshot: r.snapshotAt ? when(r.snapshotAt) : "",
      snapshotId: r.snapshotId?.slice(0, 8) ?? "",
      reason: why(r, t),
    })),
  };
}

export type BackupSectionData = Awaited<ReturnType<typeof backupSection>>;

/**
 * The Service screen's two buttons (decision 0091): `intent=backup` takes a backup now,
 * `intent=restore-test` restores the newest snapshot into a scratch folder and reads it through.
 * Both start and come back at once with a toast; the run appears in the list. Admins only (anyone
 * else: 404, as for the page; the domain refuses them too); refused while one of them runs here.
 */
/** The Service screen's forms: a backup now, a restore test, and a failed job retried or dropped. */
export async function backupAction({ request, context }: ActionFunctionArgs) {
  await guardForm(request);
  const actor = await requireRole(request, "Admin");
  const { t } = await tFor(request);
  const form = await readForm(request);
  const intent = String(form.get("intent") ?? "");
  // A failed background job retried or dropped (the same screen's other forms).
  if (intent === "job-retry" || intent === "job-drop")
    return workAction(intent, form, { actor, t, client: clientOf(context) });
  const back = "/dashboard/service";
  try {
    if (intent === "backup") await startBackupNow(actor, clientOf(context));
    else if (intent === "restore-test") await startRestoreTest(actor, clientOf(context));
    else return new Response("Bad Request", { status: 400 });
  } catch (err) {
    return toastFailure(err, t, back);
  }
  return redirectWithSuccess(
    back,
    t(intent === "backup" ? "backups.backupStarted" : "backups.restoreTestStarted"),
  );
}
