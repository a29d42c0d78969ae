import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { useDateText } from "~/components/reports/LocalDate";
import { isDomainError } from "~/domain/platform/errors";
import { cancelErasure, cancelLinkLive } from "~/domain/rights/index.server";
import { tFor } from "~/i18n/i18n.server";
import { site } from "~/site";
import { guardForm } from "~/web/guard.server";
import { clientOf } from "~/web/request.server";

/**
 * The cancel link of an erasure notice (decision 0019): works without signing in. Opening it changes
 * nothing (mail scanners open links); the button posts, and the link then stops working.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const { t } = await tFor(request);
  const live = await cancelLinkLive(params.token ?? "");
  return data(
    { title: t("rights.cancelPageTitle"), dueAt: live?.dueAt ?? null },
    { headers: { "X-Robots-Tag": "noindex", "Cache-Control": "no-store" } },
  );
}

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `${data.title} | ${site.productName}` : site.productName },
  { name: "robots", content: "noindex" },
];

export async function action({ request, params, context }: ActionFunctionArgs) {
  await guardForm(request);
  try {
    await cancelErasure(null, { token: params.token ?? "" }, { ip: clientOf(context).ip });
  } catch (err) {
    // Not a screen helper's answer on purpose: every refusal reads the same here (the link no
    // longer cancels anything), with 404, so a used link and a made-up one look alike.
    if (!isDomainError(err)) throw err;
    return data({ done: false }, { status: 404, headers: { "Cache-Control": "no-store" } });
  }
  return data({ done: true }, { headers: { "Cache-Control": "no-store" } });
}

export default function CancelErasure() {
  const { t } = useTranslation();
  const { dueAt } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const navigation = useNavigation();
  const { dateTime } = useDateText();
  const busy = navigation.state === "submitting";
  let body: React.ReactNode;
  if (result?.done) {
    body = (
      <p role="status" className="mt-4 rounded-lg border border-green-300 bg-green-50 p-4 text-green-950">
        {t("rights.cancelPageDone")}
      </p>
    );
  } else if (result || !dueAt) {
    body = (
      <p role="alert" className="mt-4 rounded-lg border border-amber-300 bg-amber-50 p-4 text-amber-950">
        {t("rights.cancelLinkInvalid")}
      </p>
    );
  } else {
    body = (
      <>
        <p className="mt-4 text-lg text-slate-800">{t("rights.cancelPageText", { date: dateTime(dueAt) })}</p>
        <Form method="post" className="mt-6">
          <button type="submit" className="btn-primary w-full sm:w-auto" disabled={busy}>
            {t("rights.cancelPageButton")}
          </button>
        </Form>
      </>
    );
  }
  return (
    <main id="main" className="mx-auto w-full max-w-xl flex-1 px-4 py-10">
      <h1 className="text-2xl font-bold text-slate-900 sm:text-3xl">{t("rights.cancelPageTitle")}</h1>
      {body}
      <p className="mt-8">
        <Link to="/" className="link">
          {t("errors.backHome")}
        </Link>
      </p>
    </main>
  );
}
