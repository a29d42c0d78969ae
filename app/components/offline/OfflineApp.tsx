import { useCallback, useEffect, useState } from "react";
import { PrintStyle } from "~/components/care/PrintStyle";
import { useDateText } from "~/components/reports/LocalDate";
import { useTranslation } from "~/i18n/useTranslation";
import {
  currentSession,
  enqueue,
  loadSnapshot,
  lockState,
  sendOutbox,
  useOutbox,
  type ListedItem,
} from "~/offline/outbox.client";
import { openPayload } from "~/offline/store";
import type { OfflineSession } from "~/offline/types";
import { RegisterForm } from "~/components/care/RegisterForm";
import type { OfflineLoaded } from "./loaded";
import { consentTextDate } from "~/lib/consent-text";
import { OfflineFollowUp, OfflineUpload, smallerFile, useKeepError, type Whom } from "./OfflineForms";
import { Outbox, StoragePanel } from "./Outbox";
import { Unlock } from "./Unlock";

/** The queue row and family profile fields the offline forms need (kept sealed by the dashboard). */
type QueueRow = {
  _id: string;
  shortId: string | null;
  firstName: string;
  lastName: string;
  phone: string | null;
  latestReport: { _id: string; status: string } | null;
};
type Profile = { _id: string; firstName: string; lastName: string; phone?: string | null; self?: boolean };

type Tab = "outbox" | "register" | "upload" | "follow-up";
const TAB_KEY: Record<Tab, string> = {
  outbox: "offline.tabs.outbox",
  register: "offline.tabs.register",
  upload: "offline.tabs.upload",
  "follow-up": "offline.tabs.follow-up",
};

const nameOf = (p: { firstName: string; lastName: string }) => `${p.firstName} ${p.lastName}`.trim();

/** The offline slip: the patient's ID once the registration was sent, else this phone's reference. */
function OfflineSlip({ item, centre, onClose }: { item: ListedItem; centre: string; onClose: () => void }) {
  const { t } = useTranslation();
  const dates = useDateText();
  const [name, setName] = useState("");
  useEffect(() => {
    void openPayload(item).then((p) =>
      setName(`${p.fields.firstName ?? ""} ${p.fields.lastName ?? ""}`.trim()),
    );
  }, [item]);
  const sentId = item.result?.shortId;
  return (
    <section className="mt-4">
      <PrintStyle />
      <div data-print className="card space-y-4 border-2 border-slate-800 text-slate-900" data-testid="slip">
        <h2 className="text-lg font-semibold">{t("registration.slipTitle")}</h2>
        <div>
          <p className="text-sm text-slate-700">
            {t(sentId ? "registration.slipId" : "offline.slipReference")}
          </p>
          <p className="font-mono text-4xl font-bold tracking-wider break-all" data-testid="slip-short-id">
            {sentId ?? item.id.slice(0, 8).toUpperCase()}
          </p>
          {!sentId && <p className="mt-1 text-sm text-slate-700">{t("offline.slipPending")}</p>}
        </div>
        <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1">
          <dt className="text-slate-700">{t("registration.slipName")}</dt>
          <dd className="font-semibold">{name || (item.label ?? "")}</dd>
          <dt className="text-slate-700">{t("registration.slipCentre")}</dt>
          <dd className="font-semibold">{centre}</dd>
        </dl>
        <p className="text-sm text-slate-700">
          {t("registration.slipRegistered", { date: dates.day(item.createdAt) })}
        </p>
      </div>
      <p className="mt-4 flex flex-wrap gap-3" data-no-print>
        <button type="button" className="btn-primary" onClick={() => window.print()}>
          {t("registration.print")}
        </button>
        <button type="button" className="btn-secondary" onClick={onClose}>
          {t("offline.backToOutbox")}
        </button>
      </p>
    </section>
  );
}

function OfflineRegister({
  loaded,
  session,
  onKept,
}: {
  loaded: OfflineLoaded;
  session: OfflineSession;
  onKept: (item: ListedItem) => void;
}) {
  const { t } = useTranslation();
  const keepError = useKeepError();
  const [lang, setLang] = useState(loaded.locale);
  const [error, setError] = useState<string | null>(null);
  const consent = loaded.consent[lang] ?? loaded.consent.en;
  return (
    <div className="mt-4">
      {error && (
        <p role="alert" className="field-error mb-3">
          {error}
        </p>
      )}
      <RegisterForm
        centreName={session.centre?.name ?? ""}
        lang={lang}
        consentText={consent.text}
        consentQuestion={consent.question}
        textVersion={loaded.textVersion}
        textDate={consentTextDate(loaded.textVersion, loaded.locale)}
        offline={{
          onLanguage: (code) => setLang(code as typeof lang),
          onSubmit: (data) => {
            const fields: Record<string, string> = {};
            for (const [k, v] of data.entries()) if (typeof v === "string") fields[k] = v;
            if (fields.consent === "refused") {
              // Nothing is kept, as online: the worker is told what to do.
              setError(`${t("registration.notRegistered")} ${t("registration.refusedWhatToDo")}`);
              return;
            }
            // The consent was read and answered now: the server checks the text was in force then.
            fields.consentShownAt = new Date().toISOString();
            const evidence = data.get("evidence");
            void (async () => {
              try {
                const file =
                  evidence instanceof File && evidence.size > 0 ? await smallerFile(evidence) : undefined;
                const label = t("offline.labelRegister", {
                  name: `${fields.firstName} ${fields.lastName}`.trim(),
                });
                const item = await enqueue("register", { label, fields, file });
                onKept({ ...item, label });
              } catch (err) {
                setError(keepError(err));
              }
            })();
          },
        }}
      />
    </div>
  );
}

/** The offline app: the outbox, room left, and what the person may do without a connection. */
export function OfflineApp({ loaded }: { loaded: OfflineLoaded }) {
  const { t } = useTranslation();
  const dates = useDateText();
  const { items, online, refresh } = useOutbox();
  const [session, setSession] = useState<OfflineSession | null | undefined>(undefined);
  const [queue, setQueue] = useState<{ asOf: string; data: QueueRow[] } | null>(null);
  const [profiles, setProfiles] = useState<Profile[]>([]);
  const [pending, setPending] = useState<Whom[]>([]);
  const [tab, setTab] = useState<Tab>("outbox");
  const [slip, setSlip] = useState<ListedItem | null>(null);
  const [lock, setLock] = useState<Awaited<ReturnType<typeof lockState>>>("open");
  const [opened, setOpened] = useState(0);

  useEffect(() => {
    void currentSession().then(async (s) => {
      // Locked (decision 0072): nothing is opened, sent or synced until her password unlocks it.
      const state = s ? await lockState(s.accountId) : "open";
      if (s && state !== "open") {
        setLock(state);
        return setSession(s);
      }
      if (s && navigator.onLine) {
        const sync = await import("~/offline/dashboard-sync.client");
        // What waits goes first, then: is the person still the one signed in? A phone another
        // account signed in on shows nothing of this one's. (A session that ended — expired, or a
        // suspended worker's — still shows its items and why they were refused.)
        await sendOutbox().catch(() => {});
        const who = await sync.whoIsSignedIn(s.accountId);
        if (who === "other") {
          await sync.forgetSession();
          setSession(null);
          return;
        }
        // The lists are fetched again (a patient registered here now has their ID).
        await sync.keepLists(s);
      }
      // The lists first, then the screen (one render: what it offers is what was just synced).
      const worker = s?.role === "HealthWorker";
      const kept = s ? await loadSnapshot<unknown[]>(s.accountId, worker ? "queue" : "profiles") : null;
      setLock("open");
      if (s && worker) setQueue(kept as { asOf: string; data: QueueRow[] } | null);
      else if (s) setProfiles((kept?.data as Profile[] | undefined) ?? []);
      setSession(s);
    });
  }, [online, opened]);

  // Patients registered on this phone and not sent yet can have reports kept for them too.
  const loadPending = useCallback(async () => {
    const regs = (items ?? []).filter((i) => i.kind === "register" && i.state !== "needs-you");
    setPending(
      await Promise.all(
        regs.map(async (i) => {
          const p = await openPayload(i);
          const name = `${p.fields.firstName ?? ""} ${p.fields.lastName ?? ""}`.trim();
          return i.result?.id
            ? { value: i.result.id, name, phone: p.fields.phone ?? "" }
            : { value: `item:${i.id}`, name, phone: p.fields.phone ?? "", after: i.id };
        }),
      ),
    );
  }, [items]);
  useEffect(() => {
    void loadPending().catch(() => {}); // locked: nothing to offer yet
  }, [loadPending]);

  if (session === undefined || items === null) return <p className="mt-4">{t("common.loading")}</p>;
  if (!session)
    return (
      <div className="card mt-4 space-y-3">
        <p>{t("offline.signedOut")}</p>
        <a href="/login" className="btn-primary">
          {t("offline.signIn")}
        </a>
      </div>
    );

  if (lock !== "open")
    return (
      <Unlock
        accountId={session.accountId}
        state={lock}
        onOpen={() => {
          refresh();
          setSession(undefined); // "loading" until the lists are synced and opened
          setOpened((n) => n + 1);
        }}
      />
    );

  const worker = session.role === "HealthWorker";
  const whom: Whom[] = worker
    ? [
        ...pending.filter((p) => !queue?.data.some((q) => q._id === p.value)),
        ...(queue?.data ?? []).map((q) => ({
          value: q._id,
          name: `${nameOf(q)}${q.shortId ? ` (${q.shortId})` : ""}`,
          phone: q.phone ?? "",
          reviewedReportId: q.latestReport?.status === "Reviewed" ? q.latestReport._id : undefined,
        })),
      ]
    : profiles.length
      ? profiles.map((p) => ({ value: p.self ? "self" : p._id, name: nameOf(p), phone: p.phone ?? "" }))
      : [{ value: "self", name: session.firstName, phone: "" }];
  const tabs: Tab[] = worker ? ["outbox", "register", "upload", "follow-up"] : ["outbox", "upload"];
  const kept = () => {
    refresh();
    setTab("outbox");
  };

  return (
    <div>
      <p
        role="status"
        className={`mt-3 rounded-lg px-3 py-2 ${online ? "bg-green-50 text-green-900" : "bg-amber-50 text-amber-950"}`}
        data-testid="connection"
      >
        {t(online ? "offline.online" : "offline.offline")}
      </p>
      <nav aria-label={t("offline.sections")} className="mt-4 flex flex-wrap gap-2">
        {tabs.map((k) => (
          <button
            key={k}
            type="button"
            aria-pressed={tab === k}
            className={tab === k ? "btn-primary" : "btn-secondary"}
            onClick={() => {
              setSlip(null);
              setTab(k);
            }}
          >
            {t(TAB_KEY[k])}
          </button>
        ))}
      </nav>
      {slip ? (
        <OfflineSlip item={slip} centre={session.centre?.name ?? ""} onClose={() => setSlip(null)} />
      ) : tab === "register" ? (
        <OfflineRegister loaded={loaded} session={session} onKept={(item) => (refresh(), setSlip(item))} />
      ) : tab === "upload" ? (
        <OfflineUpload whom={whom} worker={worker} voiceMaxSeconds={loaded.voiceMaxSeconds} onKept={kept} />
      ) : tab === "follow-up" ? (
        <OfflineFollowUp whom={whom} onKept={kept} />
      ) : (
        <>
          <Outbox items={items} online={online} onPrint={setSlip} />
          {worker && (
            <section aria-labelledby="queue-h" className="card mt-4 space-y-2" data-testid="offline-queue">
              <h2 id="queue-h" className="text-lg font-bold text-slate-900">
                {t("offline.queueTitle")}
              </h2>
              <p className="text-sm text-slate-700">
                {queue ? t("offline.asOf", { time: dates.dateTime(queue.asOf) }) : t("offline.noQueueYet")}
              </p>
              <ul className="divide-y divide-slate-200">
                {(queue?.data ?? []).map((q) => (
                  <li key={q._id} className="py-2">
                    <span className="font-medium">{nameOf(q)}</span>
                    {q.shortId && <span className="ml-2 font-mono text-sm text-slate-700">{q.shortId}</span>}
                  </li>
                ))}
              </ul>
            </section>
          )}
          <StoragePanel items={items} />
        </>
      )}
    </div>
  );
}
