import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { PersonalFields, StudyViewer } from "~/components/imaging/StudyViewer";
import { viewerState } from "~/components/imaging/viewer-state";
import { screenMeta } from "~/components/reports/meta";
import { PageHeader } from "~/components/reports/PageHeader";
import { openReportStudy } from "~/domain/consultation/index.server";
import { tFor } from "~/i18n/i18n.server";
import { requireActor } from "~/web/auth.server";
import { clientOf } from "~/web/request.server";
import { pageError } from "~/web/screen.server";

/**
 * A report's medical images: what they carry about the person, and the viewer. For exactly those
 * who may open the report's file (the patient, a family manager or centre worker for the profile,
 * the experts the file rule names, admins); anyone else gets the not-found page.
 */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const actor = await requireActor(request);
  const { t } = await tFor(request);
  const reportId = params.reportId ?? "";
  let study: Awaited<ReturnType<typeof openReportStudy>>;
  try {
    study = await openReportStudy(actor, reportId, clientOf(context).ip);
  } catch (err) {
    pageError(err);
  }
  return {
    title: t("imaging.title"),
    reportId,
    study,
    state: viewerState(new URL(request.url).searchParams, study.series),
    patient: actor.accountType === "Patient" || actor.accountType === "HealthWorker",
  };
}

export const meta: MetaFunction<typeof loader> = screenMeta;

export default function StudyScreen() {
  const { t } = useTranslation();
  const { reportId, study, state, patient } = useLoaderData<typeof loader>();
  return (
    <section className="mx-auto max-w-3xl space-y-4">
      <PageHeader title={t("imaging.title")} />
      {patient && <PersonalFields study={study} />}
      <StudyViewer reportId={reportId} study={study} state={state} />
      <p>
        <Link to="/dashboard" className="link">
          ← {t("imaging.back")}
        </Link>
      </p>
    </section>
  );
}
