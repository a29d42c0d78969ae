import { Link } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { site } from "~/site";
import { LogoMark } from "./Logo";

const icons: Record<string, JSX.Element> = {
  instagram: (
    <path d="M7 3h10a4 4 0 0 1 4 4v10a4 4 0 0 1-4 4H7a4 4 0 0 1-4-4V7a4 4 0 0 1 4-4zm5 5a4 4 0 1 0 0 8 4 4 0 0 0 0-8zm5.5-2a1 1 0 1 0 0 2 1 1 0 0 0 0-2z" />
  ),
  facebook: <path d="M14 8h3V4h-3c-2.8 0-4 1.8-4 4.5V11H7v4h3v7h4v-7h3l1-4h-4V8.8c0-.5.3-.8 1-.8z" />,
  twitter: <path d="M4 4h4.5l4 5.5L17 4h3l-6 7.3L21 20h-4.5l-4.3-5.9L7 20H4l6.7-7.9z" />,
  youtube: (
    <path d="M21.6 7.2a2.5 2.5 0 0 0-1.8-1.8C18.2 5 12 5 12 5s-6.2 0-7.8.4A2.5 2.5 0 0 0 2.4 7.2 26 26 0 0 0 2 12a26 26 0 0 0 .4 4.8 2.5 2.5 0 0 0 1.8 1.8C5.8 19 12 19 12 19s6.2 0 7.8-.4a2.5 2.5 0 0 0 1.8-1.8A26 26 0 0 0 22 12a26 26 0 0 0-.4-4.8zM10 15V9l5.2 3z" />
  ),
};

export function Footer() {
  const { t } = useTranslation();
  return (
    <footer className="mt-auto border-t border-slate-200 bg-slate-900 text-slate-100">
      <div className="mx-auto flex max-w-6xl flex-col items-center gap-4 px-4 py-8 text-center">
        <Link to="/" className="inline-flex items-center gap-2 text-lg font-bold text-white">
          <LogoMark />
          <span>{site.productName}</span>
        </Link>
        <p className="text-sm font-semibold tracking-widest">{t("footer.stayInTouch")}</p>
        <ul className="flex gap-3" aria-label={t("footer.social")}>
          {site.social.map((s) => (
            <li key={s.key}>
              <a
                href={s.href}
                target="_blank"
                rel="noopener noreferrer"
                className="inline-flex h-11 w-11 items-center justify-center rounded-full bg-slate-800 text-white hover:bg-brand-700"
              >
                <svg viewBox="0 0 24 24" className="h-5 w-5" fill="currentColor" aria-hidden="true">
                  {icons[s.key]}
                </svg>
                <span className="sr-only">
                  {s.label} {t("footer.opensNewTab")}
                </span>
              </a>
            </li>
          ))}
        </ul>
        <a href="/api-docs" className="text-sm text-slate-200 underline underline-offset-2 hover:text-white">
          {t("footer.apiReference")}
        </a>
        <a
          href="/contact-us#grievance"
          className="text-sm text-slate-200 underline underline-offset-2 hover:text-white"
        >
          {t("rights.footerGrievance")}
        </a>
        <p className="text-sm text-slate-300">
          {t("footer.copyright", { year: site.footerYear, product: site.productName })}
        </p>
      </div>
    </footer>
  );
}
