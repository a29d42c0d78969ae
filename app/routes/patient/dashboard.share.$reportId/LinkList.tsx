import { Form, Link, useLocation, useNavigation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { useDateText } from "~/components/reports/LocalDate";
import type { ApiShareLink } from "~/domain/sharing/index.server";

/**
 * The report's links with their state, opens and a Revoke button (action: revoke.server.ts),
 * which asks once more (?revoke=<id>) before it posts.
 */

const STATUS_LOOK: Record<ApiShareLink["status"], { key: string; look: string }> = {
  active: { key: "share.statusActive", look: "border-green-300 bg-green-100 text-green-800" },
  expired: { key: "share.statusExpired", look: "border-slate-300 bg-slate-100 text-slate-800" },
  revoked: { key: "share.statusRevoked", look: "border-slate-300 bg-slate-100 text-slate-800" },
  used_up: { key: "share.statusUsedUp", look: "border-amber-300 bg-amber-100 text-amber-900" },
  locked: { key: "share.statusLocked", look: "border-red-300 bg-red-100 text-red-900" },
};

export function LinkList({ links }: { links: ApiShareLink[] }) {
  const { t } = useTranslation();
  return (
    <section aria-labelledby="links" className="card min-w-0 scroll-mt-4 self-start">
      <h2 id="links" className="text-lg font-bold text-slate-900">
        {t("share.listTitle")}
      </h2>
      {links.length === 0 ? (
        <p className="mt-3 text-slate-600">{t("share.empty")}</p>
      ) : (
        <ul className="mt-3 space-y-3">
          {links.map((l) => (
            <LinkItem key={l._id} link={l} />
          ))}
        </ul>
      )}
    </section>
  );
}

function LinkItem({ link }: { link: ApiShareLink }) {
  const { t } = useTranslation();
  const dates = useDateText();
  const location = useLocation();
  const navigation = useNavigation();
  const confirming = new URLSearchParams(location.search).get("revoke") === link._id;
  const busy = navigation.state !== "idle" && navigation.formData?.get("linkId") === link._id;
  const status = STATUS_LOOK[link.status];
  const parts = [
    link.includeFile && t("share.partFile"),
    link.includeOpinion && t("share.partOpinion"),
    link.includeLetter && t("share.partLetter"),
  ]
    .filter(Boolean)
    .join(", ");
  const name = link.label || t("share.noLabel");
  return (
    <li
      id={`link-${link._id}`}
      className="scroll-mt-4 rounded-lg border border-slate-200 p-3"
      data-testid="share-link"
      data-status={link.status}
    >
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p
          className={`min-w-0 font-bold break-words ${link.label ? "text-slate-900" : "text-slate-600 italic"}`}
        >
          {name}
        </p>
        <span
          className={`inline-flex items-center rounded-full border px-2.5 py-0.5 text-sm font-semibold ${status.look}`}
        >
          {t(status.key)}
        </span>
      </div>
      <ul className="mt-1 space-y-0.5 text-sm text-slate-700">
        <li>{t("share.shares", { parts })}</li>
        <li>{t("share.createdOn", { date: dates.day(link.createdAt) })}</li>
        <li>
          {link.revokedAt
            ? t("share.revokedOn", { date: dates.dateTime(link.revokedAt) })
            : link.status === "expired"
              ? t("share.expiredOn", { date: dates.dateTime(link.expiresAt) })
              : t("share.worksUntil", { date: dates.dateTime(link.expiresAt) })}
        </li>
        <li data-testid="share-link-opens">
          {link.maxOpens !== null
            ? t("share.opensOf", { count: link.opens, max: link.maxOpens })
            : t("share.opens", { count: link.opens })}
          {" · "}
          {link.lastOpenedAt
            ? t("share.lastOpened", { date: dates.dateTime(link.lastOpenedAt) })
            : t("share.neverOpened")}
        </li>
        {link.passcode && <li>{t("share.withPasscode")}</li>}
      </ul>
      {link.status !== "revoked" &&
        (confirming ? (
          <div
            role="alertdialog"
            aria-labelledby={`revoke-title-${link._id}`}
            aria-describedby={`revoke-text-${link._id}`}
            className="mt-3 rounded-lg border border-red-300 bg-red-50 p-3"
          >
            <p id={`revoke-title-${link._id}`} className="font-bold text-red-900">
              {t("share.revokeConfirmTitle")}
            </p>
            <p id={`revoke-text-${link._id}`} className="mt-1 text-sm text-red-900">
              {t("share.revokeConfirmText")}
            </p>
            <Form method="post" action={location.pathname} className="mt-3 flex flex-wrap justify-end gap-3">
              <input type="hidden" name="intent" value="revoke" />
              <input type="hidden" name="linkId" value={link._id} />
              <Link to={`${location.pathname}#link-${link._id}`} className="btn-secondary">
                {t("common.cancel")}
              </Link>
              <button type="submit" className="btn-danger" disabled={busy}>
                {busy ? t("share.revoking") : t("share.revokeConfirm")}
              </button>
            </Form>
          </div>
        ) : (
          <div className="mt-3">
            <Link
              to={`${location.pathname}?revoke=${encodeURIComponent(link._id)}#link-${link._id}`}
              className="btn-secondary"
              preventScrollReset
            >
              {t("share.revoke")}
              <span className="sr-only"> {name}</span>
            </Link>
          </div>
        ))}
    </li>
  );
}
