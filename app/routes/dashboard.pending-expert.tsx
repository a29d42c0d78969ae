import {
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Form, useLoaderData, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { useListLoading } from "~/components/reports/useListLoading";
import { EmptyState } from "~/components/reports/EmptyState";
import { screenMeta } from "~/components/reports/meta";
import { PageHeader } from "~/components/reports/PageHeader";
import { contactOf, roleKey } from "~/components/reports/people";
import { Pager } from "~/components/reports/Pager";
import { ResponsiveTable, type Column } from "~/components/reports/ResponsiveTable";
import { pageError, pageInfo, screenPage } from "~/components/reports/screen.server";
import { isDomainError } from "~/domain/errors";
import { approveExpert, listPendingExperts, type ApiUser } from "~/domain/experts.server";
import { tFor } from "~/i18n/i18n.server";
import { approveExpertSchema } from "~/schemas/reports";
import { requireRole } from "~/utils/auth.server";
import { parseForm } from "~/utils/forms.server";
import { guardForm } from "~/utils/guard.server";
import { clientOf } from "~/utils/request.server";
import { redirectWithError, redirectWithSuccess } from "~/utils/toast.server";

function rowOf(u: ApiUser) {
  return {
    _id: u._id,
    name: `${u.firstName} ${u.lastName}`.trim(),
    email: u.email,
    contact: contactOf(u),
    accountType: u.accountType,
  };
}

export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireRole(request, "Admin");
  const page = screenPage(request);
  let result: Awaited<ReturnType<typeof listPendingExperts>>;
  try {
    result = await listPendingExperts(actor, page);
  } catch (err) {
    pageError(err);
  }
  const info = pageInfo(result);
  // After approving the last one on a later page, show the page that still has experts.
  if (result.items.length === 0 && page.page > 1 && result.total > 0) {
    throw redirect(`/dashboard/pending-expert?page=${info.totalPages}`);
  }
  const { t } = await tFor(request);
  return { title: t("experts.pendingTitle"), items: result.items.map(rowOf), pagination: info };
}

export const meta: MetaFunction<typeof loader> = screenMeta;

export async function action({ request, context }: ActionFunctionArgs) {
  await guardForm(request);
  const actor = await requireRole(request, "Admin");
  const { t } = await tFor(request);
  const url = new URL(request.url);
  url.searchParams.delete("index");
  const back = `/dashboard/pending-expert${url.search}`;
  const submission = await parseForm(request, approveExpertSchema);
  if (submission.status !== "success") return redirectWithError(back, t("experts.approveFailed"));
  try {
    await approveExpert(actor, submission.value.expertId, clientOf(context).ip);
  } catch (err) {
    if (!isDomainError(err)) throw err;
    return redirectWithError(back, `${t("experts.approveFailed")}: ${t(err.message)}`);
  }
  return redirectWithSuccess(back, t("experts.approved"));
}

type Row = ReturnType<typeof rowOf>;

function ApproveButton({ row }: { row: Row }) {
  const { t } = useTranslation();
  const navigation = useNavigation();
  const busy = navigation.state !== "idle" && navigation.formData?.get("expertId") === row._id;
  return (
    <Form method="post" preventScrollReset>
      <input type="hidden" name="expertId" value={row._id} />
      <button type="submit" className="btn-primary whitespace-nowrap" disabled={busy}>
        {busy ? t("experts.approving") : t("experts.approve")}
        <span className="sr-only"> {row.name}</span>
      </button>
    </Form>
  );
}

export default function PendingExperts() {
  const { t } = useTranslation();
  const { items, pagination } = useLoaderData<typeof loader>();
  const loading = useListLoading();
  const na = t("reports.notAvailable");

  const columns: Column<Row>[] = [
    {
      key: "name",
      header: t("experts.name"),
      cell: (r) => <span className="font-semibold">{r.name || na}</span>,
    },
    { key: "email", header: t("experts.email"), cell: (r) => <span className="break-all">{r.email}</span> },
    {
      key: "contact",
      header: t("experts.contact"),
      cell: (r) => <span className="whitespace-nowrap tabular-nums">{r.contact || na}</span>,
    },
    { key: "type", header: t("experts.accountType"), cell: (r) => t(roleKey(r.accountType)) },
    { key: "approve", header: t("reports.colAction"), cell: (r) => <ApproveButton row={r} /> },
  ];

  return (
    <section>
      <PageHeader title={t("experts.pendingTitle")} intro={t("experts.pendingIntro")} />
      {items.length === 0 ? (
        <EmptyState message={t("experts.noPending")} />
      ) : (
        <ResponsiveTable
          caption={t("experts.pendingTitle")}
          columns={columns}
          rows={items}
          rowKey={(r) => r._id}
          busy={loading}
          testId="pending-experts"
        />
      )}
      <Pager pagination={pagination} />
    </section>
  );
}
