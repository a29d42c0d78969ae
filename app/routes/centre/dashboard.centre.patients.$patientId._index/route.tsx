import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData, useNavigation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { useDateText } from "~/components/reports/LocalDate";
import { screenMeta } from "~/components/reports/meta";
import { FollowUpThread, Opinion } from "~/components/reports/Opinion";
import { PageHeader } from "~/components/reports/PageHeader";
import { Pager } from "~/components/reports/Pager";
import { useReportTypeLabel } from "~/components/reports/ReportTypeSelect";
import { StatusBadge } from "~/components/reports/StatusBadge";
import { getCarePatient, noticePreference } from "~/domain/care/index.server";
import { NoticeForm } from "~/components/care/NoticeForm";
import {
  askFollowUp,
  listPatientReports,
  phrasesFor,
  voiceNotesFor,
} from "~/domain/consultation/index.server";
import { ReportVoice } from "~/components/voice/ReportVoice";
import { config } from "~/config.server";
import { tFor } from "~/i18n/i18n.server";
import { METHOD_KEYS } from "~/schemas/registration";
import { requireActor } from "~/web/auth.server";
import { readForm } from "~/web/forms.server";
import { guardForm } from "~/web/guard.server";
import { noticeFormAction, numberProofAction } from "~/web/notice-form.server";
import { clientOf } from "~/web/request.server";
import { pageError, pageInfo, screenPage, toastFailure } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";

/**
 * One of the centre's patients (decision 0030): who they are, the consent on record, their reports
 * with the opinions, and from here the upload for them, the slip, the print view and the letter,
 * and the follow-up questions the patient dictates.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const actor = await requireActor(request);
  const { t, locale } = await tFor(request);
  const id = params.patientId ?? "";
  try {
    // One entry in the profile's trail per visit: the reports list below records the opening.
    const patient = await getCarePatient(actor, id, { trace: false });
    const reports = await listPatientReports(actor, id, screenPage(request));
    const name = `${patient.firstName} ${patient.lastName}`.trim();
    const voice = await voiceNotesFor(
      actor,
      reports.items.map((r) => r._id),
    );
    return {
      title: name || t("registration.queueTitle"),
      patient,
      // The phrase-book sentences in the health worker's language (decision 0081).
      reports: await Promise.all(
        reports.items.map(async (r) => ({
          ...r,
          voiceNotes: voice.get(r._id) ?? [],
          phrases: await phrasesFor(r.phrases, locale),
        })),
      ),
      voiceMaxSeconds: config().voiceMaxSeconds,
      // How she hears that an opinion is ready: SMS or a call (decision 0080).
      // Set by whoever acts for her (the centre's health worker); an admin looking on does not.
      notice:
        actor.accountType === "Admin"
          ? null
          : { ...(await noticePreference(actor, id)), windows: config().voice.windows },
      pagination: pageInfo(reports),
    };
  } catch (err) {
    pageError(err);
  }
}

export const meta: MetaFunction<typeof loader> = screenMeta;

/** The follow-up question the patient dictates (`intent=ask`, the thread's own form). */
export async function action({ request, params, context }: ActionFunctionArgs) {
  await guardForm(request);
  const actor = await requireActor(request);
  const { t } = await tFor(request);
  const form = await readForm(request);
  const back = `/dashboard/centre/patients/${encodeURIComponent(params.patientId ?? "")}`;
  if (form.get("intent") === "calls")
    return noticeFormAction({
      actor,
      patientId: params.patientId ?? "",
      form,
      back,
      t,
      saved: t("calls.saved"),
      ip: clientOf(context).ip,
    });
  if (form.get("intent") === "proof-send" || form.get("intent") === "proof-check")
    return numberProofAction({
      actor,
      patientId: params.patientId ?? "",
      form,
      back,
      t,
      client: clientOf(context),
      anchor: "notice-heading",
    });
  try {
    await askFollowUp(
      actor,
      String(form.get("reportId") ?? ""),
      { question: form.get("question") },
      { ip: clientOf(context).ip },
    );
  } catch (err) {
    return toastFailure(err, t, back);
  }
  return redirectWithSuccess(back, t("registration.asked"));
}

export default function CentrePatient() {
  const { t } = useTranslation();
  const dates = useDateText();
  const typeLabel = useReportTypeLabel();
  const { patient, reports, pagination, voiceMaxSeconds, notice } = useLoaderData<typeof loader>();
  const busy = useNavigation().state !== "idle";
  const pid = encodeURIComponent(patient._id);
  const phone =
    patient.phoneOwner === "none" || !patient.phone
      ? t("registration.phoneNone")
      : patient.phoneOwner === "family"
        ? t("registration.phoneFamily", { relationship: patient.phoneRelationship, phone: patient.phone })
        : t("registration.phoneSelf", { phone: patient.phone });
  return (
    <section>
      <PageHeader
        title={`${patient.firstName} ${patient.lastName}`.trim()}
        intro={patient.centre ? t("registration.patientIntro", { centre: patient.centre.name }) : undefined}
      >
        <div className="flex flex-wrap gap-2">
          <Link to={`/dashboard/upload-report?patient=${pid}`} className="btn-primary">
            {t("registration.uploadForPatient")}
          </Link>
          <Link to={`/dashboard/centre/patients/${pid}/slip`} className="btn-secondary">
            {t("registration.printSlip")}
          </Link>
        </div>
      </PageHeader>
      <div className="card mb-5 space-y-1" data-testid="patient-facts">
        <p className="font-mono text-lg">{t("registration.idLabel", { shortId: patient.shortId })}</p>
        <p>
          {[
            patient.sex ? t(`registration.sexes.${patient.sex}`) : null,
            patient.birthYear
              ? t(patient.birthYearEstimated ? "registration.bornAbout" : "registration.born", {
                  year: patient.birthYear,
                })
              : null,
            patient.locality,
          ]
            .filter(Boolean)
            .join(" · ")}
        </p>
        <p>{phone}</p>
        {patient.consent && (
          <p className="text-sm text-slate-700" data-testid="consent-line">
            {t("registration.consentLine", {
              method: t(
                METHOD_KEYS[patient.consent.method as keyof typeof METHOD_KEYS]?.label ??
                  "registration.methods.verbal",
              ),
              name: patient.consent.recordedByName,
              date: dates.dateTime(patient.consent.createdAt),
            })}
            {patient.consent.witnessName
              ? ` ${t("registration.witnessLine", { name: patient.consent.witnessName })}`
              : ""}
            {patient.consent.shownAt
              ? ` ${t("registration.readAloudLine", { date: dates.dateTime(patient.consent.shownAt) })}`
              : ""}
          </p>
        )}
      </div>
      {notice && (
        <section className="card mb-5" aria-labelledby="notice-heading" data-testid="notice-choice">
          <h2 id="notice-heading" className="mb-2 text-lg font-bold text-slate-900">
            {t("calls.title")}
          </h2>
          <NoticeForm choice={notice} busy={busy} headingId="notice-heading" />
        </section>
      )}
      <h2 className="mb-3 text-xl font-bold text-slate-900">{t("registration.reportsHeading")}</h2>
      {reports.length === 0 ? (
        <p className="card text-slate-700">{t("registration.noReports")}</p>
      ) : (
        <ul className="space-y-4">
          {reports.map((r) => (
            <li key={r._id} className="card space-y-3" data-testid="centre-report">
              <p className="flex flex-wrap items-center gap-x-3 gap-y-1">
                <span className="text-lg font-bold">{typeLabel(r.reportType)}</span>
                <span className="text-slate-600">
                  {t("reports.submittedOn", { date: dates.day(r.createdAt) })}
                </span>
                <StatusBadge status={r.status} inReview={!!r.claimedBy} />
              </p>
              {r.status === "Reviewed" ? (
                <>
                  <Opinion opinion={r} aboutPatient />
                  <p className="flex flex-wrap gap-2">
                    <Link
                      to={`/dashboard/centre/patients/${pid}/reports/${encodeURIComponent(r._id)}/print`}
                      className="btn-primary"
                    >
                      {t("registration.printOpinion")}
                    </Link>
                    {r.opinionUrl && (
                      <a href={r.opinionUrl} className="btn-secondary">
                        {t("registration.letterPdf")}
                      </a>
                    )}
                  </p>
                  <FollowUpThread
                    reportId={r._id}
                    followUps={r.followUps ?? []}
                    ask={
                      r.followUpsLeft ? { left: r.followUpsLeft, until: r.followUpsUntil ?? null } : undefined
                    }
                  />
                </>
              ) : (
                <p className="text-slate-700">{t("registration.waitingOpinion")}</p>
              )}
              <ReportVoice
                reportId={r._id}
                notes={r.voiceNotes}
                maxSeconds={voiceMaxSeconds}
                canAdd
                canAsk={r.status === "Reviewed" && !!r.followUpsLeft}
                canHear
              />
            </li>
          ))}
        </ul>
      )}
      <Pager pagination={pagination} />
      <p className="mt-6">
        <Link to="/dashboard/centre" className="link">
          {t("registration.backToQueue")}
        </Link>
      </p>
    </section>
  );
}
