import { createContext, useCallback, useContext, useEffect, useRef, useState } from "react";
import { useTranslation } from "~/i18n/useTranslation";

export type ToastKind = "success" | "error" | "info" | "warning" | "loading";
export type ToastItem = { id: string; type: ToastKind; message: string; description?: string };

/** Spec section 9: success 2000 ms, error 4000 ms, loading until dismissed, at most 20, top-center. */
const DURATION: Record<ToastKind, number | null> = {
  success: 2000,
  error: 4000,
  info: 3000,
  warning: 4000,
  loading: null,
};
const MAX_TOASTS = 20;

type Api = {
  show: (t: Omit<ToastItem, "id"> & { id?: string }) => string;
  dismiss: (id: string) => void;
};
const ToastContext = createContext<Api>({ show: () => "", dismiss: () => {} });
export const useToast = () => useContext(ToastContext);

let externalApi: Api | null = null;
/** For code outside React (e.g. an XHR upload callback). */
export const toast = {
  show: (t: Omit<ToastItem, "id"> & { id?: string }) => externalApi?.show(t) ?? "",
  dismiss: (id: string) => externalApi?.dismiss(id),
};

const styles: Record<ToastKind, string> = {
  success: "border-green-700 bg-green-50 text-green-900",
  error: "border-red-700 bg-red-50 text-red-900",
  info: "border-sky-700 bg-sky-50 text-sky-900",
  warning: "border-amber-700 bg-amber-50 text-amber-900",
  loading: "border-slate-500 bg-white text-slate-900",
};

export function Toaster({
  initial,
  children,
}: {
  initial: { id: string; type: string; message: string; description?: string } | null;
  children?: React.ReactNode;
}) {
  const { t } = useTranslation();
  const [items, setItems] = useState<ToastItem[]>(() =>
    initial ? [{ ...initial, type: initial.type as ToastKind }] : [],
  );
  const timers = useRef(new Map<string, ReturnType<typeof setTimeout>>());

  const dismiss = useCallback((id: string) => {
    setItems((list) => list.filter((i) => i.id !== id));
    const timer = timers.current.get(id);
    if (timer) clearTimeout(timer);
    timers.current.delete(id);
  }, []);

  const schedule = useCallback(
    (item: ToastItem) => {
      const ms = DURATION[item.type];
      if (ms == null) return;
      const old = timers.current.get(item.id);
      if (old) clearTimeout(old);
      timers.current.set(
        item.id,
        setTimeout(() => dismiss(item.id), ms),
      );
    },
    [dismiss],
  );

  const show = useCallback<Api["show"]>(
    (input) => {
      const item: ToastItem = { ...input, id: input.id ?? `${Date.now()}-${Math.random()}` };
      setItems((list) => [...list.filter((i) => i.id !== item.id), item].slice(-MAX_TOASTS));
      schedule(item);
      return item.id;
    },
    [schedule],
  );

  // A toast from the server (flash cookie) arrives with each navigation's root data.
  const lastInitial = useRef<string | null>(null);
  useEffect(() => {
    if (!initial || lastInitial.current === initial.id) return;
    lastInitial.current = initial.id;
    show({ ...initial, type: initial.type as ToastKind });
  }, [initial, show]);

  useEffect(() => {
    externalApi = { show, dismiss };
    return () => {
      externalApi = null;
    };
  }, [show, dismiss]);

  return (
    <ToastContext.Provider value={{ show, dismiss }}>
      {children}
      <div
        className="pointer-events-none fixed inset-x-0 top-3 z-50 flex flex-col items-center gap-2 px-3"
        aria-live="polite"
        role="status"
        data-testid="toaster"
      >
        {items.map((item) => (
          <div
            key={item.id}
            role={item.type === "error" ? "alert" : undefined}
            data-toast-type={item.type}
            className={`pointer-events-auto flex w-full max-w-md items-start gap-3 rounded-lg border-l-4 px-4 py-3 shadow-lg ${styles[item.type]}`}
          >
            {item.type === "loading" && (
              <span
                className="mt-1 h-4 w-4 shrink-0 animate-spin rounded-full border-2 border-slate-400 border-t-transparent"
                aria-hidden="true"
              />
            )}
            <div className="flex-1">
              <p className="font-semibold">{item.message}</p>
              {item.description && <p className="text-sm">{item.description}</p>}
            </div>
            <button
              type="button"
              onClick={() => dismiss(item.id)}
              className="-m-2 min-h-11 min-w-11 rounded text-lg leading-none"
              aria-label={t("common.dismiss")}
            >
              ×
            </button>
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}
