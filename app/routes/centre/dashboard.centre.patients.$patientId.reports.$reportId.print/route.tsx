import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { PrintStyle } from "~/components/care/PrintStyle";
import { useDateText } from "~/components/reports/LocalDate";
import { screenMeta } from "~/components/reports/meta";
import { Opinion } from "~/components/reports/Opinion";
import { useReportTypeLabel } from "~/components/reports/ReportTypeSelect";
import { getCarePatient } from "~/domain/care/index.server";
import { letterVerifyUrl, phrasesFor, reportForLetter } from "~/domain/consultation/index.server";
import { DomainError } from "~/domain/platform/errors";
import { tFor } from "~/i18n/i18n.server";
import { requireActor } from "~/web/auth.server";
import { clientOf } from "~/web/request.server";
import { pageError } from "~/web/screen.server";

/**
 * The opinion on A4 for the health worker to print and hand over (decision 0030): who it is for,
 * the report, the opinion with findings and recommendations, who signed it and the letter's
 * verification code. The signed letter PDF (in the patient's language) is linked beside it.
 */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const actor = await requireActor(request);
  const { t } = await tFor(request);
  try {
    const patient = await getCarePatient(actor, params.patientId ?? "", { trace: false });
    const { report, letterCode } = await reportForLetter(actor, params.reportId ?? "", clientOf(context).ip);
    if (report.patient._id !== patient._id) throw new DomainError("not_found", "reports.notFound");
    return {
      title: t("registration.printTitle"),
      patient,
      // Printed for the patient: the phrase-book sentences in her language (decision 0081).
      report: { ...report, phrases: await phrasesFor(report.phrases, patient.preferredLanguage) },
      letter: { code: letterCode, url: letterVerifyUrl(letterCode) },
    };
  } catch (err) {
    pageError(err);
  }
}

export const meta: MetaFunction<typeof loader> = screenMeta;

export default function PrintOpinion() {
  const { t } = useTranslation();
  const dates = useDateText();
  const typeLabel = useReportTypeLabel();
  const { patient, report, letter } = useLoaderData<typeof loader>();
  const pid = encodeURIComponent(patient._id);
  return (
    <section className="mx-auto max-w-3xl">
      <PrintStyle />
      <article data-print className="card space-y-4 text-slate-900" data-testid="print-opinion">
        <header className="border-b border-slate-300 pb-3">
          <h1 className="text-2xl font-bold">{t("registration.printTitle")}</h1>
          <p className="mt-1 font-semibold">
            {t("registration.printFor", {
              name: `${patient.firstName} ${patient.lastName}`.trim(),
              shortId: patient.shortId,
            })}
          </p>
          {patient.centre && <p>{patient.centre.name}</p>}
          <p>
            {t("registration.printReport", {
              type: typeLabel(report.reportType),
              date: dates.day(report.createdAt),
            })}
          </p>
        </header>
        <Opinion opinion={report} headingLevel={3} aboutPatient />
        {report.reviewedAt && (
          <p className="text-sm">{t("registration.printReviewer", { date: dates.day(report.reviewedAt) })}</p>
        )}
        <p className="border-t border-slate-300 pt-3 text-sm break-words" data-testid="verify-line">
          {t("registration.printVerify", { url: letter.url, code: letter.code })}
        </p>
      </article>
      <p className="mt-5 flex flex-wrap gap-3" data-no-print>
        <a href={`/api/v1/report/${encodeURIComponent(report._id)}/opinion.pdf`} className="btn-primary">
          {t("registration.letterPdf")}
        </a>
        <Link to={`/dashboard/centre/patients/${pid}`} className="btn-secondary">
          {t("registration.backToPatient")}
        </Link>
      </p>
    </section>
  );
}
