import {
  data,
  redirect,
  type ActionFunctionArgs,
  type HeadersFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import type { TFunction } from "i18next";
import {
  isShareRefusal,
  openShareLink,
  visitShareLink,
  type ShareLanding,
  type SharedView,
} from "~/domain/sharing/index.server";
import { tFor } from "~/i18n/i18n.server";
import { site } from "~/site";
import { readForm } from "~/web/forms.server";
import { guardForm } from "~/web/guard.server";
import { clientOf } from "~/web/request.server";
import { screenFailure } from "~/web/screen.server";
import { grantCookie, grantOf, SHARE_FORM_HEADERS, SHARE_PAGE_HEADERS } from "~/web/share-page.server";
import { Gone } from "./Gone";
import { Landing } from "./Landing";
import { View } from "./SharedView";

/**
 * The page a patient's sharing link opens: no account. First a landing page that shows
 * nothing of the patient — with the passcode field when the link has one — whose "Open" is a POST
 * (the passcode never travels in the address, and a messaging app fetching the link for a preview
 * opens nothing). The open is counted once; the browser then reads the page, the file and the
 * letter with the grant cookie. Not indexed, never stored, no referrer. The page's three states
 * are drawn beside it: `Landing.tsx` (the Open form, whose action is here), `SharedView.tsx`, `Gone.tsx`.
 */

type Refusal = { message: string; gone: boolean };

/**
 * A refused link as the page shows it: the link's own status (404, 410, 401) and whether it is
 * gone for good, or a rate limit (429, Retry-After). Anything else is rethrown.
 */
function refusalOf(err: unknown, t: TFunction) {
  const f = screenFailure(err, t);
  if (isShareRefusal(err)) {
    return { refusal: { message: f.message, gone: err.gone } as Refusal, status: err.status, headers: {} };
  }
  if (f.error.code === "rate_limited") {
    return { refusal: { message: f.message, gone: false } as Refusal, status: f.status, headers: f.headers };
  }
  throw err;
}

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const { t } = await tFor(request);
  const title = t("share.pageTitle");
  try {
    const token = params.token ?? "";
    const state = await visitShareLink(token, grantOf(request, token), clientOf(context));
    return data(
      { title, state: state as ShareLanding | SharedView, refusal: null as Refusal | null },
      { headers: state.kind === "landing" ? SHARE_FORM_HEADERS : SHARE_PAGE_HEADERS },
    );
  } catch (err) {
    const r = refusalOf(err, t);
    return data(
      { title, state: null, refusal: r.refusal },
      { status: r.status, headers: { ...SHARE_PAGE_HEADERS, ...r.headers } },
    );
  }
}

export async function action({ request, params, context }: ActionFunctionArgs) {
  await guardForm(request);
  const { t } = await tFor(request);
  const token = params.token ?? "";
  const form = await readForm(request);
  try {
    const grant = await openShareLink(
      token,
      { passcode: form.get("passcode") },
      grantOf(request, token),
      clientOf(context),
    );
    // Post/redirect/get: a reload shows the page, it does not send the passcode again.
    return redirect(`/s/${token}`, {
      status: 303,
      headers: { ...SHARE_PAGE_HEADERS, "Set-Cookie": grantCookie(token, grant) },
    });
  } catch (err) {
    const r = refusalOf(err, t);
    // The form is shown again (unless the link is gone): same-origin, as on the landing page.
    return data({ error: r.refusal }, { status: r.status, headers: { ...SHARE_FORM_HEADERS, ...r.headers } });
  }
}

export const headers: HeadersFunction = ({ loaderHeaders, actionHeaders }) => {
  const h = new Headers(SHARE_PAGE_HEADERS);
  loaderHeaders.forEach((v, k) => h.set(k, v));
  actionHeaders.forEach((v, k) => h.set(k, v));
  return h;
};

export const meta: MetaFunction<typeof loader> = ({ data: d }) => [
  { title: `${d?.title ?? ""} | ${site.productName}` },
  { name: "robots", content: "noindex, nofollow" },
  // As the Referrer-Policy header (see SHARE_FORM_HEADERS): the Open form needs its Origin.
  { name: "referrer", content: d?.state?.kind === "landing" ? "same-origin" : "no-referrer" },
];

export default function SharedReportPage() {
  const { state, refusal } = useLoaderData<typeof loader>();
  return (
    <main id="main" className="mx-auto w-full max-w-3xl flex-1 px-4 py-8 sm:py-10">
      {refusal || !state ? (
        <Gone message={refusal?.message ?? ""} gone={refusal?.gone ?? true} />
      ) : state.kind === "landing" ? (
        <Landing landing={state} />
      ) : (
        <View view={state} />
      )}
    </main>
  );
}
