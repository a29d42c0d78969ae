import {
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Form, useLoaderData, useNavigation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { useListLoading } from "~/components/reports/useListLoading";
import { EmptyState } from "~/components/reports/EmptyState";
import { screenMeta } from "~/components/reports/meta";
import { PageHeader } from "~/components/reports/PageHeader";
import { contactOf, roleKey } from "~/components/reports/people";
import { Pager } from "~/components/reports/Pager";
import { ResponsiveTable, type Column } from "~/components/reports/ResponsiveTable";
import { pageError, pageInfo, screenPage, toastFailure } from "~/web/screen.server";
import {
  approveExpert,
  listPendingExperts,
  rejectExpert,
  type ApiUser,
} from "~/domain/accounts/index.server";
import { SPECIALTY_KEYS, type Specialty } from "~/schemas/specialties";
import { rejectExpertSchema } from "~/schemas/experts";
import { REJECTION_MAX } from "~/schemas/limits";
import { parseFormData } from "~/schemas/strict";
import { tFor } from "~/i18n/i18n.server";
import { approveExpertSchema } from "~/schemas/reports";
import { requireRole } from "~/web/auth.server";
import { readForm } from "~/web/forms.server";
import { guardForm } from "~/web/guard.server";
import { clientOf } from "~/web/request.server";
import { redirectWithError, redirectWithSuccess } from "~/web/toast.server";

function rowOf(u: ApiUser) {
  const d = u.expertDetails;
  return {
    _id: u._id,
    name: `${u.firstName} ${u.lastName}`.trim(),
    email: u.email,
    contact: contactOf(u),
    accountType: u.accountType,
    specialties: d?.specialties ?? [],
    registrationNumber: d?.registrationNumber ?? "",
    registrationCouncil: d?.registrationCouncil ?? "",
    yearsOfPractice: d?.yearsOfPractice ?? null,
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
  const form = await readForm(request);
  if (form.get("intent") === "reject") {
    const submission = parseFormData(form, { schema: rejectExpertSchema });
    if (submission.status !== "success") {
      const first = Object.values(submission.error ?? {}).flat()[0];
      return redirectWithError(back, t(first ?? "experts.rejectReasonRequired"));
    }
    try {
      await rejectExpert(actor, submission.value, clientOf(context).ip);
    } catch (err) {
      return toastFailure(err, t, back);
    }
    return redirectWithSuccess(back, t("experts.rejected"));
  }
  const submission = parseFormData(form, { schema: approveExpertSchema });
  if (submission.status !== "success") return redirectWithError(back, t("experts.approveFailed"));
  try {
    await approveExpert(actor, submission.value.expertId, clientOf(context).ip);
  } catch (err) {
    return toastFailure(err, t, back, { prefixKey: "experts.approveFailed" });
  }
  return redirectWithSuccess(back, t("experts.approved"));
}

type Row = ReturnType<typeof rowOf>;

function ApproveButton({ row }: { row: Row }) {
  const { t } = useTranslation();
  const navigation = useNavigation();
  const mine = navigation.state !== "idle" && navigation.formData?.get("expertId") === row._id;
  const busy = mine && navigation.formData?.get("intent") !== "reject";
  const rejecting = mine && navigation.formData?.get("intent") === "reject";
  const reasonId = `reject-reason-${row._id}`;
  return (
    <div className="flex flex-col gap-2">
      <Form method="post" preventScrollReset>
        <input type="hidden" name="expertId" value={row._id} />
        <button type="submit" className="btn-primary w-full whitespace-nowrap" disabled={mine}>
          {busy ? t("experts.approving") : t("experts.approve")}
          <span className="sr-only"> {row.name}</span>
        </button>
      </Form>
      {/* Rejecting asks for a reason, which the expert reads in an e-mail (works without JavaScript). */}
      <details className="group rounded-lg border border-slate-200">
        <summary className="btn-secondary w-full cursor-pointer list-none whitespace-nowrap">
          {t("experts.reject")}
          <span className="sr-only"> {row.name}</span>
        </summary>
        <Form method="post" preventScrollReset className="space-y-2 p-2">
          <input type="hidden" name="intent" value="reject" />
          <input type="hidden" name="expertId" value={row._id} />
          <label htmlFor={reasonId} className="field-label">
            {t("experts.rejectReasonLabel")}
          </label>
          <textarea
            id={reasonId}
            name="reason"
            required
            maxLength={REJECTION_MAX}
            aria-describedby={`${reasonId}-hint`}
            className="field-input min-h-20"
          />
          <p id={`${reasonId}-hint`} className="text-sm text-slate-600">
            {t("experts.rejectReasonHint")}
          </p>
          <button type="submit" className="btn-danger w-full whitespace-nowrap" disabled={mine}>
            {rejecting ? t("experts.rejecting") : t("experts.reject")}
          </button>
        </Form>
      </details>
    </div>
  );
}

function Specialties({ row }: { row: Row }) {
  const { t } = useTranslation();
  if (!row.specialties.length) return <span className="text-slate-600">{t("experts.notProvided")}</span>;
  return (
    <ul className="flex flex-wrap gap-1">
      {row.specialties.map((s) => (
        <li key={s} className="rounded-full bg-brand-50 px-2 py-0.5 text-sm text-brand-800">
          {t(SPECIALTY_KEYS[s as Specialty] ?? s)}
        </li>
      ))}
    </ul>
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
    {
      key: "verification",
      header: t("experts.detailsTitle"),
      // Specialties, then registration number, council and years of practice.
      cell: (r) => (
        <div className="min-w-48 space-y-1">
          <Specialties row={r} />
          {r.registrationNumber ? (
            <p className="text-sm">
              <span className="font-semibold break-all">
                {t("opinion.regNo")} {r.registrationNumber}
              </span>
              {r.registrationCouncil && <span className="block text-slate-700">{r.registrationCouncil}</span>}
              {r.yearsOfPractice !== null && (
                <span className="block text-slate-700">
                  {t("experts.yearsOfPractice")}: {r.yearsOfPractice}
                </span>
              )}
            </p>
          ) : (
            <p className="text-sm text-slate-600">
              {t("experts.registrationNumber")}: {t("experts.notProvided")}
            </p>
          )}
        </div>
      ),
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
