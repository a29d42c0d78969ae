import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { useDateText } from "~/components/reports/LocalDate";
import { screenMeta } from "~/components/reports/meta";
import { NotAllowed } from "~/components/reports/NotAllowed";
import { PageHeader } from "~/components/reports/PageHeader";
import { useReportTypeLabel } from "~/components/reports/ReportTypeSelect";
import { StatusBadge } from "~/components/reports/StatusBadge";
import { WhoseReports } from "~/components/WhoseReports";
import { whoseOptions } from "~/domain/care/index.server";
import { shareScreen } from "~/domain/sharing/index.server";
import { tFor } from "~/i18n/i18n.server";
import { requireActor } from "~/web/auth.server";
import { readForm } from "~/web/forms.server";
import { guardForm } from "~/web/guard.server";
import { clientOf } from "~/web/request.server";
import { pageError } from "~/web/screen.server";
import { createAction, type ActionData } from "./create.server";
import { CreateForm } from "./CreateForm";
import type { IntentArgs } from "./intent.server";
import { LinkList } from "./LinkList";
import { NewLink } from "./NewLink";
import { revokeAction } from "./revoke.server";

/**
 * "Share with a doctor": the patient makes a private link to one of their reports for a doctor
 * without an account, sees it once, and keeps the list of the report's links with their state,
 * opens and a Revoke button. Works without JavaScript (the copy button is an extra). Each form's
 * component sits beside its action (`CreateForm.tsx` + `create.server.ts`, `LinkList.tsx` +
 * `revoke.server.ts`).
 */

export async function loader({ request, params }: LoaderFunctionArgs) {
  const actor = await requireActor(request);
  const { t } = await tFor(request);
  const title = t("share.title");
  if (actor.accountType !== "Patient") {
    return data({ title, notAllowed: t("share.patientsOnly") }, { status: 403 });
  }
  let screen: Awaited<ReturnType<typeof shareScreen>>;
  try {
    screen = await shareScreen(actor, params.reportId ?? "");
  } catch (err) {
    pageError(err); // someone else's report and an unknown id look the same: not found
  }
  // Whose report this is (the account's own until sharing names the profile), for the switcher.
  const whoseCurrent = screen.report.patientId;
  return {
    title,
    notAllowed: null,
    ...screen,
    // Back to the list of whose report this is (a family member's, or the person's own).
    reportsPath: `/dashboard/previous-report/${encodeURIComponent(whoseCurrent)}`,
    whose: await whoseOptions(actor),
    whoseCurrent,
  };
}

export const meta: MetaFunction<typeof loader> = screenMeta;

/** Revoke posts `intent=revoke`; any other post makes a link. */
export async function action({ request, params, context }: ActionFunctionArgs) {
  await guardForm(request);
  const actor = await requireActor(request);
  const { t } = await tFor(request);
  const form = await readForm(request);
  const args: IntentArgs = { actor, t, client: clientOf(context), reportId: params.reportId ?? "", form };
  if (form.get("intent") === "revoke") return revokeAction(args);
  return createAction(args);
}

type Loaded = Exclude<ReturnType<typeof useLoaderData<typeof loader>>, { notAllowed: string }>;

export default function ShareReport() {
  const { t } = useTranslation();
  const loaded = useLoaderData<typeof loader>();
  if (loaded.notAllowed !== null) return <NotAllowed title={t("share.title")} message={loaded.notAllowed} />;
  return <ShareScreen {...(loaded as Loaded)} />;
}

function ShareScreen({ report, links, reportsPath, whose, whoseCurrent }: Loaded) {
  const { t } = useTranslation();
  const dates = useDateText();
  const typeLabel = useReportTypeLabel();
  const actionData = useActionData<typeof action>() as ActionData | undefined;
  return (
    <section>
      <PageHeader title={t("share.title")} intro={t("share.intro")}>
        <Link to={reportsPath} className="btn-secondary">
          {t("share.backToReports")}
        </Link>
      </PageHeader>
      <WhoseReports
        options={whose}
        current={whoseCurrent}
        hrefFor={(id) => `/dashboard/previous-report/${encodeURIComponent(id)}`}
      />
      <p className="mb-5 flex flex-wrap items-center gap-x-3 gap-y-1" data-testid="share-report">
        <span className="text-lg font-bold text-slate-900">{typeLabel(report.reportType)}</span>
        <span className="text-slate-600">
          <time dateTime={report.createdAt}>
            {t("reports.submittedOn", { date: dates.day(report.createdAt) })}
          </time>
        </span>
        <StatusBadge status={report.status} forPatient />
      </p>
      <div className="grid gap-5 lg:grid-cols-[minmax(0,1fr)_minmax(0,1fr)]">
        <div className="min-w-0 space-y-5">
          {actionData?.created && <NewLink created={actionData.created} />}
          <CreateForm reviewed={report.status === "Reviewed"} lastResult={actionData?.result} />
        </div>
        <LinkList links={links} />
      </div>
    </section>
  );
}
