import { Link, useLocation } from "@remix-run/react";
import { useCallback, useEffect, useRef, useState } from "react";
import { useTranslation } from "~/i18n/useTranslation";
import { LogoutDialog } from "./LogoutDialog";
import { worksOffline } from "./useOfflineSync";
import { NavIcon } from "./NavIcon";
import type { DashboardUser } from "./route";
import { sidebarFor, TITLE_KEY, type Waiting } from "./sidebar";
import { SidebarNav } from "./SidebarNav";

function useHydrated() {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return hydrated;
}

/** The dashboard around a screen: the sidebar (a menu on phones), the approval notice and the logout dialog. */
export function DashboardFrame({
  user,
  rejectionReason,
  children,
  waiting = null,
}: {
  user: DashboardUser;
  rejectionReason: string | null;
  /** The admin's waiting approvals, counted beside their entries. */
  waiting?: Waiting | null;
  children: React.ReactNode;
}) {
  const { t } = useTranslation();
  const location = useLocation();
  const hydrated = useHydrated();
  const entries = sidebarFor(user, t, waiting);
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
      {hydrated && (
        <LogoutDialog open={logoutOpen} onClose={closeLogout} offline={worksOffline(user.accountType)} />
      )}
    </div>
  );
}
