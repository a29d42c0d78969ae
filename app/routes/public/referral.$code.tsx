import {
  data,
  type ActionFunctionArgs,
  type HeadersFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { acknowledgeReferral, openReferral, type ReferralView } from "~/domain/consultation/index.server";
import { useTranslation } from "~/i18n/useTranslation";
import { tFor } from "~/i18n/i18n.server";
import { formatDay } from "~/lib/format";
import { site } from "~/site";
import { clientOf } from "~/web/request.server";
import { screenFailure } from "~/web/screen.server";

/**
 * Public (decision 0114): a facility opens the referral a patient brings. Nothing about her shows
 * until the code and her year of birth are given together (POST); then the least the facility
 * needs — her first name's initial, where and how soon, why — and a way to say it has seen her,
 * with an optional note. A wrong code and a wrong year get the same answer; wrong tries are
 * limited per address and per code (the domain decides).
 */
const HEADERS = {
  "X-Robots-Tag": "noindex",
  "Cache-Control": "no-store",
  // The address holds the code: no other site is sent it as a referrer. Not "no-referrer": under it
  // a browser posts the page's form with `Origin: null` (before the page's script runs, or without
  // it), which the cross-site check refuses — as for a shared report's Open form (SHARE_FORM_HEADERS).
  "Referrer-Policy": "same-origin",
};

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { t } = await tFor(request);
  return data(
    { title: t("referral.title"), code: String(params.code ?? "").slice(0, 40) },
    { headers: HEADERS },
  );
}

type ActionData = {
  referral: (ReferralView & { dueText: string; seenText: string | null }) | null;
  birthYear: string;
  error: string | null;
  fieldErrors: Record<string, string[]>;
  acknowledged: boolean;
};

export async function action({ request, params, context }: ActionFunctionArgs) {
  const { t, locale } = await tFor(request);
  const form = await request.formData();
  const year = String(form.get("birthYear") ?? "").trim();
  const input = {
    birthYear: /^\d{1,4}$/.test(year) ? Number(year) : year === "" ? undefined : year,
    note: String(form.get("note") ?? "").slice(0, 2000) || null,
  };
  const ack = form.get("intent") === "ack";
  const base: ActionData = {
    referral: null,
    birthYear: year.slice(0, 4),
    error: null,
    fieldErrors: {},
    acknowledged: false,
  };
  try {
    const found = ack
      ? await acknowledgeReferral(params.code, input, clientOf(context))
      : await openReferral(params.code, input, clientOf(context));
    return data<ActionData>(
      {
        ...base,
        acknowledged: ack,
        referral: {
          ...found,
          dueText: formatDay(`${found.dueOn}T12:00:00Z`, locale),
          seenText: found.seenAt ? formatDay(found.seenAt, locale) : null,
        },
      },
      { headers: HEADERS },
    );
  } catch (err) {
    const f = screenFailure(err, t);
    const fieldErrors = Object.fromEntries(
      Object.entries(f.fieldErrors ?? {}).map(([k, v]) => [k, v.map((m) => t(m))]),
    );
    return data<ActionData>(
      { ...base, error: f.message, fieldErrors },
      { status: f.status, headers: { ...HEADERS, ...f.headers } },
    );
  }
}

export const headers: HeadersFunction = ({ loaderHeaders, actionHeaders }) => {
  const h = new Headers(loaderHeaders);
  actionHeaders.forEach((v, k) => h.set(k, v));
  return h;
};

export const meta: MetaFunction<typeof loader> = ({ data: d }) => [
  { title: `${d?.title ?? ""} | ${site.productName}` },
  { name: "robots", content: "noindex" },
];

export default function Referral() {
  const { t } = useTranslation();
  const { code } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const busy = useNavigation().state !== "idle";
  const r = result?.referral ?? null;
  const urgency = (u: string | null) =>
    u === "today"
      ? t("referral.urgencyToday")
      : u === "week"
        ? t("referral.urgencyWeek")
        : t("referral.urgencySoon");
  return (
    <main id="main" className="mx-auto w-full max-w-xl flex-1 px-4 py-8">
      <h1 className="text-2xl font-bold break-words sm:text-3xl">{t("referral.title")}</h1>
      <p className="mt-2 text-slate-700">{t("referral.intro", { product: site.productName })}</p>
      <p className="mt-3 font-mono text-lg tracking-wider break-all" data-testid="referral-code">
        {code}
      </p>
      {result?.error && (
        <p
          role="alert"
          data-testid="referral-error"
          className="mt-4 rounded-lg border-2 border-red-600 bg-red-50 p-4 font-semibold text-red-900"
        >
          {result.error}
        </p>
      )}
      {!r ? (
        <Form method="post" className="card mt-6 space-y-4" data-testid="referral-check">
          <input type="hidden" name="intent" value="open" />
          <div>
            <label htmlFor="referral-year" className="field-label">
              {t("referral.birthYearLabel")}
            </label>
            <input
              id="referral-year"
              name="birthYear"
              inputMode="numeric"
              pattern="[0-9]{4}"
              maxLength={4}
              required
              autoComplete="off"
              defaultValue={result?.birthYear ?? ""}
              aria-describedby="referral-year-hint"
              className="field-input w-32"
            />
            <p id="referral-year-hint" className="mt-1 text-sm text-slate-700">
              {t("referral.birthYearHint")}
            </p>
            {result?.fieldErrors.birthYear?.map((m) => (
              <p key={m} className="mt-1 text-sm font-semibold text-red-700">
                {m}
              </p>
            ))}
          </div>
          <button type="submit" className="btn-primary w-full sm:w-auto" disabled={busy}>
            {busy ? t("referral.opening") : t("referral.open")}
          </button>
        </Form>
      ) : (
        <>
          <section
            className="card mt-6 space-y-2"
            aria-labelledby="referral-details"
            data-testid="referral-details"
          >
            <h2 id="referral-details" className="text-lg font-bold">
              {t("referral.detailsTitle", { initial: r.initial })}
            </h2>
            <dl className="grid grid-cols-1 gap-x-4 gap-y-1 sm:grid-cols-[auto_1fr]">
              <dt className="font-semibold text-slate-700">{t("referral.letterFacility")}</dt>
              <dd className="break-words">{r.facility ?? t("referral.nearestHospital")}</dd>
              <dt className="font-semibold text-slate-700">{t("referral.letterUrgency")}</dt>
              <dd>{urgency(r.urgency)}</dd>
              <dt className="font-semibold text-slate-700">{t("referral.letterDue")}</dt>
              <dd>{r.dueText}</dd>
              <dt className="font-semibold text-slate-700">{t("referral.letterReason")}</dt>
              <dd className="break-words">{r.reason}</dd>
            </dl>
          </section>
          {r.seenText && (
            <p
              role="status"
              data-testid="referral-seen"
              className="mt-4 rounded-lg border-2 border-green-600 bg-green-50 p-4 font-semibold text-green-900"
            >
              {t("referral.seenOn", { date: r.seenText })}
              {r.note ? ` — ${r.note}` : ""}
            </p>
          )}
          <Form method="post" className="card mt-4 space-y-3" data-testid="referral-ack">
            <input type="hidden" name="intent" value="ack" />
            <input type="hidden" name="birthYear" value={result?.birthYear ?? ""} />
            <div>
              <label htmlFor="referral-note" className="field-label">
                {t("referral.noteLabel")}
              </label>
              <textarea
                id="referral-note"
                name="note"
                rows={3}
                maxLength={300}
                defaultValue={r.note ?? ""}
                aria-describedby="referral-note-hint"
                className="field-input"
              />
              <p id="referral-note-hint" className="mt-1 text-sm text-slate-700">
                {t("referral.noteHint")}
              </p>
              {result?.fieldErrors.note?.map((m) => (
                <p key={m} className="mt-1 text-sm font-semibold text-red-700">
                  {m}
                </p>
              ))}
            </div>
            <button type="submit" className="btn-primary w-full sm:w-auto" disabled={busy}>
              {busy
                ? t("referral.acknowledging")
                : r.seenText
                  ? t("referral.updateNote")
                  : t("referral.acknowledge")}
            </button>
          </Form>
        </>
      )}
    </main>
  );
}
