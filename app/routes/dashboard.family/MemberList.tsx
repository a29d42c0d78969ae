import { Link } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { useRelationshipLabel } from "~/components/WhoseReports";
import type { ApiFamilyMember } from "~/domain/care/index.server";

/** The profiles the account acts for, each with its short ID, its reports and (adults) a take-over link. */
export function MemberList({ members }: { members: ApiFamilyMember[] }) {
  const { t } = useTranslation();
  const relation = useRelationshipLabel();
  return (
    <section aria-labelledby="family-list-title" className="min-w-0">
      <h2 id="family-list-title" className="mb-3 text-lg font-bold text-slate-900">
        {t("family.listTitle")}
      </h2>
      <ul className="space-y-3" data-testid="family-members">
        {members.map((m) => (
          <li key={m._id} className="card" data-testid="family-member">
            <p className="flex flex-wrap items-baseline gap-x-2">
              <span className="text-lg font-bold text-slate-900">
                {`${m.firstName} ${m.lastName}`.trim()}
              </span>
              <span className="text-slate-600">({relation(m)})</span>
            </p>
            <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
              {m.shortId && (
                <>
                  <dt className="text-slate-600">{t("family.shortId")}</dt>
                  <dd className="font-mono font-semibold tracking-wide text-slate-900" data-testid="short-id">
                    {m.shortId}
                  </dd>
                </>
              )}
              {!m.self && (
                <>
                  <dt className="text-slate-600">{t("family.ageLabel")}</dt>
                  <dd className="text-slate-900">
                    {m.age === null ? t("family.ageUnknown") : t("family.ageYears", { count: m.age })}
                    {m.minor && m.age !== null ? ` · ${t("family.child")}` : ""}
                  </dd>
                </>
              )}
            </dl>
            {!m.self && m.hasOwnAccount && (
              <p className="mt-2 text-sm text-slate-700">{t("family.ownLogin")}</p>
            )}
            <p className="mt-3 flex flex-wrap gap-x-5 gap-y-2">
              <Link to={`/dashboard/previous-report/${encodeURIComponent(m._id)}`} className="link">
                {t("family.reports")}
              </Link>
              {m.canTakeOver && (
                <Link to={`/dashboard/family/${encodeURIComponent(m._id)}/take-over`} className="link">
                  {t("family.takeOver")}
                </Link>
              )}
            </p>
          </li>
        ))}
      </ul>
      {members.length < 2 && <p className="mt-3 text-slate-700">{t("family.empty")}</p>}
    </section>
  );
}
