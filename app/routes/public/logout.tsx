import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { Form, Link, useNavigation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { logout } from "~/domain/accounts/index.server";
import { actorFromCookie } from "~/web/session-cookie.server";
import { tFor } from "~/i18n/i18n.server";
import { useSignOutSubmit } from "~/offline/signout";
import { site } from "~/site";
import { clearSessionHeaders } from "~/web/auth.server";
import { guardForm } from "~/web/guard.server";
import { redirectWithSuccess } from "~/web/toast.server";

/** GET: the confirm page (what the dashboard's modal shows, for browsers without JavaScript). */
export async function loader({ request }: LoaderFunctionArgs) {
  if (!(await actorFromCookie(request))) throw redirect("/");
  const { t } = await tFor(request);
  return { title: t("accounts.logoutTitle") };
}

export const meta: MetaFunction<typeof loader> = ({ data, matches }) => [
  ...(matches.find((m) => m.id === "root")?.meta ?? []).filter((m) => !("title" in m)),
  { title: data ? `${data.title} | ${site.productName}` : site.productName },
];

/** POST: ends this session, clears the cookie and says so on the home page. */
export async function action({ request }: ActionFunctionArgs) {
  await guardForm(request);
  const actor = await actorFromCookie(request);
  const headers = await clearSessionHeaders();
  if (!actor) throw redirect("/", { headers });
  await logout(actor);
  const { t } = await tFor(request);
  return redirectWithSuccess("/", t("accounts.loggedOut"), { headers });
}

export default function Logout() {
  const { t } = useTranslation();
  const navigation = useNavigation();
  const busy = navigation.state !== "idle" && navigation.formAction === "/logout";
  // This phone forgets who was signed in here even with no service worker in control (0072).
  const onSubmit = useSignOutSubmit();
  return (
    <main id="main" className="flex flex-1 items-start justify-center px-3 py-10 sm:py-16">
      <div
        className="card w-full max-w-sm"
        role="group"
        aria-labelledby="logout-title"
        aria-describedby="logout-text"
      >
        <h1 id="logout-title" className="text-2xl font-bold text-slate-900">
          {t("accounts.logoutTitle")}
        </h1>
        <p id="logout-text" className="mt-2 text-slate-700">
          {t("accounts.logoutText")}
        </p>
        <div className="mt-6 flex flex-wrap justify-end gap-3">
          <Link to="/dashboard/home" className="btn-secondary">
            {t("common.cancel")}
          </Link>
          <Form method="post" action="/logout" onSubmit={onSubmit}>
            <button type="submit" className="btn-danger" disabled={busy}>
              {t("accounts.logoutButton")}
            </button>
          </Form>
        </div>
      </div>
    </main>
  );
}
