import { useLoaderData } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { useDateText } from "~/components/reports/LocalDate";
import { StatusPill } from "~/components/rights/StatusPill";
import { CONSENT_KIND_KEYS, CONSENT_METHOD_KEYS } from "~/schemas/limits";
import type { loader } from "./route";

/**
 * Inside the consents section: the consents others recorded for the person — a health worker at a
 * centre (how it was given, the witness, who recorded it where and when) or a guardian.
 */
export function ProfileConsents({ member = false }: { member?: boolean }) {
  const { t } = useTranslation();
  const { consents, member: shown } = useLoaderData<typeof loader>();
  const { dateTime } = useDateText();
  const list = (member ? shown?.consents : consents?.profileConsents) ?? [];
  const id = member ? "member-consents" : "profile-consents";
  return (
    <section aria-labelledby={`${id}-title`} className="mt-6" id={id}>
      <h3 id={`${id}-title`} className="text-lg font-bold text-slate-900">
        {t(member ? "control.memberConsentsTitle" : "control.othersConsentsTitle")}
      </h3>
      {list.length === 0 ? (
        <p className="mt-1 text-slate-700">
          {t(member ? "control.memberConsentsEmpty" : "control.othersConsentsEmpty")}
        </p>
      ) : (
        <>
          {!member && <p className="mt-1 max-w-prose text-slate-700">{t("control.othersConsentsIntro")}</p>}
          <ul className="mt-3 space-y-3" data-profile-consents>
            {list.map((c) => (
              <li key={c._id} className="rounded-lg border border-slate-200 p-3 sm:p-4">
                <div className="flex flex-wrap items-start justify-between gap-2">
                  <p className="min-w-0 font-bold text-slate-900">{t(CONSENT_KIND_KEYS[c.kind])}</p>
                  <StatusPill tone={c.granted ? "green" : "amber"}>
                    {t(c.granted ? "control.consentGranted" : "control.consentRefused")}
                  </StatusPill>
                </div>
                <ul className="mt-2 space-y-1 text-sm text-slate-800">
                  <li>{t("control.consentMethodLine", { method: t(CONSENT_METHOD_KEYS[c.method]) })}</li>
                  {c.witnessName && <li>{t("control.consentWitness", { name: c.witnessName })}</li>}
                  {c.relationship && (
                    <li>{t("control.consentRelationship", { relationship: c.relationship })}</li>
                  )}
                  <li>
                    {c.centre
                      ? t("control.consentRecordedAt", {
                          name: c.recordedBy.name || "—",
                          centre: c.centre.name,
                          date: dateTime(c.createdAt),
                        })
                      : t("control.consentRecordedBy", {
                          name: c.recordedBy.name || "—",
                          date: dateTime(c.createdAt),
                        })}
                  </li>
                  {c.shownAt && <li>{t("control.consentReadAloud", { date: dateTime(c.shownAt) })}</li>}
                  {c.evidence && <li>{t("control.consentEvidence")}</li>}
                  <li className="text-slate-600">{t("rights.textVersion", { version: c.textVersion })}</li>
                </ul>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
