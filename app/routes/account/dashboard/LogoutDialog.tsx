import { Form } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "~/i18n/useTranslation";
import { useSignOutSubmit } from "~/offline/signout";

/** 'Are You Sure?' — a modal dialog: focus moves in, Escape closes, focus returns to the trigger. */
export function LogoutDialog({
  open,
  onClose,
  offline = false,
}: {
  open: boolean;
  onClose: () => void;
  /** The account works offline: say what waits on this phone, and that it stays. */
  offline?: boolean;
}) {
  const { t } = useTranslation();
  const ref = useRef<HTMLDialogElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const [waiting, setWaiting] = useState(0);
  const signOut = useSignOutSubmit();
  useEffect(() => {
    if (!open || !offline) return;
    let live = true;
    void import("~/offline/dashboard-sync.client")
      .then((m) => m.waitingCount())
      .then((n) => live && setWaiting(n))
      .catch(() => {});
    return () => {
      live = false;
    };
  }, [open, offline]);
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
        {waiting > 0 && (
          <p
            className="mt-3 rounded-lg border border-amber-400 bg-amber-50 p-3 text-amber-950"
            data-testid="logout-waiting"
          >
            {t("offline.logoutWaiting", { count: waiting })}
          </p>
        )}
        <div className="mt-6 flex flex-wrap justify-end gap-3">
          <button ref={cancelRef} type="button" className="btn-secondary" onClick={onClose}>
            {t("common.cancel")}
          </button>
          {/* Nobody is signed in on this phone any more (the service worker says so too). */}
          <Form method="post" action="/logout" onSubmit={signOut}>
            <button type="submit" className="btn-danger">
              {t("accounts.logoutButton")}
            </button>
          </Form>
        </div>
      </div>
    </dialog>
  );
}
