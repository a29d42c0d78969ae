import { Form } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import type { JobFigures } from "~/domain/platform/index.server";

/** Each kind's figures, as the runner counts them (decision 0113). */
export type WorkKindRow = JobFigures;
export type DeadJobRow = {
  id: string;
  kind: string;
  attempts: number;
  lastError: string | null;
  finished: string;
};

/** Each kind's label (every key named, for the catalogue check); a kind not listed shows its name. */
const KIND_KEYS: Record<string, string> = {
  mail: "service.work.kinds.mail",
  sms: "service.work.kinds.sms",
  pacs: "service.work.kinds.pacs",
  "step-remind": "service.work.kinds.stepRemind",
  "step-remind-scan": "service.work.kinds.stepRemindScan",
  "phone-call": "service.work.kinds.phoneCall",
  backup: "service.work.kinds.backup",
  rights: "service.work.kinds.rights",
  housekeeping: "service.work.kinds.housekeeping",
  "service-sample": "service.work.kinds.serviceSample",
  "phone-sweep": "service.work.kinds.phoneSweep",
  "lab-read": "service.work.kinds.labRead",
};

/**
 * The Service screen's background work (decision 0113): each kind's queue, and the jobs that failed
 * after every attempt, each with Retry and Drop. Plain forms: they work without script.
 */
export function BackgroundWorkSection({ kinds, dead }: { kinds: WorkKindRow[]; dead: DeadJobRow[] }) {
  const { t } = useTranslation();
  const kindLabel = (k: string) => (KIND_KEYS[k] ? t(KIND_KEYS[k]) : k);
  const head = [
    t("service.work.kind"),
    t("service.work.queued"),
    t("service.work.running"),
    t("service.work.dead"),
    t("service.work.oldest"),
    t("service.work.failures"),
  ];
  return (
    <section aria-labelledby="service-work" className="card min-w-0 max-sm:px-3">
      <h2 id="service-work" className="mb-3 text-lg font-bold text-slate-900">
        {t("service.work.title")}
      </h2>
      <p className="mb-3 text-slate-700">{t("service.work.intro")}</p>
      <div
        className="max-w-full overflow-x-auto rounded-xl border border-slate-200 bg-white"
        role="region"
        aria-label={t("service.work.title")}
        tabIndex={0}
      >
        <table className="w-full border-collapse text-left text-sm" data-testid="table-work">
          <caption className="sr-only">{t("service.work.title")}</caption>
          <thead className="bg-slate-50 text-slate-700">
            <tr>
              {head.map((h) => (
                <th key={h} scope="col" className="px-3 py-2 font-semibold">
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {kinds.map((k) => (
              <tr key={k.kind} className="border-t border-slate-100">
                <th scope="row" className="px-3 py-2 font-medium text-slate-900">
                  {kindLabel(k.kind)}
                </th>
                <td className="px-3 py-2 tabular-nums">{k.queued}</td>
                <td className="px-3 py-2 tabular-nums">{k.running}</td>
                <td className={`px-3 py-2 tabular-nums ${k.dead ? "font-bold text-red-800" : ""}`}>
                  {k.dead}
                </td>
                <td className="px-3 py-2 tabular-nums">
                  {k.queued ? t("service.work.seconds", { n: k.oldestWaitingSeconds }) : "—"}
                </td>
                <td className="px-3 py-2 tabular-nums">{k.failures}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h3 className="mt-4 mb-2 font-bold text-slate-900">{t("service.work.deadTitle")}</h3>
      {dead.length === 0 ? (
        <p className="text-slate-700">{t("service.work.noDead")}</p>
      ) : (
        <ul className="space-y-3" data-testid="dead-jobs">
          {dead.map((j) => (
            <li key={j.id} className="rounded-lg border border-red-200 bg-red-50 p-3" data-testid="dead-job">
              <p className="font-semibold text-slate-900">{kindLabel(j.kind)}</p>
              <p className="text-sm text-slate-700">
                {t("service.work.finished", { date: j.finished })} ·{" "}
                {t("service.work.attempts", { n: j.attempts })}
              </p>
              <p className="text-sm break-words text-slate-800">
                {j.lastError
                  ? t("service.work.lastError", { error: j.lastError })
                  : t("service.work.noError")}
              </p>
              <div className="mt-2 flex flex-wrap gap-2">
                {(["retry", "drop"] as const).map((how) => (
                  <Form method="post" key={how}>
                    <input type="hidden" name="intent" value={`job-${how}`} />
                    <input type="hidden" name="jobId" value={j.id} />
                    <button type="submit" className={how === "retry" ? "btn-primary" : "btn-secondary"}>
                      {t(how === "retry" ? "service.work.retry" : "service.work.drop")}
                      <span className="sr-only"> {kindLabel(j.kind)}</span>
                    </button>
                  </Form>
                ))}
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
