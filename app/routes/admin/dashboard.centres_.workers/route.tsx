import {
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { EmptyState } from "~/components/reports/EmptyState";
import { useDateText } from "~/components/reports/LocalDate";
import { screenMeta } from "~/components/reports/meta";
import { PageHeader } from "~/components/reports/PageHeader";
import { Pager } from "~/components/reports/Pager";
import { ResponsiveTable, type Column } from "~/components/reports/ResponsiveTable";
import {
  approveHealthWorker,
  centreDirectory,
  listHealthWorkers,
  rejectHealthWorker,
  updateHealthWorker,
  type ApiHealthWorker,
} from "~/domain/care/index.server";
import { tFor } from "~/i18n/i18n.server";
import type { HealthWorkerStatus } from "~/schemas/centres";
import {
  HEALTH_WORKER_STATUSES,
  NO_WORKERS_KEYS,
  WORKER_ROLE_KEYS,
  WORKER_STATUS_KEYS,
} from "~/schemas/limits";
import { requireRole } from "~/web/auth.server";
import { readForm } from "~/web/forms.server";
import { guardForm } from "~/web/guard.server";
import { clientOf } from "~/web/request.server";
import { pageInfo, screenPage, toastFailure } from "~/web/screen.server";
import { redirectWithError, redirectWithSuccess } from "~/web/toast.server";
import { Actions } from "./Actions";

/**
 * Admin: health workers — those waiting for approval (approve, or decline with a reason they are
 * told), the approved (move to another centre, suspend) and the suspended (reinstate); optionally
 * one centre's. Every button is a plain POST with an intent, so it works without JavaScript.
 */

const PATH = "/dashboard/centres/workers";

function filtersOf(url: URL): { status: HealthWorkerStatus; centreId?: string } {
  const s = url.searchParams.get("status");
  const status = (HEALTH_WORKER_STATUSES as readonly string[]).includes(s ?? "")
    ? (s as HealthWorkerStatus)
    : "pending";
  const centreId = url.searchParams.get("centreId")?.slice(0, 64) || undefined;
  return { status, centreId };
}

export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireRole(request, "Admin");
  const { t } = await tFor(request);
  const url = new URL(request.url);
  const filters = filtersOf(url);
  const page = screenPage(request);
  const result = await listHealthWorkers(actor, filters, page);
  const info = pageInfo(result);
  // After the last one on a later page was approved, show the page that still has workers.
  if (result.items.length === 0 && page.page > 1 && result.total > 0) {
    url.searchParams.set("page", String(info.totalPages));
    throw redirect(`${PATH}${url.search}`);
  }
  const centres = await centreDirectory();
  return {
    title: t("centres.workersPageTitle"),
    items: result.items,
    pagination: info,
    filters,
    centres,
  };
}

export const meta: MetaFunction<typeof loader> = screenMeta;

export async function action({ request, context }: ActionFunctionArgs) {
  await guardForm(request);
  const actor = await requireRole(request, "Admin");
  const { t } = await tFor(request);
  const url = new URL(request.url);
  url.searchParams.delete("index");
  const back = `${PATH}${url.search}`;
  const form = await readForm(request);
  const userId = String(form.get("userId") ?? "");
  const ip = clientOf(context).ip;
  try {
    switch (String(form.get("intent") ?? "")) {
      case "approve":
        await approveHealthWorker(actor, userId, ip);
        return redirectWithSuccess(back, t("centres.approved"));
      case "reject":
        await rejectHealthWorker(actor, userId, { reason: form.get("reason") ?? "" }, ip);
        return redirectWithSuccess(back, t("centres.rejected"));
      case "move":
        await updateHealthWorker(actor, userId, { centreId: form.get("centreId") ?? "" }, ip);
        return redirectWithSuccess(back, t("centres.moved"));
      case "suspend":
        await updateHealthWorker(actor, userId, { suspended: true }, ip);
        return redirectWithSuccess(back, t("centres.suspended"));
      case "unsuspend":
        await updateHealthWorker(actor, userId, { suspended: false }, ip);
        return redirectWithSuccess(back, t("centres.unsuspended"));
    }
  } catch (err) {
    // A field's message (no reason given, an unknown centre) says more than "check your input".
    const field = ["reason", "centreId"].find((f) => form.has(f));
    return toastFailure(err, t, back, { field });
  }
  return redirectWithError(back, t("centres.unknownAction"));
}

export default function HealthWorkers() {
  const { t } = useTranslation();
  const { items, pagination, filters, centres } = useLoaderData<typeof loader>();
  const dates = useDateText();
  const centre = filters.centreId ? centres.find((c) => c._id === filters.centreId) : undefined;
  const linkFor = (status: HealthWorkerStatus) =>
    `${PATH}?status=${status}${filters.centreId ? `&centreId=${encodeURIComponent(filters.centreId)}` : ""}`;
  const columns: Column<ApiHealthWorker>[] = [
    {
      key: "name",
      header: t("centres.workerName"),
      cell: (w) => (
        <div className="min-w-36">
          <span className="font-semibold">{`${w.firstName} ${w.lastName}`.trim()}</span>
          <span className="block text-sm break-all text-slate-700">{w.email || w.phone}</span>
        </div>
      ),
    },
    {
      key: "role",
      header: t("centres.role"),
      cell: (w) => (
        <span>
          {t(WORKER_ROLE_KEYS[w.role])}
          <span className="block text-sm break-all text-slate-700">
            {t("centres.workerId")}: {w.workerId || t("reports.notAvailable")}
          </span>
        </span>
      ),
    },
    {
      key: "centre",
      header: t("centres.centre"),
      cell: (w) => (
        <Link to={`/dashboard/centres/${encodeURIComponent(w.centre._id)}`} className="link">
          {w.centre.name}
        </Link>
      ),
    },
    { key: "since", header: t("centres.signedUp"), cell: (w) => dates.day(w.createdAt) },
    { key: "actions", header: t("reports.colAction"), cell: (w) => <Actions w={w} /> },
  ];
  return (
    <section className="space-y-5">
      <p>
        <Link to="/dashboard/centres" className="link">
          ← {t("centres.backToList")}
        </Link>
      </p>
      <PageHeader
        title={t("centres.workersPageTitle")}
        intro={centre ? t("centres.workersOfCentre", { name: centre.name }) : t("centres.workersIntro")}
      />
      <nav aria-label={t("centres.statusFilter")}>
        <ul className="flex flex-wrap gap-2">
          {HEALTH_WORKER_STATUSES.map((s) => (
            <li key={s}>
              <Link
                to={linkFor(s)}
                aria-current={filters.status === s ? "page" : undefined}
                className="inline-flex min-h-11 items-center rounded-full border border-slate-300 bg-white px-4 text-sm font-semibold text-slate-800 hover:bg-slate-100 aria-[current=page]:border-brand-700 aria-[current=page]:bg-brand-700 aria-[current=page]:text-white"
              >
                {t(WORKER_STATUS_KEYS[s])}
              </Link>
            </li>
          ))}
          {centre && (
            <li>
              <Link
                to={`${PATH}?status=${filters.status}`}
                className="inline-flex min-h-11 items-center px-2 text-sm font-semibold text-brand-800 underline"
              >
                {t("centres.allCentres")}
              </Link>
            </li>
          )}
        </ul>
      </nav>
      {items.length === 0 ? (
        <EmptyState message={t(NO_WORKERS_KEYS[filters.status])} />
      ) : (
        <ResponsiveTable
          caption={t(WORKER_STATUS_KEYS[filters.status])}
          columns={columns}
          rows={items}
          rowKey={(w) => w._id}
          testId="health-workers"
        />
      )}
      <Pager pagination={pagination} />
    </section>
  );
}
