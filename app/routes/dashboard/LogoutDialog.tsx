import { Form } from "@remix-run/react";
import { useEffect, useRef } from "react";
import { useTranslation } from "~/i18n/useTranslation";

/** 'Are You Sure?' — a modal dialog: focus moves in, Escape closes, focus returns to the trigger. */
export function LogoutDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
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
