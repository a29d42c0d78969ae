import type { SubmissionResult } from "@conform-to/react";
import { parseFormData } from "~/schemas/strict";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useLocation, useNavigation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { useServerForm } from "~/components/ui/useServerForm";
import { EmptyState } from "~/components/reports/EmptyState";
import { useDateText } from "~/components/reports/LocalDate";
import { PageHeader } from "~/components/reports/PageHeader";
import { Pager } from "~/components/reports/Pager";
import { roleKey } from "~/components/reports/people";
import {
  REQUEST_STATUS_KEYS,
  REQUEST_STATUS_TONES,
  REQUEST_TYPE_KEYS,
  StatusPill,
} from "~/components/rights/StatusPill";
import { TextAreaField } from "~/components/ui/Field";
import { FormError } from "~/components/ui/FormError";
import {
  listRightsRequests,
  resolveRightsRequest,
  type ApiRightsRequest,
} from "~/domain/rights/index.server";
import { tFor } from "~/i18n/i18n.server";
import { RESPONSE_MAX } from "~/schemas/limits";
import { resolveSchema, rightsQueueQuerySchema, type RightsQueueQuery } from "~/schemas/rights";
import { site } from "~/site";
import { pagination } from "~/web/api.server";
import { requireRole } from "~/web/auth.server";
import { formFailure, screenFailure, screenPage, toastFailure } from "~/web/screen.server";
import { readForm, safeRedirect } from "~/web/forms.server";
import { guardForm } from "~/web/guard.server";
import { clientOf } from "~/web/request.server";
import { redirectWithError, redirectWithSuccess } from "~/web/toast.server";
import { messageText } from "~/i18n/message";

/**
 * Admin: the rights requests queue (decision 0019). Filters are a GET form; answering is two steps —
 * "Mark done"/"Reject" with the answer shows what the person will read, "Send" resolves — both plain
 * POSTs, so the screen works without JavaScript. The rules live in rights.server.ts.
 */

const QUEUE = "/dashboard/rights-requests";

function filtersOf(request: Request): Required<Pick<RightsQueueQuery, "status">> & RightsQueueQuery {
  const q = new URL(request.url).searchParams;
  const parsed = rightsQueueQuerySchema.safeParse({
    status: q.get("status") || undefined,
    type: q.get("type") || undefined,
  });
  const f = parsed.success ? parsed.data : {};
  return { status: f.status ?? "open", type: f.type };
}

export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireRole(request, "Admin");
  const { t } = await tFor(request);
  const filters = filtersOf(request);
  const page = await listRightsRequests(actor, { ...screenPage(request), ...filters });
  return { title: t("rights.queueTitle"), filters, requests: page.items, pagination: pagination(page) };
}

export const meta: MetaFunction<typeof loader> = ({ data, matches }) => [
  ...(matches.find((m) => m.id === "root")?.meta ?? []).filter((m) => !("title" in m)),
  { title: data ? `${data.title} | ${site.productName}` : site.productName },
];

export async function action({ request, context }: ActionFunctionArgs) {
  await guardForm(request);
  const actor = await requireRole(request, "Admin");
  const { t } = await tFor(request);
  const formData = await readForm(request);
  const intent = String(formData.get("intent") ?? "");
  const requestId = String(formData.get("requestId") ?? "").slice(0, 100);
  const back = safeRedirect(formData.get("redirectTo"), QUEUE);
  const submission = parseFormData(formData, { schema: resolveSchema });
  if (submission.status !== "success") {
    return data({ requestId, confirm: false, result: submission.reply() }, { status: 400 });
  }
  if (intent === "preview") {
    // Step one: show the answer as the person will read it, and ask once more.
    return data({ requestId, confirm: true, result: submission.reply() });
  }
  if (intent !== "resolve") return redirectWithError(back, t("rights.unknownAction"));
  try {
    await resolveRightsRequest(actor, requestId, submission.value, { ip: clientOf(context).ip });
  } catch (err) {
    // A refusal of the answer itself goes back on the form; any other as a toast on the queue.
    if (screenFailure(err, t).fieldErrors) {
      return formFailure(err, t, (o) => submission.reply(o), {
        fieldsOnly: true,
        wrap: (result) => ({ requestId, confirm: false, result }),
      });
    }
    return toastFailure(err, t, back);
  }
  return redirectWithSuccess(back, t("rights.resolved"));
}

const STATUS_FILTERS = ["open", "done", "rejected", "cancelled", "all"] as const;

function Filters() {
  const { t } = useTranslation();
  const { filters } = useLoaderData<typeof loader>();
  return (
    <Form
      method="get"
      className="card mb-5 flex flex-wrap items-end gap-3"
      aria-label={t("rights.filtersLabel")}
    >
      <div className="min-w-36 flex-1">
        <label htmlFor="filter-status" className="field-label">
          {t("rights.filterStatus")}
        </label>
        <select id="filter-status" name="status" defaultValue={filters.status} className="field-input">
          {STATUS_FILTERS.map((s) => (
            <option key={s} value={s}>
              {s === "all" ? t("rights.filterAll") : t(REQUEST_STATUS_KEYS[s])}
            </option>
          ))}
        </select>
      </div>
      <div className="min-w-36 flex-1">
        <label htmlFor="filter-type" className="field-label">
          {t("rights.filterType")}
        </label>
        <select id="filter-type" name="type" defaultValue={filters.type ?? ""} className="field-input">
          <option value="">{t("rights.filterAll")}</option>
          <option value="correction">{t(REQUEST_TYPE_KEYS.correction)}</option>
          <option value="erasure">{t(REQUEST_TYPE_KEYS.erasure)}</option>
        </select>
      </div>
      <button type="submit" className="btn-secondary">
        {t("rights.filterApply")}
      </button>
    </Form>
  );
}

function ResolveForm({ request }: { request: ApiRightsRequest }) {
  const { t } = useTranslation();
  const location = useLocation();
  const navigation = useNavigation();
  const actionData = useActionData<typeof action>();
  const mine = actionData?.requestId === request._id ? actionData : undefined;
  const confirming = !!mine?.confirm;
  // Checked by the server alone (the preview step answers first): the screen loads no zod (decision 0094).
  const [form, fields] = useServerForm(
    mine?.result as SubmissionResult<string[]> | undefined,
    ["status", "response"],
    { id: `resolve-${request._id}` },
  );
  const busy = navigation.state === "submitting" && navigation.formData?.get("requestId") === request._id;
  const redirectTo = location.pathname + location.search;
  const chosen = String(fields.status.initialValue ?? "");
  const response = String(fields.response.initialValue ?? "");

  if (confirming && (chosen === "done" || chosen === "rejected")) {
    return (
      <div
        role="alertdialog"
        aria-labelledby={`confirm-${request._id}`}
        className="mt-3 rounded-lg border border-amber-300 bg-amber-50 p-4"
      >
        <p id={`confirm-${request._id}`} className="font-bold text-amber-950">
          {t(chosen === "done" ? "rights.confirmDoneTitle" : "rights.confirmRejectTitle")}
        </p>
        <p className="mt-1 text-sm text-amber-950">{t("rights.confirmText")}</p>
        <blockquote className="mt-2 border-l-4 border-amber-400 pl-3 break-words whitespace-pre-line text-slate-900">
          {response}
        </blockquote>
        <Form method="post" className="mt-3 flex flex-wrap gap-3">
          <input type="hidden" name="intent" value="resolve" />
          <input type="hidden" name="requestId" value={request._id} />
          <input type="hidden" name="status" value={chosen} />
          <input type="hidden" name="response" value={response} />
          <input type="hidden" name="redirectTo" value={redirectTo} />
          <button type="submit" className={chosen === "done" ? "btn-primary" : "btn-danger"} disabled={busy}>
            {t("rights.confirmButton")}
          </button>
          <Link to={`${redirectTo}#request-${request._id}`} className="btn-secondary">
            {t("common.cancel")}
          </Link>
        </Form>
      </div>
    );
  }

  return (
    <Form method="post" {...form.props} noValidate className="mt-3">
      <input type="hidden" name="intent" value="preview" />
      <input type="hidden" name="requestId" value={request._id} />
      <input type="hidden" name="redirectTo" value={redirectTo} />
      <FormError id={form.errorId} errors={form.errors} />
      <TextAreaField
        meta={fields.response}
        label={t("rights.responseLabel")}
        required
        maxLength={RESPONSE_MAX}
        rows={3}
      />
      {fields.status.errors?.length ? (
        <p className="field-error" role="alert">
          {messageText(t, fields.status.errors[0])}
        </p>
      ) : null}
      <div className="mt-3 flex flex-wrap justify-end gap-3">
        {request.type === "correction" && (
          <button type="submit" name="status" value="done" className="btn-primary" disabled={busy}>
            {t("rights.markDone")}
          </button>
        )}
        <button type="submit" name="status" value="rejected" className="btn-secondary" disabled={busy}>
          {t("rights.reject")}
        </button>
      </div>
    </Form>
  );
}

function RequestCard({ r }: { r: ApiRightsRequest }) {
  const { t } = useTranslation();
  const { dateTime } = useDateText();
  const who = r.user ? `${r.user.firstName} ${r.user.lastName}`.trim() : t("rights.erasedPerson");
  return (
    <li id={`request-${r._id}`} className="card scroll-mt-4" data-request={r._id}>
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div className="min-w-0">
          <p className="text-lg font-bold text-slate-900">{t(REQUEST_TYPE_KEYS[r.type])}</p>
          <p className="text-sm break-words text-slate-700">
            {t("rights.requester")}: {who}
            {r.user && (
              <>
                {" · "}
                {t(roleKey(r.user.accountType))}
              </>
            )}
          </p>
          {r.user?.email && <p className="text-sm break-all text-slate-600">{r.user.email}</p>}
        </div>
        <StatusPill tone={REQUEST_STATUS_TONES[r.status]}>{t(REQUEST_STATUS_KEYS[r.status])}</StatusPill>
      </div>
      <p className="mt-1 text-sm text-slate-600">
        {t("rights.askedOn", { date: dateTime(r.createdAt) })}
        {r.type === "erasure" && r.status === "open" && r.dueAt
          ? ` · ${t("rights.dueOn", { date: dateTime(r.dueAt) })}`
          : ""}
      </p>
      {r.type === "erasure" && r.status === "open" && (
        <p className="mt-2 text-sm text-slate-700">{t("rights.erasureQueueNote")}</p>
      )}
      {r.details && (
        <p className="mt-2 rounded-lg bg-slate-50 p-3 break-words whitespace-pre-line text-slate-900">
          {r.details}
        </p>
      )}
      {r.response && (
        <div className="mt-2 rounded-lg bg-brand-50 p-3">
          <p className="text-sm font-semibold text-brand-800">
            {t("rights.answerLabel")}
            {r.resolvedAt ? ` · ${dateTime(r.resolvedAt)}` : ""}
            {r.resolvedBy
              ? ` · ${t("rights.resolvedBy", { name: `${r.resolvedBy.firstName} ${r.resolvedBy.lastName}`.trim() })}`
              : ""}
          </p>
          <p className="mt-1 break-words whitespace-pre-line">{r.response}</p>
        </div>
      )}
      {r.status === "open" && <ResolveForm request={r} />}
    </li>
  );
}

export default function RightsRequests() {
  const { t } = useTranslation();
  const { requests, pagination: pageInfo } = useLoaderData<typeof loader>();
  return (
    <div>
      <PageHeader title={t("rights.queueTitle")} intro={t("rights.queueIntro")} />
      <Filters />
      {requests.length === 0 ? (
        <EmptyState message={t("rights.queueEmpty")} />
      ) : (
        <ul className="space-y-4">
          {requests.map((r) => (
            <RequestCard key={r._id} r={r} />
          ))}
        </ul>
      )}
      <Pager pagination={pageInfo} />
    </div>
  );
}
