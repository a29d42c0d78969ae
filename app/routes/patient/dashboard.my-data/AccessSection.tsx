import { Form, Link, useLoaderData, useLocation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { useDateText } from "~/components/reports/LocalDate";
import { ProfileConsents } from "./ProfileConsents";
import type { loader } from "./route";
import { MY_DATA, Section, useBusy } from "./Section";

/**
 * Who can act for you (actions: access.server.ts): the family logins managing the person's profile
 * and the centre that registered them, each with Revoke. Revoking asks once more on the page
 * itself (`?revoke=<id>`, a plain link), so it works without JavaScript.
 */

function Confirm({
  id,
  text,
  intent,
  managerId,
}: {
  id: string;
  text: string;
  intent: "revoke-manager" | "revoke-centre";
  managerId?: string;
}) {
  const { t } = useTranslation();
  const busy = useBusy(intent);
  return (
    <div
      role="alertdialog"
      aria-labelledby={`${id}-confirm`}
      className="mt-3 rounded-lg border border-red-300 bg-red-50 p-4"
    >
      <p id={`${id}-confirm`} className="font-semibold text-red-900">
        {text}
      </p>
      <Form method="post" action={MY_DATA} className="mt-3 flex flex-wrap gap-3">
        <input type="hidden" name="intent" value={intent} />
        {managerId && <input type="hidden" name="managerId" value={managerId} />}
        <button type="submit" className="btn-danger" disabled={busy}>
          {t("control.revokeConfirmButton")}
        </button>
        <Link to={`${MY_DATA}#access`} className="btn-secondary">
          {t("common.cancel")}
        </Link>
      </Form>
    </div>
  );
}

export function AccessSection() {
  const { t } = useTranslation();
  const { access } = useLoaderData<typeof loader>();
  const location = useLocation();
  const { day } = useDateText();
  if (!access) return null;
  const { holders, confirm } = access;
  const revokeHref = (what: string) => {
    const q = new URLSearchParams(location.search);
    q.set("revoke", what);
    return `${location.pathname}?${q.toString()}#access-${what}`;
  };
  const none = holders.managers.length === 0 && !holders.centre;
  return (
    <Section id="access" title={t("control.accessTitle")} intro={t("control.accessIntro")}>
      {none ? (
        <p className="text-slate-700">{t("control.noOneElse")}</p>
      ) : (
        <ul className="space-y-3">
          {holders.managers.map((m) => {
            const name = `${m.firstName} ${m.lastName}`.trim();
            const id = `access-${m.managerId}`;
            return (
              <li
                key={m.managerId}
                id={id}
                className="scroll-mt-4 rounded-lg border border-slate-200 p-3 sm:p-4"
              >
                <div className="flex flex-wrap items-start justify-between gap-3">
                  <div className="min-w-0">
                    <p className="text-sm font-semibold text-slate-600">{t("control.familyLabel")}</p>
                    <p className="text-lg font-bold break-words text-slate-900">{name}</p>
                    <p className="text-sm text-slate-700">
                      {m.relationship
                        ? t("control.managerSince", { relationship: m.relationship, date: day(m.since) })
                        : t("control.managerSinceNoRelationship", { date: day(m.since) })}
                    </p>
                  </div>
                  {confirm !== m.managerId && (
                    <Link
                      to={revokeHref(m.managerId)}
                      className="btn-secondary"
                      aria-label={`${t("control.revoke")}: ${name}`}
                    >
                      {t("control.revoke")}
                    </Link>
                  )}
                </div>
                {confirm === m.managerId && (
                  <Confirm
                    id={id}
                    intent="revoke-manager"
                    managerId={m.managerId}
                    text={t("control.revokeManagerConfirm", { name })}
                  />
                )}
              </li>
            );
          })}
          {holders.centre && (
            <li id="access-centre" className="scroll-mt-4 rounded-lg border border-slate-200 p-3 sm:p-4">
              <div className="flex flex-wrap items-start justify-between gap-3">
                <div className="min-w-0">
                  <p className="text-sm font-semibold text-slate-600">{t("control.centreLabel")}</p>
                  <p className="text-lg font-bold break-words text-slate-900">{holders.centre.name}</p>
                  <p className="text-sm text-slate-700">{t("control.centreNote")}</p>
                </div>
                {confirm !== "centre" && (
                  <Link
                    to={revokeHref("centre")}
                    className="btn-secondary"
                    aria-label={`${t("control.revoke")}: ${holders.centre.name}`}
                  >
                    {t("control.revoke")}
                  </Link>
                )}
              </div>
              {confirm === "centre" && (
                <Confirm
                  id="access-centre"
                  intent="revoke-centre"
                  text={t("control.revokeCentreConfirm", { centre: holders.centre.name })}
                />
              )}
            </li>
          )}
        </ul>
      )}
    </Section>
  );
}

type Trail = NonNullable<ReturnType<typeof useLoaderData<typeof loader>>["access"]>["trail"];

function TrailList({ trail, member = false }: { trail: Trail; member?: boolean }) {
  const { t } = useTranslation();
  const { dateTime } = useDateText();
  if (trail.items.length === 0)
    return <p className="text-slate-700">{t(member ? "control.trailEmptyMember" : "control.trailEmpty")}</p>;
  return (
    <ol className="divide-y divide-slate-200" data-access-trail>
      {trail.items.map((e) => (
        <li key={e._id} className="py-2">
          <p className="break-words text-slate-900">{e.text}</p>
          <p className="text-sm text-slate-600">
            <time dateTime={e.at}>{dateTime(e.at)}</time>
          </p>
        </li>
      ))}
    </ol>
  );
}

/**
 * `?patientId=<member>`: a family manager's view of a member without a login of their own — the
 * consents given for them and their trail (the member cannot look themself).
 */
export function MemberSection() {
  const { t } = useTranslation();
  const { member } = useLoaderData<typeof loader>();
  if (!member) return null;
  return (
    <Section
      id="member"
      title={t("control.memberTitle", { name: member.name })}
      intro={t("control.memberIntro")}
    >
      <ProfileConsents member />
      <h3 className="mt-6 text-lg font-bold text-slate-900">{t("control.trailTitleMember")}</h3>
      <div className="mt-2" data-member-trail>
        <TrailList trail={member.trail} member />
      </div>
    </Section>
  );
}

/** The access trail: what others did with the person's records, newest first, paged by plain links. */
export function TrailSection() {
  const { t } = useTranslation();
  const { access } = useLoaderData<typeof loader>();
  const location = useLocation();
  if (!access) return null;
  const { trail } = access;
  const pages = Math.max(1, Math.ceil(trail.total / trail.pageSize));
  const pageHref = (p: number) => {
    const q = new URLSearchParams(location.search);
    q.delete("revoke");
    q.set("trailPage", String(p));
    return `${location.pathname}?${q.toString()}#trail`;
  };
  return (
    <Section id="trail" title={t("control.trailTitle")} intro={t("control.trailIntro")}>
      <TrailList trail={trail} />
      {pages > 1 && (
        <nav aria-label={t("control.trailTitle")} className="mt-3 flex flex-wrap items-center gap-3">
          {trail.page > 1 && (
            <Link to={pageHref(trail.page - 1)} className="btn-secondary">
              {t("common.previous")}
            </Link>
          )}
          <span className="text-sm text-slate-700">
            {t("common.pageOf", { page: trail.page, total: pages })}
          </span>
          {trail.page < pages && (
            <Link to={pageHref(trail.page + 1)} className="btn-secondary">
              {t("common.next")}
            </Link>
          )}
        </nav>
      )}
    </Section>
  );
}
