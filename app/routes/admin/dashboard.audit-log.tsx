import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useLoaderData, useSubmit } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { AUDIT_ACTION_GROUPS, AUDIT_ACTIONS, isLabelledAction } from "~/components/audit/actions";
import { useListLoading } from "~/components/reports/useListLoading";
import { EmptyState } from "~/components/reports/EmptyState";
import { LocalDate } from "~/components/reports/LocalDate";
import { screenMeta } from "~/components/reports/meta";
import { PageHeader } from "~/components/reports/PageHeader";
import { Pager } from "~/components/reports/Pager";
import { roleKey } from "~/components/reports/people";
import { ResponsiveTable, type Column } from "~/components/reports/ResponsiveTable";
import { pageError, pageInfo, screenPage } from "~/web/screen.server";
import { useHydrated } from "~/components/reports/useHydrated";
import { listAuditEvents, type ApiAuditEvent } from "~/domain/platform/index.server";
import { tFor } from "~/i18n/i18n.server";
import { requireRole } from "~/web/auth.server";

function rowOf(e: ApiAuditEvent) {
  return {
    _id: e._id,
    action: e.action,
    createdAt: e.createdAt,
    subjectType: e.subjectType,
    subjectId: e.subjectId,
    ip: e.ip,
    actor: e.actor
      ? {
          _id: e.actor._id,
          name: `${e.actor.firstName} ${e.actor.lastName}`.trim(),
          email: e.actor.email,
          accountType: e.actor.accountType,
        }
      : null,
  };
}

export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireRole(request, "Admin");
  const wanted = new URL(request.url).searchParams.get("action");
  const action = wanted && isLabelledAction(wanted) ? wanted : null;
  let result: Awaited<ReturnType<typeof listAuditEvents>>;
  try {
    result = await listAuditEvents(actor, { ...screenPage(request), action });
  } catch (err) {
    pageError(err);
  }
  const { t } = await tFor(request);
  return {
    title: t("dashboard.auditLog"),
    action,
    items: result.items.map(rowOf),
    pagination: pageInfo(result),
  };
}

export const meta: MetaFunction<typeof loader> = screenMeta;

type Row = ReturnType<typeof rowOf>;

export default function AuditLog() {
  const { t } = useTranslation();
  const { items, pagination, action } = useLoaderData<typeof loader>();
  const submit = useSubmit();
  const hydrated = useHydrated();
  const loading = useListLoading();

  const subject = (r: Row) => {
    if (!r.subjectId) return t("reports.notAvailable");
    if (r.subjectType === "report") return t("audit.subjectReport", { id: r.subjectId });
    if (r.subjectType === "user") return t("audit.subjectUser", { id: r.subjectId });
    return `${r.subjectType} ${r.subjectId}`;
  };

  const columns: Column<Row>[] = [
    {
      key: "time",
      header: t("audit.colTime"),
      cell: (r) => (
        <span className="whitespace-nowrap">
          <LocalDate iso={r.createdAt} withTime />
        </span>
      ),
    },
    {
      key: "action",
      header: t("audit.colAction"),
      cell: (r) =>
        isLabelledAction(r.action) ? (
          <span className="font-semibold">{t(AUDIT_ACTIONS[r.action])}</span>
        ) : (
          // An action no longer known (none is recorded without a label) shows its recorded name,
          // which may break anywhere on a phone.
          <span className="font-semibold break-all">{r.action}</span>
        ),
    },
    {
      key: "actor",
      header: t("audit.colActor"),
      cell: (r) =>
        r.actor ? (
          <span>
            {r.actor.name} <span className="text-sm text-slate-600">({t(roleKey(r.actor.accountType))})</span>
            <span className="block text-sm break-all text-slate-600">{r.actor.email}</span>
          </span>
        ) : (
          <span className="text-slate-600 italic">{t("audit.unknownActor")}</span>
        ),
    },
    {
      key: "subject",
      header: t("audit.colSubject"),
      cell: (r) => <code className="text-xs break-all text-slate-700">{subject(r)}</code>,
    },
    { key: "ip", header: t("audit.colIp"), cell: (r) => <code className="text-xs">{r.ip ?? "—"}</code> },
  ];

  return (
    <section>
      <PageHeader title={t("dashboard.auditLog")} intro={t("audit.intro")} />
      <Form method="get" className="mb-4 flex flex-wrap items-end gap-3" role="search">
        <div className="min-w-0 flex-1 basis-full sm:basis-0 sm:max-w-xs">
          <label htmlFor="audit-action" className="field-label">
            {t("audit.filterLabel")}
          </label>
          <select
            id="audit-action"
            name="action"
            key={action ?? ""}
            defaultValue={action ?? ""}
            className="field-input"
            onChange={(e) => hydrated && e.currentTarget.form && submit(e.currentTarget.form)}
          >
            <option value="">{t("audit.allActions")}</option>
            {AUDIT_ACTION_GROUPS.map((g) => (
              <optgroup key={g.area} label={t(g.label)}>
                {g.actions.map(([value, key]) => (
                  <option key={value} value={value}>
                    {t(key)}
                  </option>
                ))}
              </optgroup>
            ))}
          </select>
        </div>
        <button type="submit" className="btn-secondary">
          {t("audit.applyFilter")}
        </button>
        {action && (
          <Link to="/dashboard/audit-log" className="link min-h-11 content-center">
            {t("audit.allActions")}
          </Link>
        )}
      </Form>
      {items.length === 0 ? (
        <EmptyState message={t("audit.empty")} />
      ) : (
        <ResponsiveTable
          caption={t("dashboard.auditLog")}
          columns={columns}
          rows={items}
          rowKey={(r) => r._id}
          busy={loading}
          testId="audit-log"
          dense
        />
      )}
      <Pager pagination={pagination} />
    </section>
  );
}
