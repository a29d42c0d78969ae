import { Link, NavLink } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { Avatar, initials } from "./Avatar";
import { LanguageSwitcher } from "./LanguageSwitcher";
import { Logo } from "./Logo";

type HeaderUser = { firstName: string; lastName: string; image: string | null } | null;

const navClass = ({ isActive }: { isActive: boolean }) =>
  `inline-flex min-h-11 items-center rounded-lg px-2 font-semibold sm:px-3 ${
    isActive ? "bg-brand-50 text-brand-700 underline underline-offset-4" : "text-slate-700 hover:bg-slate-100"
  }`;

/** `accountLinks: false`: a page kept for offline use (decision 0063), drawn for nobody, offers no sign-in. */
export function Header({ user, accountLinks = true }: { user: HeaderUser; accountLinks?: boolean }) {
  const { t, i18n } = useTranslation();
  const fullName = user ? `${user.firstName?.trim() || "unknown"} ${user.lastName?.trim() || "user"}` : "";
  return (
    <header className="sticky top-0 z-30 border-b border-slate-200 bg-white/95 backdrop-blur">
      <div className="mx-auto flex max-w-6xl items-center gap-1 px-2 py-2 sm:gap-2 sm:px-4">
        <Link to="/" className="mr-auto rounded-lg">
          <Logo compact />
        </Link>
        <nav aria-label={t("nav.mainNav")} className="flex items-center gap-1">
          {/* A visitor's phone has no room for it beside Log In and Sign Up in Tamil: the logo is the way home. */}
          <NavLink to="/" end className={(s) => `${navClass(s)} ${user ? "" : "max-sm:hidden"}`}>
            {t("nav.home")}
          </NavLink>
          <NavLink to="/about-us" className={(s) => `${navClass(s)} max-sm:hidden`}>
            {t("nav.about")}
          </NavLink>
          <NavLink to="/contact-us" className={(s) => `${navClass(s)} max-sm:hidden`}>
            {t("nav.contact")}
          </NavLink>
        </nav>
        <LanguageSwitcher current={i18n.language} />
        {user ? (
          <details className="relative">
            <summary
              className="flex min-h-11 min-w-11 cursor-pointer list-none items-center justify-center rounded-full"
              // WCAG 2.5.3 (label in name): the name starts with what is shown — the initials ("WZ") —
              // then says what it is and whose; a picture shows no text, so its name is the rest alone.
              aria-label={
                user.image
                  ? t("nav.accountMenuFor", { name: fullName })
                  : `${initials(user.firstName, user.lastName)}, ${t("nav.accountMenuFor", { name: fullName })}`
              }
            >
              <Avatar
                firstName={user.firstName}
                lastName={user.lastName}
                image={user.image}
                size={36}
                decorative
              />
            </summary>
            <div className="absolute right-0 z-40 mt-1 w-44 rounded-lg border border-slate-200 bg-white p-1 shadow-lg">
              <Link
                to="/dashboard/my-profile"
                className="block min-h-11 rounded px-3 py-2 hover:bg-slate-100"
              >
                {t("nav.dashboard")}
              </Link>
              <Link to="/logout" className="block min-h-11 rounded px-3 py-2 hover:bg-slate-100">
                {t("nav.logout")}
              </Link>
            </div>
          </details>
        ) : !accountLinks ? null : (
          <div className="flex items-center gap-1">
            <Link to="/login" className="btn-secondary px-2 text-sm whitespace-nowrap sm:px-3">
              {t("nav.login")}
            </Link>
            <Link to="/signup" className="btn-primary px-2 text-sm whitespace-nowrap sm:px-3">
              {t("nav.signup")}
            </Link>
          </div>
        )}
      </div>
    </header>
  );
}
