import { Form, useNavigation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { FOLLOWUP_TEXT_MAX } from "~/schemas/limits";
import { SPECIALTY_KEYS, type Specialty } from "~/schemas/specialties";
import { useDateText } from "./LocalDate";
import { ReviewText } from "./ReviewText";
import { VoicePlayer, type VoiceNoteView } from "~/components/voice/VoicePlayer";

export type OpinionData = {
  review: string | null;
  findings: string | null;
  recommendations: string | null;
  seeDoctorSoon: boolean;
  /** The phrase-book sentences the expert chose, already in the reader's language (decision 0081). */
  phrases?: string[];
  expert: null | { firstName: string; lastName: string; registrationNumber: string; specialties: string[] };
};

export type FollowUpData = {
  _id: string;
  question: string;
  askedAt: string;
  answer: string | null;
  answeredAt: string | null;
  answeredBy: { firstName: string; lastName: string } | null;
};

/**
 * The structured opinion (decision 0013) in the order the patient reads it: the "see a doctor soon"
 * notice first and prominent, then summary, findings, recommendations, and who signed it.
 */
export function Opinion({
  opinion,
  headingLevel = 3,
  aboutPatient = false,
}: {
  opinion: OpinionData;
  headingLevel?: 3 | 4;
  /** Read by someone other than the patient (a health worker, an expert, a doctor with a link): the notice speaks about the patient. */
  aboutPatient?: boolean;
}) {
  const { t } = useTranslation();
  const H = `h${headingLevel}` as "h3" | "h4";
  const e = opinion.expert;
  const specialty = e?.specialties.map((s) => t(SPECIALTY_KEYS[s as Specialty] ?? s)).join(", ");
  return (
    <div className="space-y-3" data-testid="opinion">
      {opinion.seeDoctorSoon && (
        <p
          role="note"
          className="flex items-start gap-2 rounded-lg border-2 border-red-600 bg-red-50 p-3 font-bold text-red-900"
          data-testid="see-doctor-soon"
        >
          <span aria-hidden="true" className="text-xl leading-none">
            ⚠
          </span>
          {t(aboutPatient ? "opinion.seeDoctorSoonNoticePatient" : "opinion.seeDoctorSoonNotice")}
        </p>
      )}
      {opinion.phrases && opinion.phrases.length > 0 && (
        <section data-testid="opinion-phrases">
          <H className="font-bold text-green-900">{t("phrases.doctorSays")}</H>
          <ul className="mt-1 list-disc space-y-1 pl-5 text-lg text-slate-900">
            {opinion.phrases.map((p, i) => (
              <li key={i}>{p}</li>
            ))}
          </ul>
        </section>
      )}
      <section>
        <H className="font-bold text-green-900">{t("opinion.summary")}</H>
        <div className="mt-1 text-slate-800">
          <ReviewText text={opinion.review} fold={false} />
        </div>
      </section>
      {opinion.findings && (
        <section>
          <H className="font-bold text-green-900">{t("opinion.findings")}</H>
          <p className="mt-1 break-words whitespace-pre-line text-slate-800">{opinion.findings}</p>
        </section>
      )}
      {opinion.recommendations && (
        <section>
          <H className="font-bold text-green-900">{t("opinion.recommendations")}</H>
          <p className="mt-1 break-words whitespace-pre-line text-slate-800">{opinion.recommendations}</p>
        </section>
      )}
      {e && (
        <p className="border-t border-green-200 pt-2 text-sm text-slate-700" data-testid="signed-by">
          {t("opinion.signedLine", {
            name: `${e.firstName} ${e.lastName}`.trim(),
            reg: e.registrationNumber || t("letter.notGiven"),
            specialty: specialty || t("experts.notProvided"),
          })}
        </p>
      )}
    </div>
  );
}

/**
 * A report's follow-up thread: questions and answers in order; `ask` shows the patient's form (with
 * how many questions are left), `answerable` the answering expert's forms.
 */
export function FollowUpThread({
  reportId,
  followUps,
  ask,
  answerable,
  askWhom,
  spoken,
}: {
  reportId: string;
  followUps: FollowUpData[];
  ask?: { left: number; until: string | null };
  answerable?: boolean;
  /** A case with a second opinion: the experts the patient may address (the report each answers on). */
  askWhom?: { reportId: string; label: string }[];
  /** Questions asked by voice (decision 0037), by follow-up id: played under the question's text. */
  spoken?: Record<string, VoiceNoteView[]>;
}) {
  const { t } = useTranslation();
  const dates = useDateText();
  const navigation = useNavigation();
  const busy = (key: string, value: string) =>
    navigation.state === "submitting" && navigation.formData?.get(key) === value;
  if (!followUps.length && !ask) return null;
  return (
    <section className="space-y-3" aria-labelledby={`followups-${reportId}`} data-testid="followups">
      <h3 id={`followups-${reportId}`} className="font-bold text-slate-900">
        {t("followups.title")}
      </h3>
      {followUps.length > 0 && (
        <ol className="space-y-3">
          {followUps.map((f) => (
            <li key={f._id} className="rounded-lg border border-slate-200 p-3" data-testid="followup">
              <p className="text-sm text-slate-600">
                {t("followups.askedOn", { date: dates.day(f.askedAt) })}
              </p>
              <p className="font-semibold break-words whitespace-pre-line text-slate-900">
                <span className="sr-only">{t("followups.question")}: </span>
                {f.question}
              </p>
              {spoken?.[f._id]?.map((note) => (
                <div key={note._id} className="mt-1">
                  <VoicePlayer note={note} />
                </div>
              ))}
              {f.answer ? (
                <div className="mt-2 border-l-4 border-green-400 pl-3">
                  <p className="break-words whitespace-pre-line text-slate-800">
                    <span className="sr-only">{t("followups.answer")}: </span>
                    {f.answer}
                  </p>
                  <p className="text-sm text-slate-600">
                    {t("followups.answeredOn", {
                      date: f.answeredAt ? dates.day(f.answeredAt) : "",
                      name: f.answeredBy ? `${f.answeredBy.firstName} ${f.answeredBy.lastName}`.trim() : "",
                    })}
                  </p>
                </div>
              ) : answerable ? (
                <Form method="post" preventScrollReset className="mt-2 space-y-2">
                  <input type="hidden" name="intent" value="answer" />
                  <input type="hidden" name="followUpId" value={f._id} />
                  <label htmlFor={`answer-${f._id}`} className="field-label">
                    {t("followups.answerLabel")}
                  </label>
                  <textarea
                    id={`answer-${f._id}`}
                    name="answer"
                    required
                    maxLength={FOLLOWUP_TEXT_MAX}
                    className="field-input min-h-24"
                  />
                  <button type="submit" className="btn-primary" disabled={busy("followUpId", f._id)}>
                    {busy("followUpId", f._id) ? t("followups.sending") : t("followups.sendAnswer")}
                  </button>
                </Form>
              ) : (
                <p className="mt-1 text-sm text-slate-600 italic">{t("followups.notAnswered")}</p>
              )}
            </li>
          ))}
        </ol>
      )}
      {ask &&
        (ask.left > 0 ? (
          <Form method="post" preventScrollReset className="space-y-2">
            <input type="hidden" name="intent" value="ask" />
            {askWhom?.length ? (
              <div>
                <label htmlFor={`ask-whom-${reportId}`} className="field-label">
                  {t("panel.followUpTo")}
                </label>
                <select
                  id={`ask-whom-${reportId}`}
                  name="reportId"
                  className="field-input"
                  data-testid="ask-whom"
                >
                  {askWhom.map((w) => (
                    <option key={w.reportId} value={w.reportId}>
                      {w.label}
                    </option>
                  ))}
                </select>
              </div>
            ) : (
              <input type="hidden" name="reportId" value={reportId} />
            )}
            <label htmlFor={`ask-${reportId}`} className="field-label">
              {t("followups.askLabel")}
            </label>
            <textarea
              id={`ask-${reportId}`}
              name="question"
              required
              maxLength={FOLLOWUP_TEXT_MAX}
              aria-describedby={`ask-${reportId}-hint`}
              className="field-input min-h-24"
            />
            <p id={`ask-${reportId}-hint`} className="text-sm text-slate-600">
              {t("followups.askHint")}{" "}
              {t("followups.left", { count: ask.left, date: ask.until ? dates.day(ask.until) : "" })}
            </p>
            <button type="submit" className="btn-secondary" disabled={busy("reportId", reportId)}>
              {busy("reportId", reportId) ? t("followups.sending") : t("followups.send")}
            </button>
          </Form>
        ) : (
          <p className="text-sm text-slate-600">{t("followups.closed")}</p>
        ))}
    </section>
  );
}
