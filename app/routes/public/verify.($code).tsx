import {
  data,
  redirect,
  type HeadersFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Form, useLoaderData } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { limit } from "~/domain/platform/index.server";
import { verifyLetter } from "~/domain/consultation/index.server";
import { SPECIALTY_KEYS, type Specialty } from "~/schemas/specialties";
import { tFor } from "~/i18n/i18n.server";
import { site } from "~/site";
import { formatDay } from "~/lib/format";
import { clientOf } from "~/web/request.server";
import { screenFailure } from "~/web/screen.server";

/**
 * Public: does an opinion letter with this code exist, and who signed it — nothing more (no
 * patient, no report, no opinion). Not indexed; limited per address against scanning.
 */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const { t, locale } = await tFor(request);
  const typed = new URL(request.url).searchParams.get("code");
  if (!params.code && typed) throw redirect(`/verify/${encodeURIComponent(typed.trim().slice(0, 40))}`);
  const headers = { "X-Robots-Tag": "noindex", "Cache-Control": "no-store" };
  const base = {
    title: t("verify.title"),
    code: params.code ?? "",
    result: null as null | string,
    valid: false,
    /** A case with a second opinion (decision 0038): every signed opinion, who signed and when. */
    opinions: [] as string[],
  };
  if (!params.code) return data(base, { headers });
  try {
    await limit("verifyLetter", null, clientOf(context));
  } catch (err) {
    const f = screenFailure(err, t);
    return data({ ...base, result: f.message }, { status: f.status, headers: { ...headers, ...f.headers } });
  }
  const found = await verifyLetter(params.code);
  if (!found) return data({ ...base, result: t("verify.invalid") }, { status: 404, headers });
  const e = found.expert;
  const date = found.reviewedAt ? formatDay(found.reviewedAt, locale) : "";
  const specialty = (s: string) => t(SPECIALTY_KEYS[s as Specialty] ?? s);
  base.opinions =
    found.opinions.length > 1
      ? found.opinions.map((o) =>
          [
            o.kind === "first"
              ? t("panel.verifyFirst")
              : t("panel.verifySecond", { specialty: specialty(o.specialty ?? "") }),
            o.expert
              ? [
                  t("panel.doctor", { name: `${o.expert.firstName} ${o.expert.lastName}`.trim() }),
                  `${t("opinion.regNo")} ${o.expert.registrationNumber || t("letter.notGiven")}`,
                  o.expert.registrationCouncil,
                ]
                  .filter(Boolean)
                  .join(", ")
              : t("letter.expertGone", { product: site.productName }),
            o.reviewedAt ? formatDay(o.reviewedAt, locale) : "",
          ]
            .filter(Boolean)
            .join(" — "),
        )
      : [];
  if (!e) {
    const result = t("verify.validSignerGone", { code: found.code, date, product: site.productName });
    return data({ ...base, valid: true, result }, { headers });
  }
  return data(
    {
      ...base,
      valid: true,
      result: t("verify.valid", {
        code: found.code,
        date,
        name: `${e.firstName} ${e.lastName}`.trim(),
        reg: e.registrationNumber || t("letter.notGiven"),
        council: [e.registrationCouncil, ...e.specialties.map(specialty)].filter(Boolean).join(", "),
      }),
    },
    { headers },
  );
}

export const headers: HeadersFunction = ({ loaderHeaders }) => loaderHeaders;

export const meta: MetaFunction<typeof loader> = ({ data: d }) => [
  { title: `${d?.title ?? ""} | ${site.productName}` },
  { name: "robots", content: "noindex" },
];

export default function Verify() {
  const { t } = useTranslation();
  const { code, result, valid, opinions } = useLoaderData<typeof loader>();
  return (
    <main id="main" className="mx-auto w-full max-w-2xl flex-1 px-4 py-10">
      <h1 className="text-3xl font-bold">{t("verify.title")}</h1>
      <p className="mt-2 text-slate-700">{t("verify.intro", { product: site.productName })}</p>
      {result && (
        <p
          role="status"
          data-testid="verify-result"
          className={`mt-6 rounded-lg border-2 p-4 font-semibold ${
            valid ? "border-green-600 bg-green-50 text-green-900" : "border-red-600 bg-red-50 text-red-900"
          }`}
        >
          {result}
        </p>
      )}
      {opinions.length > 0 && (
        <section className="card mt-4" aria-labelledby="verify-opinions" data-testid="verify-opinions">
          <h2 id="verify-opinions" className="font-bold text-slate-900">
            {t("panel.verifyOpinions")}
          </h2>
          <ul className="mt-2 list-disc space-y-1 pl-5 break-words text-slate-800">
            {opinions.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </section>
      )}
      <Form method="get" action="/verify" className="card mt-6 flex flex-wrap items-end gap-3">
        <div className="min-w-0 flex-1">
          <label htmlFor="verify-code" className="field-label">
            {t("verify.codeLabel")}
          </label>
          <input
            id="verify-code"
            name="code"
            defaultValue={code}
            required
            maxLength={40}
            autoComplete="off"
            autoCapitalize="characters"
            spellCheck={false}
            className="field-input font-mono tracking-wider uppercase"
          />
        </div>
        <button type="submit" className="btn-primary">
          {t("verify.check")}
        </button>
      </Form>
    </main>
  );
}
