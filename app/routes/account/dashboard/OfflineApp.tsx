import { Link } from "@remix-run/react";
import { useEffect, useState } from "react";
import { useTranslation } from "~/i18n/useTranslation";
import { worksOffline } from "./useOfflineSync";

/**
 * Registers the service worker for the people who use the app offline; the registration module is
 * a chunk of its own, fetched only here. Returns the way to take a waiting new version, or null.
 */
export function useOfflineApp(accountType: string): (() => void) | null {
  const [apply, setApply] = useState<(() => void) | null>(null);
  useEffect(() => {
    if (!worksOffline(accountType)) return;
    let live = true;
    void import("~/sw/register.client").then(({ registerServiceWorker }) =>
      registerServiceWorker((take) => {
        if (live) setApply(() => take);
      }),
    );
    return () => {
      live = false;
    };
  }, [accountType]);
  return apply;
}

/** "A new version is ready — Reload": the new worker takes over only when the person says so. */
export function UpdateBanner({ onReload }: { onReload: () => void }) {
  const { t } = useTranslation();
  return (
    <div
      role="status"
      data-testid="update-banner"
      className="fixed inset-x-0 bottom-0 z-40 flex flex-wrap items-center justify-center gap-3 border-t border-brand-800 bg-brand-50 px-4 py-3 text-slate-900"
    >
      <span>{t("common.updateReady")}</span>
      <button type="button" className="btn-primary" onClick={onReload}>
        {t("common.reload")}
      </button>
    </div>
  );
}

/** Items wait on this phone, locked (decision 0072): the offline screen opens them with the password. */
export function LockedNotice({ count }: { count: number }) {
  const { t } = useTranslation();
  return (
    <p
      role="note"
      data-testid="outbox-locked"
      className="mb-4 rounded-lg border border-amber-400 bg-amber-50 px-4 py-3 text-amber-950"
    >
      {t("outboxLock.lockedNotice", { count })}{" "}
      <Link to="/offline" className="link font-semibold">
        {t("outboxLock.open")}
      </Link>
    </p>
  );
}
