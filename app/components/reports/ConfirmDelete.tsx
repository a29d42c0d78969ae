import { Form, Link, useLocation, useNavigation } from "@remix-run/react";
import { useEffect, useId, useRef, useState } from "react";
import { useTranslation } from "~/i18n/useTranslation";
import { useHydrated } from "./useHydrated";

function withConfirm(search: string, pathname: string, reportId: string | null) {
  const params = new URLSearchParams(search);
  if (reportId) params.set("confirm", reportId);
  else params.delete("confirm");
  const qs = params.toString();
  return `${pathname}${qs ? `?${qs}` : ""}`;
}

function DeleteForm({
  reportId,
  onCancel,
  cancelHref,
}: {
  reportId: string;
  onCancel?: () => void;
  cancelHref: string;
}) {
  const { t } = useTranslation();
  const navigation = useNavigation();
  const busy = navigation.state !== "idle" && navigation.formData?.get("reportId") === reportId;
  return (
    <Form method="post" className="mt-4 flex flex-wrap justify-end gap-3" preventScrollReset>
      <input type="hidden" name="intent" value="delete" />
      <input type="hidden" name="reportId" value={reportId} />
      {onCancel ? (
        <button type="button" className="btn-secondary" onClick={onCancel} data-autofocus>
          {t("common.cancel")}
        </button>
      ) : (
        <Link to={cancelHref} className="btn-secondary">
          {t("common.cancel")}
        </Link>
      )}
      <button type="submit" className="btn-danger" disabled={busy}>
        {busy ? t("reports.deleting") : t("reports.deleteConfirmButton")}
      </button>
    </Form>
  );
}

/**
 * Delete with a confirmation. Without JavaScript the Delete link opens a confirm step in
 * the page (?confirm=<id>); with JavaScript a modal dialog asks the same question.
 */
export function ConfirmDelete({ reportId, label }: { reportId: string; label: string }) {
  const { t } = useTranslation();
  const hydrated = useHydrated();
  const location = useLocation();
  const titleId = useId();
  const textId = useId();
  const confirming = new URLSearchParams(location.search).get("confirm") === reportId;
  const cancelHref = `${withConfirm(location.search, location.pathname, null)}#report-${reportId}`;
  const [open, setOpen] = useState(false);
  const dialogRef = useRef<HTMLDialogElement>(null);
  const triggerRef = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    const dialog = dialogRef.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      dialog.showModal();
      dialog.querySelector<HTMLElement>("[data-autofocus]")?.focus();
    } else if (!open && dialog.open) {
      dialog.close();
    }
  }, [open]);

  const close = () => {
    setOpen(false);
    requestAnimationFrame(() => triggerRef.current?.focus());
  };

  if (confirming) {
    return (
      <div
        role="alertdialog"
        aria-labelledby={titleId}
        aria-describedby={textId}
        className="rounded-lg border border-red-300 bg-red-50 p-4"
      >
        <p id={titleId} className="font-bold text-red-900">
          {t("reports.deleteConfirmTitle")}
        </p>
        <p id={textId} className="mt-1 text-sm text-red-900">
          {t("reports.deleteConfirmText")}
        </p>
        <DeleteForm reportId={reportId} cancelHref={cancelHref} />
      </div>
    );
  }

  if (!hydrated) {
    return (
      <Link
        to={`${withConfirm(location.search, location.pathname, reportId)}#report-${reportId}`}
        className="btn-danger"
      >
        {t("reports.delete")}
        <span className="sr-only"> {label}</span>
      </Link>
    );
  }

  return (
    <>
      <button
        ref={triggerRef}
        type="button"
        className="btn-danger"
        aria-haspopup="dialog"
        onClick={() => setOpen(true)}
      >
        {t("reports.delete")}
        <span className="sr-only"> {label}</span>
      </button>
      <dialog
        ref={dialogRef}
        aria-labelledby={titleId}
        aria-describedby={textId}
        onClose={() => open && close()}
        onClick={(e) => {
          if (e.target === e.currentTarget) close();
        }}
        className="m-auto w-[calc(100%-2rem)] max-w-sm rounded-xl bg-white p-0 shadow-xl backdrop:bg-slate-900/50"
      >
        <div className="p-6">
          <h2 id={titleId} className="text-xl font-bold text-slate-900">
            {t("reports.deleteConfirmTitle")}
          </h2>
          <p id={textId} className="mt-2 text-slate-700">
            {t("reports.deleteConfirmText")}
          </p>
          <DeleteForm reportId={reportId} cancelHref={cancelHref} onCancel={close} />
        </div>
      </dialog>
    </>
  );
}
