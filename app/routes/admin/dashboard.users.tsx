import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { EmptyState } from "~/components/reports/EmptyState";
import { PageHeader } from "~/components/reports/PageHeader";
import { Pager } from "~/components/reports/Pager";
import { roleKey } from "~/components/reports/people";
import { screenPage, toastFailure } from "~/web/screen.server";
import { resetTwoFactor, twoFactorUserIds, listUsers, setSuspended } from "~/domain/accounts/index.server";
import { tFor } from "~/i18n/i18n.server";
import { proofFromText } from "~/schemas/two-factor";
import { pagination } from "~/web/api.server";
import { requireRole } from "~/web/auth.server";
import { readForm, safeRedirect } from "~/web/forms.server";
import { guardForm } from "~/web/guard.server";
import { clientOf } from "~/web/request.server";
import { redirectWithSuccess } from "~/web/toast.server";

/** Admin: every account, with suspension (sessions end at once; login is refused) and its lifting. */
export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireRole(request, "Admin");
  // A page number that is not one shows the first page (it was a 500).
  const page = await listUsers(actor, screenPage(request));
  // Two-step login: who has it on, and whose reset is being confirmed (?reset=<id>).
  const withTwoFactor = await twoFactorUserIds(page.items.map((u) => u.id));
  const url = new URL(request.url);
  return {
    me: actor.id,
    confirmReset: url.searchParams.get("reset"),
    here: page.page > 1 ? `/dashboard/users?page=${page.page}` : "/dashboard/users",
    users: page.items.map((u) => ({
      id: u.id,
      name: `${u.firstName} ${u.lastName}`.trim(),
      email: u.email,
      accountType: u.accountType,
      approved: u.approved,
      suspended: !!u.suspendedAt,
      twoFactor: withTwoFactor.has(u.id),
    })),
    pagination: pagination(page),
  };
}

export async function action({ request, context }: ActionFunctionArgs) {
  await guardForm(request);
  const actor = await requireRole(request, "Admin");
  const form = await readForm(request);
  const { t } = await tFor(request);
  const back = safeRedirect(form.get("redirectTo"), "/dashboard/users");
  if (form.get("intent") === "reset-2fa") {
    const userId = String(form.get("userId") ?? "");
    // Another admin's factor: the acting admin's own password and code.
    const proof = {
      password: String(form.get("password") ?? ""),
      ...proofFromText(String(form.get("proof") ?? "")),
    };
    try {
      await resetTwoFactor(actor, userId, clientOf(context), proof);
    } catch (err) {
      // Back to the open confirmation, so the admin can try again.
      const again = /^[a-f0-9]{24}$/.test(userId)
        ? `${back}${back.includes("?") ? "&" : "?"}reset=${userId}`
        : back;
      return toastFailure(err, t, again);
    }
    return redirectWithSuccess(back, t("mfa.resetDone"));
  }
  const suspend = form.get("intent") === "suspend";
  try {
    await setSuspended(actor, String(form.get("userId") ?? ""), suspend);
  } catch (err) {
    return toastFailure(err, t, back);
  }
  return redirectWithSuccess(back, t(suspend ? "users.suspended" : "users.reinstated"));
}

export default function Users() {
  const { t } = useTranslation();
  const { users, pagination: pageInfo, me, confirmReset, here } = useLoaderData<typeof loader>();
  const sep = here.includes("?") ? "&" : "?";
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
                  {(u.accountType === "Expert" || u.accountType === "HealthWorker") && !u.approved
                    ? ` · ${t("users.unapproved")}`
                    : ""}
                  {u.suspended && (
                    <span className="ml-2 rounded bg-red-100 px-2 py-0.5 text-xs font-bold text-red-800">
                      {t("users.suspendedBadge")}
                    </span>
                  )}
                  {u.twoFactor && (
                    <span className="ml-2 rounded bg-green-100 px-2 py-0.5 text-xs font-bold text-green-800">
                      {t("mfa.onBadge")}
                    </span>
                  )}
                </p>
              </div>
              {u.twoFactor && u.id !== me && confirmReset !== u.id && (
                <Link to={`${here}${sep}reset=${u.id}`} className="btn-secondary" preventScrollReset>
                  {t("mfa.resetButton")}
                </Link>
              )}
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
              {u.twoFactor && u.id !== me && confirmReset === u.id && (
                <div
                  role="group"
                  aria-labelledby={`reset-title-${u.id}`}
                  className="w-full rounded-lg border border-amber-300 bg-amber-50 p-4"
                >
                  <h2 id={`reset-title-${u.id}`} className="font-bold text-slate-900">
                    {t("mfa.resetConfirmTitle", { name: u.name || u.email })}
                  </h2>
                  <p className="mt-1 max-w-prose text-slate-800">{t("mfa.resetConfirmText")}</p>
                  <Form method="post" className="mt-3 space-y-3">
                    <input type="hidden" name="userId" value={u.id} />
                    <input type="hidden" name="redirectTo" value={here} />
                    {u.accountType === "Admin" && (
                      <>
                        <p id={`reauth-hint-${u.id}`} className="max-w-prose font-semibold text-slate-900">
                          {t("mfa.adminReauthHint")}
                        </p>
                        <div className="max-w-xs">
                          <label htmlFor={`reauth-password-${u.id}`} className="field-label">
                            {t("accounts.password")}
                          </label>
                          <input
                            id={`reauth-password-${u.id}`}
                            name="password"
                            type="password"
                            className="field-input"
                            autoComplete="current-password"
                            maxLength={128}
                            required
                            aria-describedby={`reauth-hint-${u.id}`}
                          />
                        </div>
                        <div className="max-w-xs">
                          <label htmlFor={`reauth-proof-${u.id}`} className="field-label">
                            {t("mfa.proofLabel")}
                          </label>
                          <input
                            id={`reauth-proof-${u.id}`}
                            name="proof"
                            className="field-input font-mono"
                            autoComplete="one-time-code"
                            autoCapitalize="none"
                            spellCheck={false}
                            maxLength={40}
                            aria-describedby={`reauth-proof-${u.id}-hint`}
                          />
                          <p id={`reauth-proof-${u.id}-hint`} className="mt-1 text-sm text-slate-600">
                            {t("mfa.proofHint")}
                          </p>
                        </div>
                      </>
                    )}
                    <div className="flex flex-wrap gap-3">
                      <button type="submit" name="intent" value="reset-2fa" className="btn-danger">
                        {t("mfa.resetConfirmButton")}
                      </button>
                      <Link to={here} className="btn-secondary" preventScrollReset>
                        {t("common.cancel")}
                      </Link>
                    </div>
                  </Form>
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
      <Pager pagination={pageInfo} />
    </div>
  );
}
