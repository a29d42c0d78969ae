import type { LoaderFunctionArgs } from "@remix-run/node";
import {
  Form,
  Link,
  NavLink,
  Outlet,
  useLoaderData,
  useLocation,
  useRouteLoaderData,
} from "@remix-run/react";
import { useCallback, useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { ErrorMessage, ErrorPage } from "~/components/ErrorBoundary";
import { Icon } from "~/components/ui/Icon";
import type { AccountType } from "~/db/types";
import { expertDetailsFor, avatarUrl } from "~/domain/accounts/index.server";
import { requireActor } from "~/utils/auth.server";

export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireActor(request);
  // An expert who is not approved: waiting for the admin, or rejected (issue 19: say why).
  const waiting =
    actor.accountType === "Expert" && !actor.approved
      ? (await expertDetailsFor([actor.id])).get(actor.id)
      : undefined;
  return {
    rejectionReason: waiting?.rejectedAt ? (waiting.rejectionReason ?? "") : null,
    user: {
      id: actor.id,
      firstName: actor.firstName,
      lastName: actor.lastName,
      email: actor.email,
      accountType: actor.accountType,
      approved: actor.approved,
      image: avatarUrl(actor.image),
    },
  };
}

export type DashboardUser = Awaited<ReturnType<typeof loader>>["user"];

type Icon = keyof typeof ICONS;
type NavItem = { to: string; label: string; icon: Icon };
type NavGroup = { group: string; label: string; icon: Icon; items: NavItem[]; alsoActive?: string[] };
type NavEntry = NavItem | NavGroup;

const TITLE_KEY: Record<AccountType, string> = {
  Patient: "dashboard.patientTitle",
  Expert: "dashboard.expertTitle",
  Admin: "dashboard.adminTitle",
};

/** The sidebar of each account type, exactly as in the spec's table (plus the admin's audit log and messages). */
function sidebarFor(user: Pick<DashboardUser, "id" | "accountType">, t: (k: string) => string): NavEntry[] {
  const all: NavEntry[] = [
    { to: "/dashboard/home", label: t("dashboard.home"), icon: "home" },
    { to: "/dashboard/my-profile", label: t("dashboard.myProfile"), icon: "user" },
  ];
  switch (user.accountType) {
    case "Patient":
      return [
        ...all,
        {
          group: "report",
          label: t("dashboard.report"),
          icon: "report",
          // Sharing a report with a doctor (issue 14) belongs to the patient's reports.
          alsoActive: ["/dashboard/share"],
          items: [
            { to: "/dashboard/upload-report", label: t("dashboard.uploadReport"), icon: "upload" },
            {
              to: `/dashboard/previous-report/${user.id}`,
              label: t("dashboard.previousReport"),
              icon: "history",
            },
          ],
        },
        // Issue 14: consents, requests, erasure, nominee (others reach it from Settings).
        { to: "/dashboard/my-data", label: t("rights.navMyData"), icon: "shield" },
      ];
    case "Expert":
      return [
        ...all,
        {
          group: "report",
          label: t("dashboard.report"),
          icon: "report",
          // Adding a review belongs to the pending-report flow.
          alsoActive: ["/dashboard/add-review"],
          items: [
            { to: "/dashboard/pending-report", label: t("dashboard.pendingReport"), icon: "clock" },
            {
              to: "/dashboard/previous-reviewed-report",
              label: t("dashboard.previousReviewedReport"),
              icon: "history",
            },
            { to: "/dashboard/follow-ups", label: t("dashboard.followUps"), icon: "chat" },
          ],
        },
      ];
    case "Admin":
      return [
        ...all,
        {
          group: "report",
          label: t("dashboard.report"),
          icon: "report",
          items: [
            { to: "/dashboard/pending-report", label: t("dashboard.pendingReport"), icon: "clock" },
            {
              to: "/dashboard/previous-reviewed-reports",
              label: t("dashboard.previousReviewedReport"),
              icon: "history",
            },
            { to: "/dashboard/turnaround", label: t("dashboard.turnaround"), icon: "gauge" },
          ],
        },
        { to: "/dashboard/pending-expert", label: t("dashboard.pendingExpert"), icon: "userPlus" },
        { to: "/dashboard/approved-expert", label: t("dashboard.approvedExperts"), icon: "users" },
        { to: "/dashboard/users", label: t("dashboard.users"), icon: "users" },
        { to: "/dashboard/audit-log", label: t("dashboard.auditLog"), icon: "list" },
        { to: "/dashboard/messages", label: t("dashboard.messages"), icon: "mail" },
        { to: "/dashboard/rights-requests", label: t("rights.navRequests"), icon: "shield" },
      ];
  }
}

/** Whether `pathname` is `to` or below it (so a plural path never matches its singular). */
function isUnder(pathname: string, to: string) {
  return pathname === to || pathname.startsWith(`${to}/`);
}

const ICONS = {
  home: "M3 11.5 12 4l9 7.5M5 10v10h5v-6h4v6h5V10",
  user: "M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zm-7 8c0-3.3 3.1-6 7-6s7 2.7 7 6",
  report: "M7 3h7l5 5v13H7zM14 3v5h5M10 13h6M10 17h6",
  upload: "M12 16V4m0 0-4 4m4-4 4 4M5 16v4h14v-4",
  history: "M4 12a8 8 0 1 0 2.3-5.6L4 8.7M4 4v4.7h4.7M12 8v4l3 2",
  clock: "M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zm0-13v4l3 2",
  userPlus: "M10 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zm-7 8c0-3.3 3.1-6 7-6 1.2 0 2.3.2 3.2.7M18 14v6m-3-3h6",
  users:
    "M9 11a3.5 3.5 0 1 0 0-7 3.5 3.5 0 0 0 0 7zm-6 9c0-3 2.7-5.5 6-5.5s6 2.5 6 5.5M16 4.5a3.5 3.5 0 0 1 0 6.5M18 14.8c1.8.8 3 2.6 3 5.2",
  list: "M9 6h11M9 12h11M9 18h11M4 6h.01M4 12h.01M4 18h.01",
  mail: "M3 6h18v12H3zM3 7l9 6 9-6",
  settings:
    "M12 15a3 3 0 1 0 0-6 3 3 0 0 0 0 6zm7.4-3 .1-1-2-1.6.3-2.4-2.3-.9-1.4-2-2.3.9L10 3.2 8.4 5.5l-2.5-.3-.9 2.3-2 1.4.9 2.3L2.7 13l2.3 1 .3 2.5 2.5-.1 1.6 2 2.3-1.2 2.3 1.2 1.6-2 2.5.1.3-2.5 2.3-1-1-1z",
  logout: "M15 4h4v16h-4M10 8l-4 4 4 4M6 12h10",
  menu: "M4 6h16M4 12h16M4 18h16",
  chevron: "m9 6 6 6-6 6",
  chat: "M4 5h16v11H9l-5 4zM8 9h8M8 12h5",
  gauge: "M4 16a8 8 0 1 1 16 0M12 16l4-5M4 20h16",
  shield: "M12 3 5 6v5c0 4.4 3 8.3 7 10 4-1.7 7-5.6 7-10V6zM9 12l2 2 4-4",
} as const;

function NavIcon({ name, className = "h-5 w-5 shrink-0" }: { name: Icon; className?: string }) {
  return (
    <Icon className={className}>
      <path d={ICONS[name]} />
    </Icon>
  );
}

const linkClass = ({ isActive }: { isActive: boolean }) =>
  `flex min-h-11 items-center gap-3 rounded-lg border-l-4 px-3 py-2 text-[0.95rem] leading-snug ${
    isActive
      ? "border-brand-700 bg-brand-50 font-bold text-brand-800"
      : "border-transparent font-semibold text-slate-700 hover:bg-slate-100"
  }`;

function useHydrated() {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return hydrated;
}

function SidebarNav({
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
  return (
    <nav aria-label={t("dashboard.sidebar")}>
      <ul className="space-y-1">
        {entries.map((entry) => {
          if (!("group" in entry)) {
            return (
              <li key={entry.to}>
                <NavLink to={entry.to} className={linkClass} prefetch="intent">
                  <NavIcon name={entry.icon} />
                  <span>{entry.label}</span>
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
                      <NavLink to={item.to} className={linkClass} prefetch="intent">
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

/** 'Are You Sure?' — a modal dialog: focus moves in, Escape closes, focus returns to the trigger. */
function LogoutDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const ref = useRef<HTMLDialogElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      dialog.showModal();
      cancelRef.current?.focus();
    } else if (!open && dialog.open) {
      dialog.close();
    }
  }, [open]);
  return (
    <dialog
      ref={ref}
      aria-labelledby="logout-title"
      aria-describedby="logout-text"
      onClose={onClose}
      onClick={(e) => {
        // A click on the backdrop lands on the dialog element itself.
        if (e.target === e.currentTarget) onClose();
      }}
      className="m-auto w-[calc(100%-2rem)] max-w-sm rounded-xl bg-white p-0 shadow-xl backdrop:bg-slate-900/50"
    >
      <div className="p-6">
        <h2 id="logout-title" className="text-xl font-bold text-slate-900">
          {t("accounts.logoutTitle")}
        </h2>
        <p id="logout-text" className="mt-2 text-slate-700">
          {t("accounts.logoutText")}
        </p>
        <div className="mt-6 flex flex-wrap justify-end gap-3">
          <button ref={cancelRef} type="button" className="btn-secondary" onClick={onClose}>
            {t("common.cancel")}
          </button>
          <Form method="post" action="/logout">
            <button type="submit" className="btn-danger">
              {t("accounts.logoutButton")}
            </button>
          </Form>
        </div>
      </div>
    </dialog>
  );
}

export default function DashboardLayout() {
  const { user, rejectionReason } = useLoaderData<typeof loader>();
  return (
    <DashboardFrame user={user} rejectionReason={rejectionReason}>
      <Outlet />
    </DashboardFrame>
  );
}

/**
 * A screen inside the dashboard that fails (a report that is not there, a server error) shows
 * its error where the screen would be, with the header, the sidebar and the way back around it.
 * If the dashboard itself could not load, the error is the whole page, as at the root.
 */
export function ErrorBoundary() {
  const data = useRouteLoaderData<typeof loader>("routes/dashboard");
  const { t } = useTranslation();
  if (!data) return <ErrorPage />;
  return (
    <DashboardFrame user={data.user} rejectionReason={data.rejectionReason}>
      <ErrorMessage backTo="/dashboard/home" backLabel={t("reports.goToDashboardHome")} />
    </DashboardFrame>
  );
}

/** The dashboard around a screen: the sidebar (a menu on phones), the approval notice and the logout dialog. */
function DashboardFrame({
  user,
  rejectionReason,
  children,
}: {
  user: DashboardUser;
  rejectionReason: string | null;
  children: React.ReactNode;
}) {
  const { t } = useTranslation();
  const location = useLocation();
  const hydrated = useHydrated();
  const entries = sidebarFor(user, t);
  const menuRef = useRef<HTMLDetailsElement>(null);
  const navRef = useRef<HTMLDivElement>(null);
  const [logoutOpen, setLogoutOpen] = useState(false);
  const trigger = useRef<HTMLElement | null>(null);

  // The phone menu closes after a navigation, on Escape and on a tap outside it.
  useEffect(() => {
    if (menuRef.current) menuRef.current.open = false;
  }, [location.pathname]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const menu = menuRef.current;
      if (e.key === "Escape" && menu?.open) {
        menu.open = false;
        menu.querySelector("summary")?.focus();
      }
    };
    const onPointer = (e: PointerEvent) => {
      const menu = menuRef.current;
      const target = e.target as Node;
      if (menu?.open && !menu.contains(target) && !navRef.current?.contains(target)) menu.open = false;
    };
    document.addEventListener("keydown", onKey);
    document.addEventListener("pointerdown", onPointer);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("pointerdown", onPointer);
    };
  }, []);

  const openLogout = useCallback((el: HTMLElement) => {
    trigger.current = el;
    setLogoutOpen(true);
  }, []);
  const closeLogout = useCallback(() => {
    setLogoutOpen(false);
    // The trigger may sit in the phone menu; reopen nothing, just give focus back if it is visible.
    const el = trigger.current;
    trigger.current = null;
    if (el && el.isConnected && el.offsetParent !== null) requestAnimationFrame(() => el.focus());
  }, []);

  const title = t(TITLE_KEY[user.accountType]);
  return (
    <div className="mx-auto flex w-full max-w-6xl flex-1 flex-col gap-4 px-3 py-4 sm:px-4 md:flex-row md:gap-8 md:py-8">
      <aside className="md:w-60 md:shrink-0" aria-label={title}>
        <div className="relative flex items-center justify-between gap-3 md:block">
          <h2 className="text-lg font-bold text-brand-800 md:mb-4 md:px-3 md:text-xl">{title}</h2>
          {/* Phones: the sidebar sits behind a Menu disclosure (no JavaScript needed), at most 200px wide.
              One sidebar for every width: the disclosure only shows or hides it below md (pure CSS). */}
          <details ref={menuRef} className="peer md:hidden">
            <summary className="btn-secondary list-none [&::-webkit-details-marker]:hidden">
              <NavIcon name="menu" />
              <span>{t("common.menu")}</span>
            </summary>
          </details>
          <div
            ref={navRef}
            className="absolute top-full right-0 z-20 mt-2 hidden w-[200px] max-w-[200px] rounded-xl border border-slate-200 bg-white p-2 shadow-lg peer-open:block md:static md:mt-0 md:block md:w-auto md:max-w-none md:rounded-none md:border-0 md:bg-transparent md:p-0 md:shadow-none"
          >
            <SidebarNav entries={entries} hydrated={hydrated} onLogout={openLogout} />
          </div>
        </div>
      </aside>
      <main id="main" className="min-w-0 flex-1">
        {user.accountType === "Expert" && !user.approved && (
          <p
            role="note"
            className="mb-4 rounded-lg border border-amber-300 bg-amber-50 px-4 py-3 text-amber-900"
          >
            {rejectionReason !== null ? (
              <>
                {t("dashboard.rejectedNotice", { reason: rejectionReason })}{" "}
                <Link to="/dashboard/settings#expert-details-heading" className="link font-semibold">
                  {t("dashboard.settings")}
                </Link>
              </>
            ) : (
              t("dashboard.awaitingApproval")
            )}
          </p>
        )}
        {children}
      </main>
      {hydrated && <LogoutDialog open={logoutOpen} onClose={closeLogout} />}
    </div>
  );
}
