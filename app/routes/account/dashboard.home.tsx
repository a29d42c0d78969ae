import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData, useRouteLoaderData } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { ownHealthWorker } from "~/domain/care/index.server";
import { backupNotice, diskWarning } from "~/domain/operations/index.server";
import { BackupNotices } from "~/components/service/BackupNotices";
import { tFor } from "~/i18n/i18n.server";
import { site } from "~/site";
import { requireActor } from "~/web/auth.server";
import type { loader as dashboardLoader } from "~/routes/account/dashboard/route";

export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireActor(request);
  const { t } = await tFor(request);
  // A health worker an admin has not approved yet sees that they are waiting, and for which centre.
  const worker = await ownHealthWorker(actor);
  const waitingAt = worker && worker.status === "pending" ? worker.centre.name : null;
  const [disk, backup] = await Promise.all([diskWarning(actor), backupNotice(actor)]);
  return { title: t("dashboard.home"), waitingAt, disk, backup };
}

export const meta: MetaFunction<typeof loader> = ({ data, matches }) => [
  ...(matches.find((m) => m.id === "root")?.meta ?? []).filter((m) => !("title" in m)),
  { title: data ? `${data.title} | ${site.productName}` : site.productName },
];

type Action = { to: string; label: string; primary?: boolean };

export default function DashboardHome() {
  const { t } = useTranslation();
  const frame = useRouteLoaderData<typeof dashboardLoader>("routes/dashboard");
  const user = frame?.user;
  const waiting = frame?.waiting ?? null;
  const { waitingAt, disk, backup } = useLoaderData<typeof loader>();
  if (!user) return null;
  let text: string;
  let actions: Action[];
  switch (user.accountType) {
    case "Patient":
      text = t("dashboard.patientWelcome");
      actions = [
        { to: "/dashboard/upload-report", label: t("dashboard.uploadReport"), primary: true },
        { to: "/dashboard/upload-report", label: t("dashboard.consultExpert") },
      ];
      break;
    case "Expert":
      text = t("dashboard.expertWelcome");
      actions = [
        { to: "/dashboard/pending-report", label: t("dashboard.viewPendingReport"), primary: true },
        { to: "/dashboard/previous-reviewed-report", label: t("dashboard.previousReviewedReport") },
      ];
      break;
    case "HealthWorker":
      text = t("care.healthWorkerWelcome");
      actions = [
        { to: "/dashboard/centre/register", label: t("care.navRegister"), primary: true },
        { to: "/dashboard/centre", label: t("care.navCentre") },
      ];
      break;
    case "Admin":
      text = t("dashboard.adminWelcome");
      actions = [
        { to: "/dashboard/pending-expert", label: t("dashboard.pendingExpert"), primary: true },
        { to: "/dashboard/pending-expert", label: t("dashboard.approveExpert") },
        { to: "/dashboard/pending-report", label: t("dashboard.pendingReport") },
      ];
      break;
  }
  return (
    <section className="card sm:p-8">
      <h1 className="text-2xl font-bold text-slate-900 sm:text-3xl">
        {t("dashboard.welcome", { name: user.firstName || user.lastName })}
      </h1>
      <p className="mt-3 max-w-prose text-lg text-slate-700">{text}</p>
      {disk && (
        <div
          role="alert"
          className="mt-4 max-w-prose rounded-lg border border-red-300 bg-red-50 p-4 text-slate-900"
          data-testid="disk-warning"
        >
          <h2 className="font-bold">
            {t(disk.state === "full" ? "dashboard.diskFullTitle" : "dashboard.diskLowTitle")}
          </h2>
          <p className="mt-1">
            {t(disk.part === "database" ? "dashboard.diskTextDatabase" : "dashboard.diskTextUploads", {
              free: disk.freeMb,
            })}
          </p>
        </div>
      )}
      <BackupNotices notice={backup} />
      {waitingAt !== null && (
        <div
          role="status"
          className="mt-4 max-w-prose rounded-lg border border-amber-300 bg-amber-50 p-4 text-slate-900"
          data-testid="awaiting-approval"
        >
          <h2 className="font-bold">{t("centres.awaitingTitle")}</h2>
          <p className="mt-1">{t("centres.awaitingText", { centre: waitingAt })}</p>
        </div>
      )}
      {waiting && (waiting.experts > 0 || waiting.workers > 0) && (
        <ul className="mt-4 max-w-prose space-y-1 text-lg" data-testid="waiting-approvals">
          {waiting.experts > 0 && (
            <li>
              <Link to="/dashboard/pending-expert" className="link">
                {t("dashboard.expertsWaiting", { count: waiting.experts })}
              </Link>
            </li>
          )}
          {waiting.workers > 0 && (
            <li>
              <Link to="/dashboard/centres/workers" className="link">
                {t("dashboard.workersWaiting", { count: waiting.workers })}
              </Link>
            </li>
          )}
        </ul>
      )}
      <div className="mt-6 flex flex-col gap-3 sm:flex-row sm:flex-wrap">
        {actions.map((a) => (
          <Link key={a.label} to={a.to} className={a.primary ? "btn-primary" : "btn-secondary"}>
            {a.label}
          </Link>
        ))}
      </div>
    </section>
  );
}
