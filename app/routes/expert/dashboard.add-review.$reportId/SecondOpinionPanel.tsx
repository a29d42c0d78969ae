import { Form, useNavigation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { Opinion } from "~/components/reports/Opinion";
import { SPECIALTY_KEYS, type Specialty } from "~/schemas/specialties";
import { SECOND_NOTE_MAX } from "~/schemas/limits";
import type { Panel } from "./panel.server";

function useSpecialtyLabel() {
  const { t } = useTranslation();
  return (s: string) => t(SPECIALTY_KEYS[s as Specialty] ?? s);
}

/**
 * The second opinion on the review screen (decision 0038): the expert of the first opinion asks
 * another specialty (a plain form, no JavaScript needed); the second expert reads why it was
 * asked and the first opinion, read-only and labelled.
 */
export function SecondOpinionPanel({ panel }: { panel: Panel }) {
  if (panel.second) return <FirstOpinionForSecond second={panel.second} />;
  if (!panel.mayAsk && !panel.asked.length) return null;
  return <AskSecondOpinion panel={panel} />;
}

function AskSecondOpinion({ panel }: { panel: Panel }) {
  const { t } = useTranslation();
  const label = useSpecialtyLabel();
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" && navigation.formData?.get("intent") === "second-opinion";
  return (
    <section
      className="card space-y-3"
      aria-labelledby="second-opinion-title"
      data-testid="ask-second-opinion"
    >
      <h2 id="second-opinion-title" className="text-lg font-bold text-slate-900">
        {t("panel.askTitle")}
      </h2>
      {panel.asked.length > 0 && (
        <div>
          <h3 className="font-semibold text-slate-800">{t("panel.asked")}</h3>
          <ul className="list-disc pl-5 text-slate-800">
            {panel.asked.map((a) => (
              <li key={a.id}>
                {t("panel.askedLine", {
                  specialty: label(a.specialty),
                  state: t(a.given ? "panel.stateGiven" : "panel.stateWaiting"),
                })}
              </li>
            ))}
          </ul>
        </div>
      )}
      {panel.mayAsk && (
        <Form method="post" className="space-y-3">
          <p className="text-sm text-slate-700">{t("panel.askIntro")}</p>
          <input type="hidden" name="intent" value="second-opinion" />
          <div>
            <label htmlFor="second-specialty" className="field-label">
              {t("panel.specialty")}
            </label>
            <select id="second-specialty" name="specialty" required className="field-input" defaultValue="">
              <option value="" disabled>
                {t("panel.chooseSpecialty")}
              </option>
              {panel.specialties.map((s) => (
                <option key={s} value={s}>
                  {label(s)}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label htmlFor="second-note" className="field-label">
              {t("panel.note")}
            </label>
            <textarea
              id="second-note"
              name="note"
              required
              maxLength={SECOND_NOTE_MAX}
              rows={3}
              aria-describedby="second-note-hint"
              className="field-input min-h-24"
            />
            <p id="second-note-hint" className="mt-1 text-sm text-slate-600">
              {t("panel.noteHint")}
            </p>
          </div>
          <button type="submit" className="btn-secondary w-full sm:w-auto" disabled={busy}>
            {busy ? t("panel.asking") : t("panel.askButton")}
          </button>
        </Form>
      )}
    </section>
  );
}

function FirstOpinionForSecond({ second }: { second: NonNullable<Panel["second"]> }) {
  const { t } = useTranslation();
  const label = useSpecialtyLabel();
  const e = second.first?.expert;
  return (
    <section className="card space-y-3" aria-labelledby="second-request-title" data-testid="second-request">
      <h2 id="second-request-title" className="text-lg font-bold text-slate-900">
        {t("panel.secondRequestTitle", { specialty: label(second.specialty) })}
      </h2>
      {second.note && (
        <div>
          <h3 className="font-semibold text-slate-800">{t("panel.requestNote")}</h3>
          <p className="break-words whitespace-pre-line text-slate-800">{second.note}</p>
        </div>
      )}
      <div className="rounded-lg border border-green-200 bg-green-50 p-3" data-testid="first-opinion">
        <h3 className="mb-2 font-bold text-green-900">
          {e
            ? t("panel.firstOpinionTitle", {
                name: t("panel.doctor", { name: `${e.firstName} ${e.lastName}`.trim() }),
                specialty: e.specialties.map(label).join(", "),
              })
            : t("panel.firstOpinionPlain")}
        </h3>
        {second.first ? (
          <Opinion opinion={second.first} headingLevel={4} aboutPatient />
        ) : (
          <p className="text-slate-700">{t("panel.firstNotYet")}</p>
        )}
      </div>
    </section>
  );
}
