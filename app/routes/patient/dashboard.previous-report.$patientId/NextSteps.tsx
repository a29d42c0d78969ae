import { Form } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import type { StepWords } from "~/domain/consultation/index.server";

const STATE_STYLE: Record<StepWords["state"], string> = {
  open: "bg-amber-100 text-amber-900",
  done: "bg-green-100 text-green-900",
  visited: "bg-green-100 text-green-900",
  declined: "bg-slate-200 text-slate-800",
  unreachable: "bg-slate-200 text-slate-800",
};

/**
 * An opinion's next steps as she reads them (decision 0114): in her language from the step's kind,
 * the catalogue's names and the specialty's label, due on a date of her locale; a facility's name
 * and the reason as the expert wrote them. Each open step can be marked done, or "I cannot go" with
 * why; a closed one opened again. Plain forms: they work without script.
 */
export function NextSteps({
  reportId,
  steps,
  canAct,
}: {
  reportId: string;
  steps: StepWords[];
  canAct: boolean;
}) {
  const { t } = useTranslation();
  if (!steps.length) return null;
  return (
    <section className="rounded-lg border border-sky-200 bg-sky-50 p-3" data-testid="next-steps">
      <h3 className="font-bold text-slate-900">{t("steps.patient.heading")}</h3>
      <ol className="mt-2 space-y-3">
        {steps.map((s) => (
          <li key={s._id} className="rounded-md border border-slate-200 bg-white p-3" data-testid="next-step">
            <p className="font-semibold break-words text-slate-900">{s.title}</p>
            {s.reason && (
              <p className="text-sm break-words text-slate-700">
                {t("steps.say.reason", { reason: s.reason })}
              </p>
            )}
            <p className="mt-1 flex flex-wrap items-center gap-2 text-sm">
              <time dateTime={s.dueOn} className="font-medium text-slate-800">
                {s.due}
              </time>
              <span className={`rounded px-2 py-0.5 text-xs font-semibold ${STATE_STYLE[s.state]}`}>
                {s.stateLabel}
              </span>
            </p>
            {s.stateReason && (
              <p className="text-sm break-words text-slate-700">
                {t("steps.patient.stateReason", { reason: s.stateReason })}
              </p>
            )}
            {s.referral && (
              <div className="mt-1 text-sm text-slate-700">
                <p>{t("steps.patient.referralCode", { code: s.referral.code })}</p>
                {s.referral.seen && <p>{t("steps.patient.referralSeen", { date: s.referral.seen })}</p>}
                {s.referral.note && (
                  <p className="break-words">{t("steps.patient.referralNote", { note: s.referral.note })}</p>
                )}
              </div>
            )}
            {canAct && <StepActions reportId={reportId} step={s} />}
          </li>
        ))}
      </ol>
    </section>
  );
}

function StepActions({ reportId, step }: { reportId: string; step: StepWords }) {
  const { t } = useTranslation();
  const hidden = (
    <>
      <input type="hidden" name="intent" value="step-state" />
      <input type="hidden" name="reportId" value={reportId} />
      <input type="hidden" name="stepId" value={step._id} />
    </>
  );
  if (step.state !== "open")
    return (
      <Form method="post" className="mt-2">
        {hidden}
        <input type="hidden" name="state" value="open" />
        <button type="submit" className="link text-sm">
          {t("steps.patient.reopen")}
        </button>
      </Form>
    );
  const reasonId = `step-${step._id}-reason`;
  return (
    <div className="mt-2 flex flex-wrap items-start gap-2">
      <Form method="post">
        {hidden}
        <input type="hidden" name="state" value="done" />
        <button type="submit" className="btn-secondary text-sm" data-testid="step-done">
          {t("steps.patient.done")}
        </button>
      </Form>
      <details className="w-full sm:w-auto">
        <summary className="btn-secondary cursor-pointer text-sm">{t("steps.patient.cannotGo")}</summary>
        <Form method="post" className="mt-2 space-y-2">
          {hidden}
          <input type="hidden" name="state" value="declined" />
          <label htmlFor={reasonId} className="field-label">
            {t("steps.patient.why")}
          </label>
          <input id={reasonId} name="reason" required maxLength={300} className="field-input" />
          <button type="submit" className="btn-primary text-sm">
            {t("steps.patient.save")}
          </button>
        </Form>
      </details>
    </div>
  );
}

/**
 * The offer on a repeat report's card (decision 0114): its lab values answer an earlier opinion's
 * tests step. Attached, the step is done and the doctor who asked sees the two reports' values
 * side by side.
 */
export function AttachOffers({
  reportId,
  offers,
}: {
  reportId: string;
  offers: { stepId: string; title: string; due: string }[];
}) {
  const { t } = useTranslation();
  if (!offers.length) return null;
  return (
    <section className="mt-3 rounded-lg border border-amber-300 bg-amber-50 p-3" data-testid="attach-offer">
      <h3 className="font-bold text-slate-900">{t("steps.patient.offerHeading")}</h3>
      <p className="text-sm text-slate-800">{t("steps.patient.offerIntro")}</p>
      <ul className="mt-2 space-y-2">
        {offers.map((o) => (
          <li key={o.stepId} className="rounded-md border border-slate-200 bg-white p-3">
            <p className="font-semibold break-words text-slate-900">{o.title}</p>
            <p className="text-sm text-slate-700">{o.due}</p>
            <Form method="post" className="mt-2">
              <input type="hidden" name="intent" value="step-attach" />
              <input type="hidden" name="reportId" value={reportId} />
              <input type="hidden" name="stepId" value={o.stepId} />
              <button type="submit" className="btn-primary text-sm" data-testid="attach-step">
                {t("steps.patient.attach")}
              </button>
            </Form>
          </li>
        ))}
      </ul>
    </section>
  );
}
