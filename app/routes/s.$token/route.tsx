import {
  data,
  redirect,
  type ActionFunctionArgs,
  type HeadersFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation, useParams } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { useDateText } from "~/components/reports/LocalDate";
import { Opinion } from "~/components/reports/Opinion";
import { useReportTypeLabel } from "~/components/reports/ReportTypeSelect";
import { DocumentIcon } from "~/components/ui/Icon";
import { isDomainError } from "~/domain/platform/errors";
import {
  isShareRefusal,
  openShareLink,
  visitShareLink,
  type ShareLanding,
  type SharedView,
} from "~/domain/sharing/index.server";
import { tFor } from "~/i18n/i18n.server";
import { site } from "~/site";
import { readForm } from "~/utils/forms.server";
import { guardForm } from "~/utils/guard.server";
import { clientOf } from "~/utils/request.server";
import { grantCookie, grantOf, SHARE_FORM_HEADERS, SHARE_PAGE_HEADERS } from "~/utils/share-page.server";

/**
 * The page a patient's sharing link opens (issue 14): no account. First a landing page that shows
 * nothing of the patient — with the passcode field when the link has one — whose "Open" is a POST
 * (the passcode never travels in the address, and a messaging app fetching the link for a preview
 * opens nothing). The open is counted once; the browser then reads the page, the file and the
 * letter with the grant cookie. Not indexed, never stored, no referrer.
 */

type Refusal = { message: string; gone: boolean };

function refusalOf(err: unknown, t: (k: string, v?: Record<string, unknown>) => string) {
  if (isShareRefusal(err)) {
    return {
      refusal: { message: t(err.message, err.extra.values ?? {}), gone: err.gone } as Refusal,
      status: err.status,
      headers: {} as Record<string, string>,
    };
  }
  if (isDomainError(err) && err.code === "rate_limited") {
    const seconds = err.extra.retryAfterSeconds ?? 60;
    return {
      refusal: { message: t(err.message, { seconds, ...(err.extra.values ?? {}) }), gone: false },
      status: 429,
      headers: { "Retry-After": String(seconds) } as Record<string, string>,
    };
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

function Gone({ message, gone }: { message: string; gone: boolean }) {
  const { t } = useTranslation();
  return (
    <section>
      <h1 className="text-2xl font-bold text-slate-900 sm:text-3xl">
        {gone ? t("share.goneTitle") : t("share.pageTitle")}
      </h1>
      <p
        role="alert"
        data-testid="share-refusal"
        className="mt-6 rounded-lg border-2 border-amber-500 bg-amber-50 p-4 font-semibold text-amber-950"
      >
        {message}
      </p>
      {gone && <p className="mt-4 text-slate-700">{t("share.goneHint")}</p>}
    </section>
  );
}

function Landing({ landing }: { landing: ShareLanding }) {
  const { t } = useTranslation();
  const dates = useDateText();
  const answer = useActionData<typeof action>();
  const navigation = useNavigation();
  const busy = navigation.state !== "idle" && navigation.formMethod?.toUpperCase() === "POST";
  const error = answer && "error" in answer ? answer.error : null;
  return (
    <section aria-labelledby="share-landing-title">
      <h1 id="share-landing-title" className="text-2xl font-bold text-slate-900 sm:text-3xl">
        {t("share.landingTitle")}
      </h1>
      <p className="mt-3 max-w-prose text-slate-700">
        {t("share.landingIntro", { product: site.productName })}
      </p>
      <p className="mt-2 text-slate-700">
        {t("share.landingUntil", { date: dates.dateTime(landing.expiresAt) })}
      </p>
      <Form method="post" className="card mt-6 space-y-4" data-testid="share-open-form">
        {landing.passcode && (
          <div>
            <p id="share-passcode-hint" className="mb-3 text-slate-700">
              {t("share.landingPasscode")}
            </p>
            <label htmlFor="share-passcode" className="field-label">
              {t("share.passcodeField")}
            </label>
            <input
              id="share-passcode"
              name="passcode"
              type="text"
              required
              maxLength={200}
              autoComplete="off"
              autoCapitalize="none"
              autoCorrect="off"
              spellCheck={false}
              aria-describedby={error ? "share-passcode-hint share-open-error" : "share-passcode-hint"}
              aria-invalid={error ? true : undefined}
              className="field-input font-mono tracking-wider sm:max-w-xs"
            />
          </div>
        )}
        {error && (
          <p
            id="share-open-error"
            role="alert"
            data-testid="share-open-error"
            className="rounded-lg border border-red-300 bg-red-50 px-3 py-2 font-semibold text-red-800"
          >
            {error.message}
          </p>
        )}
        <button type="submit" className="btn-primary w-full sm:w-auto" disabled={busy}>
          {busy ? t("share.opening") : t("share.open")}
        </button>
      </Form>
    </section>
  );
}

function View({ view }: { view: SharedView }) {
  const { t } = useTranslation();
  const dates = useDateText();
  const typeLabel = useReportTypeLabel();
  const { token } = useParams();
  const base = `/s/${token ?? ""}`;
  const type = typeLabel(view.reportType);
  return (
    <article aria-labelledby="share-view-title" data-testid="shared-report">
      <h1 id="share-view-title" className="text-2xl font-bold break-words text-slate-900 sm:text-3xl">
        {t("share.viewTitle", { name: view.patientName })}
      </h1>
      <p className="mt-2 max-w-prose text-slate-700">
        {t("share.viewIntro", { product: site.productName, date: dates.dateTime(view.expiresAt) })}
      </p>

      <section aria-labelledby="share-report" className="card mt-6">
        <h2 id="share-report" className="text-lg font-bold text-slate-900">
          {t("share.reportSection")}: {type}
        </h2>
        <p className="text-sm text-slate-600">
          <time dateTime={view.submittedAt}>
            {t("reports.submittedOn", { date: dates.day(view.submittedAt) })}
          </time>
        </p>
        {view.file &&
          (view.file.isPdf ? (
            <a
              href={`${base}/file`}
              target="_blank"
              rel="noopener noreferrer"
              className="btn-secondary mt-4"
              data-testid="shared-file"
            >
              <DocumentIcon />
              {t("share.viewFile")}
              <span className="sr-only"> {t("reports.opensInNewTab")}</span>
            </a>
          ) : (
            <a
              href={`${base}/file`}
              target="_blank"
              rel="noopener noreferrer"
              className="mt-4 block"
              data-testid="shared-file"
            >
              <img
                src={`${base}/file`}
                decoding="async"
                alt={t("reports.imageAlt", { type })}
                className="aspect-[4/3] w-full rounded-lg border border-slate-200 bg-slate-100 object-contain"
              />
              <span className="link mt-2 inline-block">
                {t("share.viewImage")}
                <span className="sr-only"> {t("reports.opensInNewTab")}</span>
              </span>
            </a>
          ))}
      </section>

      {(view.opinion || view.opinionPending) && (
        <section aria-labelledby="share-opinion" className="card mt-4">
          <h2 id="share-opinion" className="text-lg font-bold text-slate-900">
            {t("share.opinionSection")}
          </h2>
          {view.opinion ? (
            <>
              {view.reviewedAt && (
                <p className="mb-3 text-sm text-slate-600">
                  <time dateTime={view.reviewedAt}>
                    {t("share.reviewedOn", { date: dates.day(view.reviewedAt) })}
                  </time>
                </p>
              )}
              <div className="rounded-lg border border-green-200 bg-green-50 p-3">
                <Opinion opinion={view.opinion} />
              </div>
            </>
          ) : (
            <p className="mt-2 text-slate-700" data-testid="opinion-pending">
              {t("share.opinionPending")}
            </p>
          )}
        </section>
      )}

      {view.letter && (
        <section aria-labelledby="share-letter" className="card mt-4">
          <h2 id="share-letter" className="text-lg font-bold text-slate-900">
            {t("share.letterSection")}
          </h2>
          <a href={`${base}/letter.pdf`} className="btn-secondary mt-3" download data-testid="shared-letter">
            {t("share.downloadLetter")}
          </a>
        </section>
      )}
    </article>
  );
}
