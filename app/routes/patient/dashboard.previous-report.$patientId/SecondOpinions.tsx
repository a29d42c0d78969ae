import { Form } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { FollowUpThread, Opinion } from "~/components/reports/Opinion";
import { SPECIALTIES, SPECIALTY_KEYS, type Specialty } from "~/schemas/specialties";
import { AGREEMENT_VERDICT_KEYS, SECOND_NOTE_MAX } from "~/schemas/limits";
import type { Card } from "./cards.server";

type Signer = { firstName: string; lastName: string; specialties: string[] } | null;

/** "First opinion — Dr A B (Cardiology)" and "Second opinion — Dr C D (Radiology)": the labels of a case's opinions. */
export function useOpinionLabels() {
  const { t } = useTranslation();
  const specialty = (s: string) => t(SPECIALTY_KEYS[s as Specialty] ?? s);
  const doctor = (e: Signer) => (e ? t("panel.doctor", { name: `${e.firstName} ${e.lastName}`.trim() }) : "");
  return {
    first: (e: Signer) =>
      e
        ? t("panel.firstOpinionTitle", {
            name: doctor(e),
            specialty: e.specialties.map(specialty).join(", "),
          })
        : t("panel.firstOpinionPlain"),
    second: (e: Signer, asked: string) =>
      t("panel.secondOpinionTitle", { name: doctor(e), specialty: specialty(asked) }),
    specialty,
  };
}

/** The heading of the case's first opinion: plain while it is the only one, labelled once there is a second. */
export function FirstOpinionHeading({ report }: { report: Card }) {
  const { t } = useTranslation();
  const labels = useOpinionLabels();
  return (
    <h3 className="font-bold text-green-900" data-testid="first-opinion-heading">
      {report.secondOpinions.length ? labels.first(report.expert) : t("reports.expertReview")}
    </h3>
  );
}

/** Whom a follow-up question may go to: the first expert, and each expert who gave a second opinion. */
export function useAskWhom(report: Card) {
  const labels = useOpinionLabels();
  const given = report.secondOpinions.filter((s) => s.status === "Reviewed");
  if (!given.length) return undefined;
  return [
    { reportId: report._id, label: labels.first(report.expert) },
    ...given.map((s) => ({ reportId: s._id, label: labels.second(s.expert, s.specialty) })),
  ];
}

/**
 * The case's second opinions under the first (decision 0038): each labelled with its expert and
 * specialty, how it stands to the first opinion and why, its follow-up answers; or that it is awaited.
 */
export function SecondOpinions({ report, aboutPatient = false }: { report: Card; aboutPatient?: boolean }) {
  const { t } = useTranslation();
  const labels = useOpinionLabels();
  if (!report.secondOpinions.length) return null;
  return (
    <div className="mt-3 space-y-3">
      {report.secondOpinions.map((s) =>
        s.status === "Reviewed" ? (
          <section
            key={s._id}
            className="space-y-3 rounded-lg border border-sky-200 bg-sky-50 p-3"
            data-testid="second-opinion"
          >
            <h3 className="font-bold text-sky-900">{labels.second(s.expert, s.specialty)}</h3>
            {s.agreement && (
              <p className="font-semibold break-words text-slate-900" data-testid="agreement">
                {t("panel.verdictLine", {
                  verdict: t(AGREEMENT_VERDICT_KEYS[s.agreement]),
                  reason: s.agreementReason ?? "",
                })}
              </p>
            )}
            <Opinion opinion={s} headingLevel={4} aboutPatient={aboutPatient} />
            {s.followUps.length > 0 && <FollowUpThread reportId={s._id} followUps={s.followUps} />}
          </section>
        ) : (
          <p
            key={s._id}
            className="rounded-lg border border-slate-200 bg-slate-50 p-3 text-slate-800"
            data-testid="second-opinion-awaited"
          >
            {t("panel.secondAwaited", { specialty: labels.specialty(s.specialty) })}
          </p>
        ),
      )}
    </div>
  );
}

/** An admin's "Ask for a second opinion" on a case (a plain form: no JavaScript needed). */
export function AskSecondOpinion({ reportId }: { reportId: string }) {
  const { t } = useTranslation();
  const labels = useOpinionLabels();
  return (
    <details className="mt-3 rounded-lg border border-slate-200 p-3" data-testid="admin-ask-second">
      <summary className="cursor-pointer font-semibold text-slate-900">{t("panel.askTitle")}</summary>
      <Form method="post" preventScrollReset className="mt-3 space-y-3">
        <input type="hidden" name="intent" value="second-opinion" />
        <input type="hidden" name="reportId" value={reportId} />
        <div>
          <label htmlFor={`second-specialty-${reportId}`} className="field-label">
            {t("panel.specialty")}
          </label>
          <select
            id={`second-specialty-${reportId}`}
            name="specialty"
            required
            defaultValue=""
            className="field-input"
          >
            <option value="" disabled>
              {t("panel.chooseSpecialty")}
            </option>
            {SPECIALTIES.map((s) => (
              <option key={s} value={s}>
                {labels.specialty(s)}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor={`second-note-${reportId}`} className="field-label">
            {t("panel.note")}
          </label>
          <textarea
            id={`second-note-${reportId}`}
            name="note"
            required
            maxLength={SECOND_NOTE_MAX}
            rows={3}
            className="field-input min-h-24"
          />
        </div>
        <button type="submit" className="btn-secondary">
          {t("panel.askButton")}
        </button>
      </Form>
    </details>
  );
}
