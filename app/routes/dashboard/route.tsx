import type { LoaderFunctionArgs } from "@remix-run/node";
import { Outlet, useLoaderData, useRouteLoaderData } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { ErrorMessage, ErrorPage } from "~/components/ErrorBoundary";
import { expertDetailsFor, avatarUrl } from "~/domain/accounts/index.server";
import { requireActor } from "~/utils/auth.server";
import { DashboardFrame } from "./DashboardFrame";

export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireActor(request);
  // An expert who is not approved: waiting for the admin, or rejected (then the notice says why).
  const waiting =
    actor.accountType === "Expert" && !actor.approved
      ? (await expertDetailsFor([actor.id])).get(actor.id)
      : undefined;
  return {
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
  const { user, rejectionReason } = useLoaderData<typeof loader>();
  return (
    <DashboardFrame user={user} rejectionReason={rejectionReason}>
      <Outlet />
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
    <DashboardFrame user={data.user} rejectionReason={data.rejectionReason}>
      <ErrorMessage backTo="/dashboard/home" backLabel={t("reports.goToDashboardHome")} />
    </DashboardFrame>
  );
}
