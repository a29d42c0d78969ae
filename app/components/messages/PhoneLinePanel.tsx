import type { PhoneLine, PhoneLineNode } from "~/domain/calls/index.server";
import { useTranslation } from "~/i18n/useTranslation";
import { LocalDate } from "~/components/reports/LocalDate";

const STATE: Record<PhoneLineNode["state"], string> = {
  registered: "calls.line.registered",
  registering: "calls.line.registering",
  "not-registered": "calls.line.notRegistered",
  "no-registration": "calls.line.noRegistration",
  "not-running": "calls.line.notRunning",
  silent: "calls.line.silent",
};
const GOOD = new Set(["registered", "no-registration"]);

/**
 * Above the Calls tab's list (decision 0093): whether a phone line is set up at all, and for a SIP
 * line whether it is registered with the trunk, the clinic's number, the forms of it the line
 * answers to and the UDP ports of the sound — so "no line" never reads as "no calls yet".
 */
export function PhoneLinePanel({ line }: { line: PhoneLine }) {
  const { t } = useTranslation();
  const row = (label: string, value: React.ReactNode) => (
    <>
      <dt className="font-semibold text-slate-600">{label}</dt>
      <dd className="break-words">{value}</dd>
    </>
  );
  if (line.kind === "none")
    return (
      <section className="card mb-4 border-amber-300 bg-amber-50" data-testid="phone-line" data-line="none">
        <h2 className="font-bold text-amber-950">{t("calls.line.title")}</h2>
        <p className="mt-1 text-amber-950">{t("calls.line.none")}</p>
      </section>
    );
  return (
    <section className="card mb-4" data-testid="phone-line" data-line={line.kind}>
      <h2 className="font-bold text-slate-900">{t("calls.line.title")}</h2>
      <dl className="mt-2 grid gap-1 text-sm sm:grid-cols-[12rem_1fr]">
        {row(
          t("calls.line.kind"),
          t(line.kind === "sip" ? "calls.line.sip" : "calls.line.provider", { host: line.trunk }),
        )}
        {row(t("calls.line.number"), line.number ?? t("calls.line.noNumber"))}
        {line.kind === "sip" && (
          <>
            <dt className="font-semibold text-slate-600">{t("calls.line.status")}</dt>
            <dd>
              {line.nodes.length === 0 ? (
                <span className="font-semibold text-red-800">{t("calls.line.notStarted")}</span>
              ) : (
                <ul>
                  {line.nodes.map((n) => (
                    <li
                      key={n.node}
                      data-line-state={n.state}
                      className={GOOD.has(n.state) ? "text-green-900" : "font-semibold text-red-800"}
                    >
                      {line.nodes.length > 1 && <span className="text-slate-700">{n.node}: </span>}
                      {t(STATE[n.state], { detail: n.detail ?? "—" })}{" "}
                      <span className="text-slate-600">
                        ({t("calls.line.since")}{" "}
                        <LocalDate iso={n.state === "silent" ? n.seenAt : n.since} withTime />)
                      </span>
                    </li>
                  ))}
                </ul>
              )}
            </dd>
            {row(
              t("calls.line.answersTo"),
              <span className="tabular-nums">{line.answersTo.join(", ")}</span>,
            )}
            {row(t("calls.line.listen"), <span className="tabular-nums">{line.listen}</span>)}
            {row(t("calls.line.trusted"), <span className="tabular-nums">{line.trusted.join(", ")}</span>)}
            {line.rtpPorts &&
              row(
                t("calls.line.rtp"),
                <span className="tabular-nums">
                  {t("calls.line.rtpPorts", { from: line.rtpPorts[0], to: line.rtpPorts[1] })}
                </span>,
              )}
          </>
        )}
        {/* Missed calls refused and why (decision 0101): forged ones, and the clinic's own number. */}
        <dt className="font-semibold text-slate-600">{t("calls.line.refused")}</dt>
        <dd data-testid="refused-calls">
          {line.refused.notTrunk + line.refused.ownNumber === 0 ? (
            t("calls.line.refusedNone")
          ) : (
            <ul className="font-semibold text-red-800">
              {line.refused.notTrunk > 0 && (
                <li>{t("calls.line.refusedNotTrunk", { n: line.refused.notTrunk })}</li>
              )}
              {line.refused.ownNumber > 0 && (
                <li>{t("calls.line.refusedOwnNumber", { n: line.refused.ownNumber })}</li>
              )}
            </ul>
          )}
        </dd>
      </dl>
    </section>
  );
}
