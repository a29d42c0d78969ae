import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { useDateText } from "~/components/reports/LocalDate";
import { screenMeta } from "~/components/reports/meta";
import { NotAllowed } from "~/components/reports/NotAllowed";
import { PageHeader } from "~/components/reports/PageHeader";
import { Pager } from "~/components/reports/Pager";
import { useReportTypeLabel } from "~/components/reports/ReportTypeSelect";
import { StatusBadge } from "~/components/reports/StatusBadge";
import { centreQueue } from "~/domain/care/index.server";
import { tFor } from "~/i18n/i18n.server";
import { requireActor } from "~/web/auth.server";
import { centreOrRefusal } from "~/web/centre-screen.server";
import { pageInfo, screenPage } from "~/web/screen.server";

/**
 * The centre's patients (decision 0030): a search by name or short ID, and for each patient where
 * their reports stand — opinion ready, waiting since, questions waiting — with the way to them.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireActor(request);
  const { t } = await tFor(request);
  const title = t("registration.queueTitle");
  const gate = await centreOrRefusal(actor, t, title);
  if (gate.refusal) return gate.refusal;
  const q = (new URL(request.url).searchParams.get("q") ?? "").trim().slice(0, 100);
  const page = await centreQueue(actor, screenPage(request), { q });
  return {
    title,
    notAllowed: null,
    centre: gate.centre,
    q,
    patients: page.items,
    pagination: pageInfo(page),
  };
}

export const meta: MetaFunction<typeof loader> = screenMeta;

type Loaded = Exclude<ReturnType<typeof useLoaderData<typeof loader>>, { notAllowed: string }>;

export default function CentreQueue() {
  const { t } = useTranslation();
  const loaded = useLoaderData<typeof loader>();
  if (loaded.notAllowed !== null)
    return <NotAllowed title={t("registration.queueTitle")} message={loaded.notAllowed} />;
  return <Queue {...(loaded as Loaded)} />;
}

function Queue({ centre, q, patients, pagination }: Loaded) {
  const { t } = useTranslation();
  const dates = useDateText();
  const typeLabel = useReportTypeLabel();
  return (
    <section>
      <PageHeader
        title={t("registration.queueTitle")}
        intro={t("registration.queueIntro", { centre: centre.name })}
      >
        <Link to="/dashboard/centre/register" className="btn-primary">
          {t("registration.registerNew")}
        </Link>
      </PageHeader>
      <Form method="get" role="search" className="card mb-5 flex flex-wrap items-end gap-2">
        <div className="min-w-0 flex-1">
          <label htmlFor="queue-search" className="field-label">
            {t("registration.searchLabel")}
          </label>
          <input
            id="queue-search"
            name="q"
            type="search"
            defaultValue={q}
            maxLength={100}
            className="field-input"
          />
        </div>
        <button type="submit" className="btn-secondary">
          {t("registration.searchButton")}
        </button>
      </Form>
      {patients.length === 0 ? (
        <p className="card text-slate-700" data-testid="queue-empty">
          {q ? t("registration.noMatch", { q }) : t("registration.noPatients")}
        </p>
      ) : (
        <ul className="space-y-3" data-testid="centre-queue">
          {patients.map((p) => (
            <li
              key={p._id}
              className="card flex flex-wrap items-center justify-between gap-3"
              data-testid="queue-row"
            >
              <div className="min-w-0 space-y-1">
                <p className="flex flex-wrap items-baseline gap-x-3">
                  <Link
                    to={`/dashboard/centre/patients/${encodeURIComponent(p._id)}`}
                    className="link text-lg font-bold"
                  >
                    {`${p.firstName} ${p.lastName}`.trim()}
                  </Link>
                  <span className="font-mono text-slate-700">{p.shortId}</span>
                </p>
                {p.latestReport ? (
                  <p className="flex flex-wrap items-center gap-2 text-slate-700">
                    <span>{typeLabel(p.latestReport.reportType)}</span>
                    <StatusBadge status={p.latestReport.status} />
                    <span>{t("registration.reportsCount", { count: p.reports })}</span>
                  </p>
                ) : (
                  <p className="text-slate-700">{t("registration.noReportYet")}</p>
                )}
                {p.waitingSince && (
                  <p className="text-sm text-slate-700">
                    {t("registration.waitingSince", { date: dates.dateTime(p.waitingSince) })}
                  </p>
                )}
                {p.followUpsPending > 0 && (
                  <p className="text-sm text-slate-700">
                    {t("registration.followUpsPending", { count: p.followUpsPending })}
                  </p>
                )}
              </div>
              {p.opinionReady && (
                <span
                  className="rounded-full border border-green-300 bg-green-100 px-3 py-1 font-semibold text-green-800"
                  data-testid="opinion-ready"
                >
                  {t("registration.opinionReady")}
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
      <Pager pagination={pagination} />
    </section>
  );
}
