import { useTranslation } from "~/i18n/useTranslation";
import { LocalDate } from "~/components/reports/LocalDate";

export type CallRow = {
  _id: string;
  direction: "in" | "out";
  number: string;
  purpose: string;
  status: string;
  outcome: string | null;
  attempts: number;
  durationMs: number | null;
  lastError: string | null;
  createdAt: string;
};

/** Every purpose and outcome has its words (decision 0080): an admin never sees a raw word. */
const PURPOSE: Record<string, string> = {
  "missed-call": "calls.purposeMissed",
  callback: "calls.purposeCallback",
  "opinion-ready": "calls.purposeOpinion",
  general: "calls.purposeGeneral",
  "step-reminder": "calls.purposeStepReminder",
};
const OUTCOME: Record<string, string> = {
  heard: "calls.outcomes.heard",
  "callback-asked": "calls.outcomes.callbackAsked",
  verified: "calls.outcomes.verified",
  "not-verified": "calls.outcomes.notVerified",
  "hung-up": "calls.outcomes.hungUp",
  "no-answer": "calls.outcomes.noAnswer",
  busy: "calls.outcomes.busy",
  failed: "calls.outcomes.failed",
  written: "calls.outcomes.written",
  "general-heard": "calls.outcomes.generalHeard",
  lost: "calls.outcomes.lost",
  "callback-queued": "calls.outcomes.callbackQueued",
  "already-queued": "calls.outcomes.alreadyQueued",
  "over-budget": "calls.outcomes.overBudget",
  "not-callable": "calls.outcomes.notCallable",
  "general-queued": "calls.outcomes.generalQueued",
  ignored: "calls.outcomes.ignored",
  "refused-not-trunk": "calls.outcomes.refusedNotTrunk",
  "refused-own-number": "calls.outcomes.refusedOwnNumber",
  // A next step's reminder call (decision 0115): her keypad answer, or not placed.
  "step-done": "calls.outcomes.stepDone",
  "step-later": "calls.outcomes.stepLater",
  "step-declined": "calls.outcomes.stepDeclined",
  "not-needed": "calls.outcomes.notNeeded",
};
const WAITING: Record<string, string> = { queued: "calls.queued", calling: "calls.calling" };

/** The Calls tab of /dashboard/messages: one card per call, failures marked. */
export function CallList({ items }: { items: CallRow[] }) {
  const { t } = useTranslation();
  if (items.length === 0) return <p className="card text-slate-700">{t("calls.empty")}</p>;
  return (
    <ul className="space-y-3" data-testid="call-list">
      {items.map((c) => {
        const refused = c.outcome?.startsWith("refused-") ?? false;
        const outcome = c.outcome
          ? t(OUTCOME[c.outcome] ?? "calls.outcomes.failed")
          : t(WAITING[c.status] ?? "calls.queued");
        return (
          <li
            key={c._id}
            className={`card ${c.status === "failed" || refused ? "border-red-300" : ""}`}
            data-outcome={c.outcome ?? undefined}
          >
            <dl className="grid gap-1 text-sm sm:grid-cols-[8rem_1fr]">
              <dt className="font-semibold text-slate-600">{t("calls.when")}</dt>
              <dd>
                <LocalDate iso={c.createdAt} withTime />
              </dd>
              <dt className="font-semibold text-slate-600">{t("calls.direction")}</dt>
              <dd>{t(c.direction === "in" ? "calls.missedCall" : "calls.outCall")}</dd>
              <dt className="font-semibold text-slate-600">{t("calls.number")}</dt>
              <dd className="tabular-nums">{c.number}</dd>
              <dt className="font-semibold text-slate-600">{t("calls.purpose")}</dt>
              <dd>{t(PURPOSE[c.purpose] ?? "calls.purposeGeneral")}</dd>
              <dt className="font-semibold text-slate-600">{t("calls.outcome")}</dt>
              <dd className={c.status === "failed" || refused ? "font-semibold text-red-800" : ""}>
                {outcome}
              </dd>
              {c.direction === "out" && (
                <>
                  <dt className="font-semibold text-slate-600">{t("calls.attempts")}</dt>
                  <dd className="tabular-nums">{c.attempts}</dd>
                  <dt className="font-semibold text-slate-600">{t("calls.duration")}</dt>
                  <dd className="tabular-nums">
                    {c.durationMs ? `${Math.round(c.durationMs / 1000)} s` : "—"}
                  </dd>
                </>
              )}
              {c.lastError && (
                <>
                  {/* A refused call's note is the address it came from (decision 0101). */}
                  <dt className="font-semibold text-slate-600">
                    {t(refused ? "calls.cameFrom" : "calls.lastError")}
                  </dt>
                  <dd className="break-words">{c.lastError}</dd>
                </>
              )}
            </dl>
          </li>
        );
      })}
    </ul>
  );
}
