import { Link } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { PageHeader } from "./PageHeader";

/**
 * A dashboard screen that is not for this account type: the screen's title and why,
 * inside the dashboard (sent with status 403), instead of the not-found page.
 */
export function NotAllowed({
  title,
  message,
  children,
}: {
  title: string;
  message: string;
  children?: React.ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <section className="max-w-2xl">
      <PageHeader title={title} />
      <p
        className="rounded-lg border border-amber-300 bg-amber-50 px-4 py-3 font-semibold text-amber-900"
        data-testid="not-allowed"
      >
        {message}
      </p>
      <p className="mt-6 flex flex-wrap gap-x-6 gap-y-2">
        {children}
        <Link to="/dashboard/home" className="link">
          {t("reports.goToDashboardHome")}
        </Link>
      </p>
    </section>
  );
}
