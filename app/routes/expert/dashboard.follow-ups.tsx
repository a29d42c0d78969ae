import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { EmptyState } from "~/components/reports/EmptyState";
import { useDateText } from "~/components/reports/LocalDate";
import { screenMeta } from "~/components/reports/meta";
import { NotAllowed } from "~/components/reports/NotAllowed";
import { FollowUpThread, Opinion } from "~/components/reports/Opinion";
import { PageHeader } from "~/components/reports/PageHeader";
import { Pager } from "~/components/reports/Pager";
import { useReportTypeLabel } from "~/components/reports/ReportTypeSelect";
import { pageError, pageInfo, screenPage, toastFailure } from "~/web/screen.server";
import {
  answerFollowUp,
  listFollowUpThreads,
  voiceNotesFor,
  type ApiVoiceNote,
} from "~/domain/consultation/index.server";
import { tFor } from "~/i18n/i18n.server";
import { requireActor } from "~/web/auth.server";
import { readForm } from "~/web/forms.server";
import { guardForm } from "~/web/guard.server";
import { clientOf } from "~/web/request.server";
import { redirectWithSuccess } from "~/web/toast.server";

/** Expert: the opinions whose follow-up questions they hold, with the threads and answer forms. */
export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireActor(request);
  const { t } = await tFor(request);
  const title = t("followups.title");
  if (actor.accountType !== "Expert") {
    return data(
      { title, notAllowed: t("followups.expertsOnly"), items: [], pagination: null },
      { status: 403 },
    );
  }
  if (!actor.approved) return { title, notAllowed: t("reports.awaitApproval"), items: [], pagination: null };
  let result: Awaited<ReturnType<typeof listFollowUpThreads>>;
  try {
    result = await listFollowUpThreads(actor, screenPage(request));
  } catch (err) {
    pageError(err);
  }
  // Questions asked by voice are heard here too, beside their (possibly empty) typed text.
  const voice = await voiceNotesFor(
    actor,
    result.items.map((r) => r._id),
  );
  const spokenOf = (reportId: string) => {
    const byFollowUp: Record<string, ApiVoiceNote[]> = {};
    for (const n of voice.get(reportId) ?? [])
      if (n.kind === "question" && n.followUpId) (byFollowUp[n.followUpId] ??= []).push(n);
    return byFollowUp;
  };
  const items = result.items.map((r) => ({
    _id: r._id,
    reportType: r.reportType,
    patientName: `${r.patient.firstName} ${r.patient.lastName}`.trim(),
    reviewedAt: r.reviewedAt,
    review: r.review,
    findings: r.findings,
    recommendations: r.recommendations,
    seeDoctorSoon: r.seeDoctorSoon,
    expert: r.expert,
    followUps: r.followUps ?? [],
    open: (r.followUps ?? []).filter((f) => !f.answer).length,
    spoken: spokenOf(r._id),
  }));
  // Threads with open questions first; otherwise the newest opinion first.
  items.sort((a, b) => Number(b.open > 0) - Number(a.open > 0));
  return { title, notAllowed: null, items, pagination: pageInfo(result) };
}

export const meta: MetaFunction<typeof loader> = screenMeta;

export async function action({ request, context }: ActionFunctionArgs) {
  await guardForm(request);
  const actor = await requireActor(request);
  const { t } = await tFor(request);
  const form = await readForm(request);
  const back = `/dashboard/follow-ups${new URL(request.url).search}`;
  try {
    await answerFollowUp(
      actor,
      String(form.get("followUpId") ?? ""),
      { answer: form.get("answer") },
      {
        ip: clientOf(context).ip,
      },
    );
  } catch (err) {
    return toastFailure(err, t, back, { field: "answer" });
  }
  return redirectWithSuccess(back, t("followups.answerSuccess"));
}

export default function FollowUps() {
  const { t } = useTranslation();
  const { items, pagination, notAllowed } = useLoaderData<typeof loader>();
  const typeLabel = useReportTypeLabel();
  const dates = useDateText();
  if (notAllowed) return <NotAllowed title={t("followups.title")} message={notAllowed} />;
  return (
    <section>
      <PageHeader title={t("followups.title")} intro={t("followups.intro")} />
      {items.length === 0 ? (
        <EmptyState message={t("followups.empty")} />
      ) : (
        <ul className="space-y-4">
          {items.map((r) => (
            <li key={r._id} className="card space-y-3" data-testid="followup-report">
              <div>
                <h2 className="text-lg font-bold text-slate-900">
                  {typeLabel(r.reportType)} · {r.patientName}
                </h2>
                {r.reviewedAt && (
                  <p className="text-sm text-slate-600">
                    {t("reports.colReviewedOn")}: {dates.day(r.reviewedAt)}
                  </p>
                )}
              </div>
              <details className="rounded-lg border border-green-200 bg-green-50 p-3">
                <summary className="cursor-pointer font-semibold text-green-900">
                  {t("reports.expertReview")}
                </summary>
                <div className="mt-2">
                  <Opinion opinion={r} headingLevel={4} />
                </div>
              </details>
              <FollowUpThread reportId={r._id} followUps={r.followUps} answerable spoken={r.spoken} />
            </li>
          ))}
        </ul>
      )}
      {pagination && <Pager pagination={pagination} />}
    </section>
  );
}
