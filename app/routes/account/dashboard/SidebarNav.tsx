import { Link, NavLink, useLocation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { NavIcon } from "./NavIcon";
import { isUnder, type NavEntry } from "./sidebar";

const linkClass = ({ isActive }: { isActive: boolean }) =>
  `flex min-h-11 items-center gap-3 rounded-lg border-l-4 px-3 py-2 text-[0.95rem] leading-snug ${
    isActive
      ? "border-brand-700 bg-brand-50 font-bold text-brand-800"
      : "border-transparent font-semibold text-slate-700 hover:bg-slate-100"
  }`;

/** How many wait behind an entry (none shown at 0). */
function Count({ n }: { n?: number }) {
  if (!n) return null;
  return (
    <span
      className="ml-auto min-w-6 rounded-full bg-amber-800 px-2 text-center text-sm font-bold text-white"
      data-testid="nav-count"
    >
      {n}
    </span>
  );
}

export function SidebarNav({
  entries,
  hydrated,
  onLogout,
}: {
  entries: NavEntry[];
  hydrated: boolean;
  onLogout: (trigger: HTMLElement) => void;
}) {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  // A link whose path holds another entry's path (the centre's patients above "Register a patient")
  // is active on its own page only, so one page never highlights two entries.
  const paths = entries.flatMap((e) => ("group" in e ? e.items.map((i) => i.to) : [e.to]));
  const endsAt = (to: string) => paths.some((o) => o !== to && isUnder(o, to));
  return (
    <nav aria-label={t("dashboard.sidebar")}>
      <ul className="space-y-1">
        {entries.map((entry) => {
          if (!("group" in entry)) {
            return (
              <li key={entry.to}>
                <NavLink to={entry.to} end={endsAt(entry.to)} className={linkClass} prefetch="intent">
                  <NavIcon name={entry.icon} />
                  <span>{entry.label}</span>
                  <Count n={entry.count} />
                </NavLink>
              </li>
            );
          }
          const active =
            entry.items.some((i) => isUnder(pathname, i.to)) ||
            (entry.alsoActive ?? []).some((p) => isUnder(pathname, p));
          return (
            <li key={entry.group}>
              {/* A disclosure that also works without JavaScript; open while one of its pages is shown. */}
              <details open={active} className="group/nav">
                <summary
                  className={`flex min-h-11 cursor-pointer list-none items-center gap-3 rounded-lg border-l-4 border-transparent px-3 py-2 font-semibold hover:bg-slate-100 [&::-webkit-details-marker]:hidden ${
                    active ? "text-brand-800" : "text-slate-700"
                  }`}
                >
                  <NavIcon name={entry.icon} />
                  <span className="flex-1">{entry.label}</span>
                  <NavIcon
                    name="chevron"
                    className="h-4 w-4 shrink-0 transition-transform group-open/nav:rotate-90"
                  />
                </summary>
                <ul className="mt-1 space-y-1 pl-4">
                  {entry.items.map((item) => (
                    <li key={item.to}>
                      <NavLink to={item.to} end={endsAt(item.to)} className={linkClass} prefetch="intent">
                        <NavIcon name={item.icon} />
                        <span>{item.label}</span>
                      </NavLink>
                    </li>
                  ))}
                </ul>
              </details>
            </li>
          );
        })}
      </ul>
      <ul className="mt-3 space-y-1 border-t border-slate-200 pt-3">
        <li>
          <NavLink to="/dashboard/settings" className={linkClass} prefetch="intent">
            <NavIcon name="settings" />
            <span>{t("dashboard.settings")}</span>
          </NavLink>
        </li>
        <li>
          {hydrated ? (
            <button
              type="button"
              className={`${linkClass({ isActive: false })} w-full text-left`}
              aria-haspopup="dialog"
              onClick={(e) => onLogout(e.currentTarget)}
            >
              <NavIcon name="logout" />
              <span>{t("dashboard.logout")}</span>
            </button>
          ) : (
            // Without JavaScript: the confirm page does what the modal does.
            <Link to="/logout" className={linkClass({ isActive: false })}>
              <NavIcon name="logout" />
              <span>{t("dashboard.logout")}</span>
            </Link>
          )}
        </li>
      </ul>
    </nav>
  );
}
