import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { formatDuration } from "~/components/reports/duration";
import { EmptyState } from "~/components/reports/EmptyState";
import { screenMeta } from "~/components/reports/meta";
import { PageHeader } from "~/components/reports/PageHeader";
import { Pager } from "~/components/reports/Pager";
import { ResponsiveTable, type Column } from "~/components/reports/ResponsiveTable";
import { createCentre, listHealthWorkers } from "~/domain/care/index.server";
import { listCentres } from "~/domain/consultation/index.server";
import { tFor } from "~/i18n/i18n.server";
import { centreSchema } from "~/schemas/centres";
import { CENTRE_KIND_KEYS } from "~/schemas/limits";
import { parseFormData } from "~/schemas/strict";
import { requireRole } from "~/web/auth.server";
import { readForm } from "~/web/forms.server";
import { guardForm } from "~/web/guard.server";
import { clientOf } from "~/web/request.server";
import { formFailure, pageInfo, screenPage } from "~/web/screen.server";
import { redirectWithError, redirectWithSuccess } from "~/web/toast.server";
import { CentreForm } from "./CentreForm";

/**
 * Admin: the centres — per centre its patients, its queue (pending, in review, reviewed, overdue),
 * its time to opinion (median and 90th percentile over 30 days: the Turnaround screen's figures,
 * computed over the centre's reports) and its health workers — and a form for a new centre.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireRole(request, "Admin");
  const { t } = await tFor(request);
  const result = await listCentres(actor, screenPage(request));
  const waiting = await listHealthWorkers(actor, { status: "pending" }, { page: 1, pageSize: 1 });
  return {
    title: t("centres.title"),
    items: result.items,
    pagination: pageInfo(result),
    pendingWorkers: waiting.total,
  };
}

export const meta: MetaFunction<typeof loader> = screenMeta;

export async function action({ request, context }: ActionFunctionArgs) {
  await guardForm(request);
  const actor = await requireRole(request, "Admin");
  const { t } = await tFor(request);
  const formData = await readForm(request);
  if (formData.get("intent") !== "create")
    return redirectWithError("/dashboard/centres", t("centres.unknownAction"));
  const submission = parseFormData(formData, { schema: centreSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  try {
    const centre = await createCentre(actor, submission.value, clientOf(context).ip);
    return redirectWithSuccess(
      `/dashboard/centres/${encodeURIComponent(centre._id)}`,
      t("centres.created", { name: centre.name }),
    );
  } catch (err) {
    return formFailure(err, t, (o) => submission.reply(o));
  }
}

type Row = ReturnType<typeof useLoaderData<typeof loader>>["items"][number];

export default function Centres() {
  const { t } = useTranslation();
  const { items, pagination, pendingWorkers } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const dur = (ms: number | null) => (ms === null ? t("reports.notAvailable") : formatDuration(ms, t));
  const columns: Column<Row>[] = [
    {
      key: "name",
      header: t("centres.name"),
      cell: (c) => (
        <div className="min-w-40">
          <Link to={`/dashboard/centres/${encodeURIComponent(c._id)}`} className="link font-semibold">
            {c.name}
          </Link>
          <span className="block text-sm text-slate-700">{t(CENTRE_KIND_KEYS[c.kind])}</span>
        </div>
      ),
    },
    {
      key: "place",
      header: t("centres.place"),
      cell: (c) => (
        <span>
          {c.district}, {c.state} <span className="tabular-nums whitespace-nowrap">{c.pinCode}</span>
        </span>
      ),
    },
    {
      key: "patients",
      header: t("centres.colPatients"),
      cell: (c) => <span className="tabular-nums">{c.stats.patients}</span>,
    },
    {
      key: "queue",
      header: t("centres.colQueue"),
      cell: (c) => (
        <span className="tabular-nums">
          {t("centres.queueLine", {
            pending: c.stats.pending + c.stats.inReview,
            reviewed: c.stats.reviewed,
          })}
          {c.stats.overdue > 0 && (
            <span className="mt-1 block font-semibold text-orange-800">
              {t("centres.overdueCount", { count: c.stats.overdue })}
            </span>
          )}
        </span>
      ),
    },
    {
      key: "turnaround",
      header: t("centres.colTurnaround"),
      cell: (c) => (
        <span className="whitespace-nowrap">
          {t("centres.medianShort")}: {dur(c.stats.medianMs)}
          <span className="block">
            {t("centres.p90Short")}: {dur(c.stats.p90Ms)}
          </span>
        </span>
      ),
    },
    {
      key: "workers",
      header: t("centres.colWorkers"),
      cell: (c) => (
        <span className="tabular-nums">
          {t("centres.workersLine", { approved: c.stats.workers.approved, pending: c.stats.workers.pending })}
        </span>
      ),
    },
  ];
  return (
    <section className="space-y-6">
      <PageHeader title={t("centres.title")} intro={t("centres.intro")}>
        <Link to="/dashboard/centres/workers" className="btn-secondary">
          {t("centres.workersLink", { count: pendingWorkers })}
        </Link>
      </PageHeader>
      {items.length === 0 ? (
        <EmptyState message={t("centres.none")} />
      ) : (
        <ResponsiveTable
          caption={t("centres.listCaption")}
          columns={columns}
          rows={items}
          rowKey={(c) => c._id}
          testId="centres"
        />
      )}
      <Pager pagination={pagination} />
      <section aria-labelledby="new-centre" className="card">
        <h2 id="new-centre" className="mb-3 text-lg font-bold text-slate-900">
          {t("centres.newTitle")}
        </h2>
        <CentreForm
          id="new-centre-form"
          intent="create"
          lastResult={lastResult}
          submitLabel={t("centres.create")}
        />
      </section>
    </section>
  );
}
