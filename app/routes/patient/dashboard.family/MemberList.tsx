import { Link, useNavigation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { useRelationshipLabel } from "~/components/WhoseReports";
import type { ApiFamilyMember } from "~/domain/care/index.server";
import { NoticeForm, type NoticeChoice } from "~/components/care/NoticeForm";

/**
 * The profiles the account acts for, each with its short ID, its reports, (adults) a take-over
 * link and (members without their own login) how they hear that an opinion is ready, folded.
 */
export function MemberList({
  members,
  notices,
}: {
  members: ApiFamilyMember[];
  /** Each such member's "call me" choice (the account's own is in Settings). */
  notices: Record<string, NoticeChoice>;
}) {
  const { t } = useTranslation();
  const relation = useRelationshipLabel();
  const navigation = useNavigation();
  const saving =
    navigation.state === "submitting" && navigation.formData?.get("intent") === "calls"
      ? String(navigation.formData.get("patientId"))
      : null;
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
            {notices[m._id] && (
              <details
                className="mt-3 rounded-lg border border-slate-200 px-3 py-1"
                data-testid="member-notice"
              >
                <summary
                  id={`notice-${m._id}`}
                  className="min-h-11 cursor-pointer py-2.5 font-semibold text-slate-800"
                >
                  {t("calls.titleFor", { name: `${m.firstName} ${m.lastName}`.trim() })}
                </summary>
                <div className="pb-2 pt-1">
                  <NoticeForm
                    choice={notices[m._id]}
                    busy={saving === m._id}
                    headingId={`notice-${m._id}`}
                    patientId={m._id}
                    // A member without a number of their own is called on the family's (decision 0093).
                    addPhone="/dashboard/settings#profile-heading"
                  />
                </div>
              </details>
            )}
          </li>
        ))}
      </ul>
      {members.length < 2 && <p className="mt-3 text-slate-700">{t("family.empty")}</p>}
    </section>
  );
}
