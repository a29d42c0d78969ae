import { Form, Link, useLoaderData, useLocation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { useDateText } from "~/components/reports/LocalDate";
import { StatusPill } from "~/components/rights/StatusPill";
import type { ConsentState } from "~/domain/rights/index.server";
import { CONSENT_TEXTS } from "~/schemas/limits";
import type { loader } from "./route";
import { ProfileConsents } from "./ProfileConsents";
import { MY_DATA, Section, useBusy } from "./Section";

/**
 * The patient's consents (action: consent.server.ts), each with the text shown and its version,
 * what withdrawing it would do, and the history of every choice.
 */

type Consents = ReturnType<typeof useLoaderData<typeof loader>>["consents"];

const VIA_KEYS: Record<string, string> = {
  upload: "rights.viaUpload",
  settings: "rights.viaSettings",
  api: "rights.viaApi",
  // Review consent for reports a family member or health worker uploaded before a take-over.
  manager: "rights.viaManager",
  centre: "rights.viaCentre",
};

function ConsentCard({ state, effect }: { state: ConsentState; effect: Consents }) {
  const { t } = useTranslation();
  const { confirm } = useLoaderData<typeof loader>();
  const location = useLocation();
  const busy = useBusy("consent");
  const { dateTime } = useDateText();
  const purpose = state.purpose;
  const pending = effect?.withdrawEffect.pendingReports ?? 0;
  const reviewed = effect?.withdrawEffect.reviewedReports ?? 0;
  const id = `consent-${purpose}`;
  const via = state.via ? t(VIA_KEYS[state.via] ?? "rights.viaSettings", { name: state.by ?? "" }) : "";
  let status: { tone: "green" | "amber" | "grey"; label: string };
  if (state.granted) status = { tone: "green", label: t("rights.statusGiven") };
  else if (state.recorded) status = { tone: "amber", label: t("rights.statusWithdrawn") };
  else status = { tone: "grey", label: t("rights.statusNotGiven") };

  let since: string;
  if (state.recorded && state.at)
    since = t(state.granted ? "rights.givenOn" : "rights.withdrawnOn", { date: dateTime(state.at), via });
  else if (purpose === "review" && state.granted && state.at)
    since = t("rights.givenOn", { date: dateTime(state.at), via });
  else
    since = t(
      purpose === "contact"
        ? "rights.defaultContact"
        : purpose === "statistics"
          ? "rights.defaultStatistics"
          : "rights.defaultReview",
    );

  const effectText =
    purpose === "review"
      ? pending > 0
        ? t("rights.effectReview", { pending, reviewed })
        : t("rights.effectReviewNone")
      : purpose === "contact"
        ? t("rights.effectContact")
        : t("rights.effectStatistics");

  // Withdrawing review consent deletes waiting reports: that step asks once more (?confirm=review).
  const needsConfirm = purpose === "review" && state.granted && pending > 0;
  const confirming = needsConfirm && confirm;
  const confirmHref = `${location.pathname}?confirm=review#${id}`;

  return (
    <article
      id={id}
      aria-labelledby={`${id}-title`}
      className="scroll-mt-4 rounded-lg border border-slate-200 p-3 sm:p-4"
    >
      <div className="flex flex-wrap items-start justify-between gap-2">
        <h3 id={`${id}-title`} className="min-w-0 text-lg font-bold text-slate-900">
          {t(CONSENT_TEXTS[purpose].titleKey)}
        </h3>
        <StatusPill tone={status.tone}>{status.label}</StatusPill>
      </div>
      <blockquote className="mt-2 border-l-4 border-slate-300 pl-3 text-slate-800">{state.text}</blockquote>
      <p className="mt-1 text-sm text-slate-600">
        {t("rights.textVersion", { version: state.currentTextVersion })}
      </p>
      <p className="mt-2 text-sm text-slate-700">{since}</p>
      {state.outdated && <p className="mt-2 text-sm font-semibold text-amber-900">{t("rights.outdated")}</p>}
      <p id={`${id}-effect`} className="mt-3 rounded-lg bg-slate-50 p-3 text-sm text-slate-800">
        {effectText}
      </p>
      {confirming ? (
        <div
          role="alertdialog"
          aria-labelledby={`${id}-confirm-title`}
          aria-describedby={`${id}-effect`}
          className="mt-3 rounded-lg border border-red-300 bg-red-50 p-4"
        >
          <p id={`${id}-confirm-title`} className="font-bold text-red-900">
            {t("rights.confirmWithdrawTitle")}
          </p>
          <Form method="post" action={MY_DATA} className="mt-3 flex flex-wrap gap-3">
            <input type="hidden" name="intent" value="consent" />
            <input type="hidden" name="purpose" value={purpose} />
            <input type="hidden" name="granted" value="false" />
            <button type="submit" className="btn-danger" disabled={busy}>
              {t("rights.confirmWithdrawButton", { pending })}
            </button>
            <Link to={`${MY_DATA}#${id}`} className="btn-secondary">
              {t("common.cancel")}
            </Link>
          </Form>
        </div>
      ) : needsConfirm ? (
        <Link to={confirmHref} className="btn-secondary mt-3" aria-describedby={`${id}-effect`}>
          {t("rights.withdraw")}
        </Link>
      ) : (
        <Form method="post" action={MY_DATA} className="mt-3">
          <input type="hidden" name="intent" value="consent" />
          <input type="hidden" name="purpose" value={purpose} />
          <input type="hidden" name="granted" value={state.granted && !state.outdated ? "false" : "true"} />
          <button
            type="submit"
            className={state.granted && !state.outdated ? "btn-secondary" : "btn-primary"}
            aria-describedby={`${id}-effect`}
            disabled={busy}
          >
            {state.granted
              ? state.outdated
                ? t("rights.giveAgain")
                : t("rights.withdraw")
              : t("rights.give")}
          </button>
        </Form>
      )}
    </article>
  );
}

export function ConsentsSection() {
  const { t } = useTranslation();
  const { consents } = useLoaderData<typeof loader>();
  const { dateTime } = useDateText();
  if (!consents) return null;
  return (
    <Section id="consents" title={t("rights.consentsTitle")} intro={t("rights.consentsIntro")}>
      <div className="space-y-4">
        {consents.consents.map((c) => (
          <ConsentCard key={c.purpose} state={c} effect={consents} />
        ))}
      </div>
      <ProfileConsents />
      {consents.history.length > 0 && (
        <details className="mt-4">
          <summary className="min-h-11 cursor-pointer py-2 font-semibold text-brand-800">
            {t("rights.historyTitle")}
          </summary>
          <ul className="mt-2 space-y-1 text-sm text-slate-700">
            {consents.history.map((h) => (
              <li key={h._id}>
                {t("rights.historyLine", {
                  date: dateTime(h.createdAt),
                  purpose: t(CONSENT_TEXTS[h.purpose].titleKey),
                  choice: t(h.granted ? "rights.statusGiven" : "rights.statusWithdrawn"),
                  version: h.textVersion,
                  via: t(VIA_KEYS[h.via] ?? "rights.viaSettings"),
                })}
              </li>
            ))}
          </ul>
        </details>
      )}
    </Section>
  );
}
