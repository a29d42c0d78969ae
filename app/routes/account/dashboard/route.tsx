import type { LoaderFunctionArgs } from "@remix-run/node";
import { Outlet, useLoaderData, useRouteLoaderData } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { ErrorMessage, ErrorPage } from "~/components/ErrorBoundary";
import { expertDetailsFor, avatarUrl, listPendingExperts, type Actor } from "~/domain/accounts/index.server";
import { listHealthWorkers, requireWorkerCentre } from "~/domain/care/index.server";
import { requireActor } from "~/web/auth.server";
import { DashboardFrame } from "./DashboardFrame";
import { LockedNotice, UpdateBanner, useOfflineApp } from "./OfflineApp";
import { useOfflineSync } from "./useOfflineSync";

/** The admin's waiting approvals, counted in the sidebar and on Home: experts and health workers. */
async function waitingApprovals(actor: Actor) {
  const one = { page: 1, pageSize: 1 };
  const [experts, workers] = await Promise.all([
    listPendingExperts(actor, one),
    listHealthWorkers(actor, { status: "pending" }, one),
  ]);
  return { experts: experts.total, workers: workers.total };
}

export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireActor(request);
  // An expert who is not approved: waiting for the admin, or rejected (then the notice says why).
  const waiting =
    actor.accountType === "Expert" && !actor.approved
      ? (await expertDetailsFor([actor.id])).get(actor.id)
      : undefined;
  // A health worker's centre, which what they record offline is kept for (decision 0063).
  const centre =
    actor.accountType === "HealthWorker" && actor.approved
      ? await requireWorkerCentre(actor).then(
          (c) => ({ _id: c._id, name: c.name }),
          () => null,
        )
      : null;
  return {
    waiting: actor.accountType === "Admin" ? await waitingApprovals(actor) : null,
    centre,
    rejectionReason: waiting?.rejectedAt ? (waiting.rejectionReason ?? "") : null,
    user: {
      id: actor.id,
      firstName: actor.firstName,
      lastName: actor.lastName,
      email: actor.email,
      accountType: actor.accountType,
      approved: actor.approved,
      image: avatarUrl(actor.image),
    },
  };
}

export type DashboardUser = Awaited<ReturnType<typeof loader>>["user"];

export default function DashboardLayout() {
  const { user, rejectionReason, waiting, centre } = useLoaderData<typeof loader>();
  // Patients and health workers get the offline app (service worker, decision 0066; outbox, 0063).
  const applyUpdate = useOfflineApp(user.accountType);
  const locked = useOfflineSync(user, centre);
  return (
    <DashboardFrame user={user} rejectionReason={rejectionReason} waiting={waiting}>
      {locked > 0 && <LockedNotice count={locked} />}
      <Outlet />
      {applyUpdate ? <UpdateBanner onReload={applyUpdate} /> : null}
    </DashboardFrame>
  );
}

/**
 * A screen inside the dashboard that fails (a report that is not there, a server error) shows
 * its error where the screen would be, with the header, the sidebar and the way back around it.
 * If the dashboard itself could not load, the error is the whole page, as at the root.
 */
export function ErrorBoundary() {
  const data = useRouteLoaderData<typeof loader>("routes/dashboard");
  const { t } = useTranslation();
  if (!data) return <ErrorPage />;
  return (
    <DashboardFrame user={data.user} rejectionReason={data.rejectionReason} waiting={data.waiting}>
      <ErrorMessage backTo="/dashboard/home" backLabel={t("reports.goToDashboardHome")} />
    </DashboardFrame>
  );
}
