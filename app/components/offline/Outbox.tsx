import { useEffect, useState } from "react";
import { useTranslation } from "~/i18n/useTranslation";
import { askPersistence, kick, remove, retry, storageInfo, type ListedItem } from "~/offline/outbox.client";

const STATE_STYLE: Record<ListedItem["state"], string> = {
  waiting: "bg-slate-100 text-slate-800",
  sending: "bg-blue-100 text-blue-900",
  sent: "bg-green-100 text-green-900",
  "needs-you": "bg-amber-100 text-amber-950",
};

/** Each state's and kind's words (written out, so the catalogue check finds them). */
const STATE_KEY: Record<ListedItem["state"], string> = {
  waiting: "offline.states.waiting",
  sending: "offline.states.sending",
  sent: "offline.states.sent",
  "needs-you": "offline.states.needs-you",
};
const KIND_KEY: Record<ListedItem["kind"], string> = {
  register: "offline.kinds.register",
  upload: "offline.kinds.upload",
  voice: "offline.kinds.voice",
  "follow-up": "offline.kinds.follow-up",
};

function mb(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0);
}

/** How much room the app's offline data takes and what is left; asks once to be kept. */
export function StoragePanel({ items }: { items: ListedItem[] }) {
  const { t } = useTranslation();
  const [info, setInfo] = useState<Awaited<ReturnType<typeof storageInfo>>>(null);
  useEffect(() => {
    let live = true;
    void askPersistence()
      .then(() => storageInfo())
      .then((i) => live && setInfo(i));
    return () => {
      live = false;
    };
  }, [items.length]);
  if (!info) return null;
  return (
    <section aria-labelledby="storage-h" className="card mt-4 space-y-1" data-testid="storage">
      <h2 id="storage-h" className="text-lg font-bold text-slate-900">
        {t("offline.storageTitle")}
      </h2>
      <p>
        {t("offline.storageUsed", { used: mb(info.usage), left: mb(Math.max(0, info.quota - info.usage)) })}
      </p>
      <p className="text-sm text-slate-700">
        {t(info.persisted ? "offline.storageKept" : "offline.storageNotKept")}
      </p>
    </section>
  );
}

/** The outbox: every item with its state, the server's reason when it needs the person, and "Send now". */
export function Outbox({
  items,
  online,
  onPrint,
}: {
  items: ListedItem[];
  online: boolean;
  onPrint: (item: ListedItem) => void;
}) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  const open = items.filter((i) => i.state !== "sent").length;
  return (
    <section aria-labelledby="outbox-h" className="card mt-4 space-y-3" data-testid="outbox">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 id="outbox-h" className="text-lg font-bold text-slate-900">
          {t("offline.outboxTitle")}
        </h2>
        <button
          type="button"
          className="btn-primary"
          disabled={busy || !online || open === 0}
          onClick={() => {
            setBusy(true);
            void kick().finally(() => setBusy(false));
          }}
        >
          {t("offline.sendNow")}
        </button>
      </div>
      <p className="text-sm text-slate-700" aria-live="polite">
        {open ? t("offline.waitingCount", { count: open }) : t("offline.nothingWaiting")}
      </p>
      {items.length > 0 && (
        <ul className="divide-y divide-slate-200">
          {items.map((item) => (
            <li key={item.id} className="space-y-1 py-3" data-testid="outbox-item" data-state={item.state}>
              <div className="flex flex-wrap items-center justify-between gap-2">
                <span className="min-w-0 font-medium break-words text-slate-900">
                  {item.label || t(KIND_KEY[item.kind])}
                </span>
                <span className={`rounded-full px-2 py-0.5 text-sm font-semibold ${STATE_STYLE[item.state]}`}>
                  {t(STATE_KEY[item.state])}
                </span>
              </div>
              {item.state === "sending" && item.progress && (
                <progress
                  className="w-full"
                  max={item.progress.total}
                  value={item.progress.sent}
                  aria-label={t("offline.progress", {
                    sent: mb(item.progress.sent),
                    total: mb(item.progress.total),
                  })}
                />
              )}
              {item.state === "waiting" && item.reason?.status === 401 && (
                <p className="text-sm text-slate-800">{t("offline.signInToSend")}</p>
              )}
              {item.state === "needs-you" && (
                <div
                  role="note"
                  className="rounded border border-amber-400 bg-amber-50 p-2 text-sm text-amber-950"
                >
                  <p>{item.reason?.message || t("offline.refusedGeneric")}</p>
                  {item.reason?.errors &&
                    Object.values(item.reason.errors)
                      .flat()
                      .map((e, i) => <p key={i}>{e}</p>)}
                  <p className="mt-1">
                    {t(
                      item.reason?.held
                        ? "offline.heldWhatToDo"
                        : item.reason?.waitsFor
                          ? "offline.waitsForWhatToDo"
                          : "offline.whatToDo",
                    )}
                  </p>
                  <div className="mt-2 flex flex-wrap gap-2">
                    {!item.reason?.held && !item.reason?.waitsFor && (
                      <button type="button" className="btn-secondary" onClick={() => void retry(item.id)}>
                        {t("offline.tryAgain")}
                      </button>
                    )}
                    <button
                      type="button"
                      className="btn-secondary"
                      onClick={() => {
                        if (window.confirm(t("offline.removeConfirm"))) void remove(item.id);
                      }}
                    >
                      {t("offline.remove")}
                    </button>
                  </div>
                </div>
              )}
              {item.kind === "register" && item.state !== "needs-you" && (
                <button type="button" className="btn-secondary" onClick={() => onPrint(item)}>
                  {t("registration.print")}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
