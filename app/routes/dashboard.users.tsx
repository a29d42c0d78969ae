import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Form, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { EmptyState } from "~/components/reports/EmptyState";
import { PageHeader } from "~/components/reports/PageHeader";
import { Pager } from "~/components/reports/Pager";
import { roleKey } from "~/components/reports/people";
import { isDomainError } from "~/domain/errors";
import { listUsers, setSuspended } from "~/domain/users.server";
import { tFor } from "~/i18n/i18n.server";
import { pageQuery, pagination } from "~/utils/api.server";
import { requireRole } from "~/utils/auth.server";
import { readForm, safeRedirect } from "~/utils/forms.server";
import { guardForm } from "~/utils/guard.server";
import { redirectWithError, redirectWithSuccess } from "~/utils/toast.server";

/** Admin: every account, with suspension (sessions end at once; login is refused) and its lifting. */
export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireRole(request, "Admin");
  const page = await listUsers(actor, pageQuery(request));
  return {
    me: actor.id,
    users: page.items.map((u) => ({
      id: u.id,
      name: `${u.firstName} ${u.lastName}`.trim(),
      email: u.email,
      accountType: u.accountType,
      approved: u.approved,
      suspended: !!u.suspendedAt,
    })),
    pagination: pagination(page),
  };
}

export async function action({ request }: ActionFunctionArgs) {
  await guardForm(request);
  const actor = await requireRole(request, "Admin");
  const form = await readForm(request);
  const { t } = await tFor(request);
  const back = safeRedirect(form.get("redirectTo"), "/dashboard/users");
  const suspend = form.get("intent") === "suspend";
  try {
    await setSuspended(actor, String(form.get("userId") ?? ""), suspend);
  } catch (err) {
    if (!isDomainError(err)) throw err;
    return redirectWithError(back, t(err.message));
  }
  return redirectWithSuccess(back, t(suspend ? "users.suspended" : "users.reinstated"));
}

export default function Users() {
  const { t } = useTranslation();
  const { users, pagination: pageInfo, me } = useLoaderData<typeof loader>();
  return (
    <div>
      <PageHeader title={t("users.title")} intro={t("users.intro")} />
      {users.length === 0 ? (
        <EmptyState message={t("users.none")} />
      ) : (
        <ul className="space-y-3">
          {users.map((u) => (
            <li key={u.id} className="card flex flex-wrap items-center gap-3">
              <div className="min-w-0 flex-1">
                <p className="font-semibold break-words">{u.name}</p>
                <p className="text-sm break-all text-slate-600">{u.email}</p>
                <p className="text-sm text-slate-600">
                  {t(roleKey(u.accountType))}
                  {u.accountType === "Expert" && !u.approved ? ` · ${t("users.unapproved")}` : ""}
                  {u.suspended && (
                    <span className="ml-2 rounded bg-red-100 px-2 py-0.5 text-xs font-bold text-red-800">
                      {t("users.suspendedBadge")}
                    </span>
                  )}
                </p>
              </div>
              {u.id !== me && (
                <Form method="post">
                  <input type="hidden" name="userId" value={u.id} />
                  <button
                    type="submit"
                    name="intent"
                    value={u.suspended ? "reinstate" : "suspend"}
                    className={u.suspended ? "btn-secondary" : "btn-danger"}
                  >
                    {u.suspended ? t("users.reinstate") : t("users.suspend")}
                  </button>
                </Form>
              )}
            </li>
          ))}
        </ul>
      )}
      <Pager pagination={pageInfo} />
    </div>
  );
}
