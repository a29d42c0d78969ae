import { Link, useLocation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";

export type PageInfo = { page: number; pageSize: number; total: number; totalPages: number };

/** Previous / Page x of y / Next as plain links (?page=), keeping the other query parameters. */
export function Pager({ pagination }: { pagination: PageInfo }) {
  const { t } = useTranslation();
  const location = useLocation();
  const { page, totalPages } = pagination;
  if (totalPages <= 1 && page <= 1) return null;
  const href = (p: number) => {
    const params = new URLSearchParams(location.search);
    params.delete("confirm");
    if (p <= 1) params.delete("page");
    else params.set("page", String(p));
    const qs = params.toString();
    return `${location.pathname}${qs ? `?${qs}` : ""}`;
  };
  const prev = page > 1 ? Math.min(page - 1, totalPages) : null;
  const next = page < totalPages ? page + 1 : null;
  const off = "btn-secondary pointer-events-none opacity-50";
  return (
    // On a narrow phone (Tamil's words are long) "Page x of y" takes a line of its own above the two links.
    <nav
      aria-label={t("reports.pagination")}
      className="mt-6 flex flex-wrap items-center justify-between gap-3"
    >
      {prev ? (
        <Link to={href(prev)} className="btn-secondary" rel="prev">
          <span aria-hidden="true">←</span> {t("common.previous")}
        </Link>
      ) : (
        <span className={off} aria-disabled="true">
          <span aria-hidden="true">←</span> {t("common.previous")}
        </span>
      )}
      <p
        className="order-first w-full text-center text-sm font-semibold text-slate-700 sm:order-none sm:w-auto"
        aria-current="page"
      >
        {t("common.pageOf", { page, total: totalPages })}
      </p>
      {next ? (
        <Link to={href(next)} className="btn-secondary" rel="next">
          {t("common.next")} <span aria-hidden="true">→</span>
        </Link>
      ) : (
        <span className={off} aria-disabled="true">
          {t("common.next")} <span aria-hidden="true">→</span>
        </span>
      )}
    </nav>
  );
}
