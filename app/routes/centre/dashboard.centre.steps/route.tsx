import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { screenMeta } from "~/components/reports/meta";
import { NotAllowed } from "~/components/reports/NotAllowed";
import { PageHeader } from "~/components/reports/PageHeader";
import { Pager } from "~/components/reports/Pager";
import {
  centreWorklist,
  setStepState,
  WORKLIST_WHEN,
  type WorklistItem,
  type WorklistWhen,
} from "~/domain/consultation/index.server";
import { tFor } from "~/i18n/i18n.server";
import { formatDay } from "~/lib/format";
import { SPECIALTY_KEYS, type Specialty } from "~/schemas/specialties";
import { requireActor } from "~/web/auth.server";
import { centreOrRefusal } from "~/web/centre-screen.server";
import { clientOf } from "~/web/request.server";
import { pageInfo, screenFailure, screenPage } from "~/web/screen.server";

/**
 * The centre's worklist (decision 0114): its patients' next steps due this week, overdue, or
 * closed; the worker records how each ended (done, visited, declined with the reason,
 * unreachable), sees a facility's acknowledgement, and prints the week's list.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireActor(request);
  const { t, locale } = await tFor(request);
  const title = t("worklist.title");
  const gate = await centreOrRefusal(actor, t, title);
  if (gate.refusal) return gate.refusal;
  const asked = new URL(request.url).searchParams.get("when");
  const when: WorklistWhen = (WORKLIST_WHEN as readonly string[]).includes(asked ?? "")
    ? (asked as WorklistWhen)
    : "week";
  const page = await centreWorklist(actor, when, screenPage(request));
  const day = (d: string | null) => (d ? formatDay(d.length === 10 ? `${d}T12:00:00Z` : d, locale) : "");
  return {
    title,
    notAllowed: null,
    centre: gate.centre,
    when,
    range: when === "week" ? { from: day(page.from), to: day(page.to) } : null,
    steps: page.items.map((s) => ({
      ...s,
      what: describe(s, t),
      dueText: day(s.dueOn),
      stateText: s.stateAt ? day(s.stateAt) : "",
      seenText: s.referral?.seenAt ? day(s.referral.seenAt) : null,
    })),
    pagination: pageInfo(page),
  };
}

/** What the step asks, in the worker's language (a facility's name and the reason as the expert wrote them). */
function describe(s: WorklistItem, t: (k: string, v?: Record<string, unknown>) => string): string {
  if (s.kind === "tests")
    return t("worklist.kindTests", { tests: (s.tests ?? []).map((x) => x.name).join(", ") });
  const soon =
    s.urgency === "today"
      ? t("referral.urgencyToday")
      : s.urgency === "week"
        ? t("referral.urgencyWeek")
        : t("referral.urgencyWeeks", { count: Math.max(1, Math.round(s.inDays / 7)) });
  if (s.kind === "specialist")
    return t("worklist.kindSpecialist", {
      specialty: t(SPECIALTY_KEYS[s.specialty as Specialty] ?? s.specialty ?? ""),
      soon,
    });
  return t("worklist.kindFacility", {
    facility: s.facility ?? t("referral.nearestHospital"),
    soon,
    reason: s.reason ?? "",
  });
}

export async function action({ request, context }: ActionFunctionArgs) {
  const actor = await requireActor(request);
  const { t } = await tFor(request);
  const form = await request.formData();
  const stepId = String(form.get("stepId") ?? "");
  try {
    await setStepState(
      actor,
      stepId,
      { state: form.get("state") || undefined, reason: String(form.get("reason") ?? "") || null },
      { ip: clientOf(context).ip },
    );
    return data({
      stepId,
      ok: t("worklist.saved"),
      error: null as string | null,
      fieldErrors: {} as Record<string, string[]>,
    });
  } catch (err) {
    const f = screenFailure(err, t);
    const fieldErrors = Object.fromEntries(
      Object.entries(f.fieldErrors ?? {}).map(([k, v]) => [k, v.map((m) => t(m))]),
    );
    return data(
      { stepId, ok: null as string | null, error: f.message, fieldErrors },
      { status: f.status, headers: f.headers },
    );
  }
}

export const meta: MetaFunction<typeof loader> = screenMeta;

type Loaded = Exclude<ReturnType<typeof useLoaderData<typeof loader>>, { notAllowed: string }>;

export default function Worklist() {
  const { t } = useTranslation();
  const loaded = useLoaderData<typeof loader>();
  if (loaded.notAllowed !== null)
    return <NotAllowed title={t("worklist.title")} message={loaded.notAllowed} />;
  return <List {...(loaded as Loaded)} />;
}

const STATES = ["done", "visited", "declined", "unreachable"] as const;

function List({ centre, when, range, steps, pagination }: Loaded) {
  const { t } = useTranslation();
  const result = useActionData<typeof action>();
  const busy = useNavigation().state !== "idle";
  const tabs: { when: WorklistWhen; label: string }[] = [
    { when: "week", label: t("worklist.tabWeek") },
    { when: "overdue", label: t("worklist.tabOverdue") },
    { when: "done", label: t("worklist.tabDone") },
  ];
  const stateLabel = (s: string) =>
    ({
      open: t("worklist.state_open"),
      done: t("worklist.state_done"),
      visited: t("worklist.state_visited"),
      declined: t("worklist.state_declined"),
      unreachable: t("worklist.state_unreachable"),
    })[s] ?? s;
  const empty = {
    week: t("worklist.empty_week"),
    overdue: t("worklist.empty_overdue"),
    done: t("worklist.empty_done"),
  }[when];
  return (
    <section id="worklist">
      <PageHeader title={t("worklist.title")} intro={t("worklist.intro", { centre: centre.name })}>
        {when === "week" && steps.length > 0 && (
          <a
            href="#print"
            className="btn-secondary no-print"
            data-testid="worklist-print"
            onClick={(e) => (e.preventDefault(), window.print())}
          >
            {t("worklist.print")}
          </a>
        )}
      </PageHeader>
      <nav aria-label={t("worklist.tabsLabel")} className="no-print mb-5 flex flex-wrap gap-2">
        {tabs.map((tab) => (
          <Link
            key={tab.when}
            to={`?when=${tab.when}`}
            aria-current={tab.when === when ? "page" : undefined}
            className={tab.when === when ? "btn-primary" : "btn-secondary"}
            data-testid={`worklist-tab-${tab.when}`}
          >
            {tab.label}
          </Link>
        ))}
      </nav>
      {range && (
        <h2 className="mb-3 text-lg font-bold" data-testid="worklist-range">
          {t("worklist.weekRange", { from: range.from, to: range.to, centre: centre.name })}
        </h2>
      )}
      {steps.length === 0 ? (
        <p className="card text-slate-700" data-testid="worklist-empty">
          {empty}
        </p>
      ) : (
        <ul className="space-y-3" data-testid="worklist">
          {steps.map((s) => {
            const mine = result?.stepId === s._id ? result : null;
            return (
              <li key={s._id} className="card space-y-2 break-words" data-testid="worklist-row">
                <p className="flex flex-wrap items-baseline gap-x-3">
                  <Link
                    to={`/dashboard/centre/patients/${encodeURIComponent(s.patient._id)}`}
                    className="link text-lg font-bold"
                  >
                    {`${s.patient.firstName} ${s.patient.lastName}`.trim()}
                  </Link>
                  <span className="font-mono text-slate-700">{s.patient.shortId}</span>
                </p>
                <p>{s.what}</p>
                <p className="text-sm text-slate-700">
                  {t("worklist.due", { date: s.dueText })}
                  {s.state !== "open" &&
                    ` · ${t("worklist.stateLine", { state: stateLabel(s.state), date: s.stateText })}`}
                  {s.stateReason ? ` — ${s.stateReason}` : ""}
                </p>
                {s.referral && (
                  <p className="text-sm" data-testid="worklist-referral">
                    {s.seenText ? (
                      <span className="font-semibold text-green-800" data-testid="worklist-seen">
                        {t("worklist.referralSeen", { date: s.seenText })}
                        {s.referral.note ? ` — ${s.referral.note}` : ""}
                      </span>
                    ) : (
                      <span className="text-slate-700">{t("worklist.referralNotSeen")}</span>
                    )}
                    <a
                      href={`/steps/${encodeURIComponent(s._id)}/referral.pdf`}
                      className="link no-print mt-1 block w-fit"
                      data-testid="worklist-letter"
                    >
                      {t("worklist.referralLetter")}
                    </a>
                  </p>
                )}
                {mine?.ok && (
                  <p role="status" className="font-semibold text-green-800">
                    {mine.ok}
                  </p>
                )}
                {mine?.error && (
                  <p role="alert" className="font-semibold text-red-700">
                    {mine.error}
                  </p>
                )}
                <Form
                  method="post"
                  className="no-print grid gap-2 sm:grid-cols-[auto_minmax(0,1fr)_auto] sm:items-end"
                >
                  <input type="hidden" name="stepId" value={s._id} />
                  <div>
                    <label htmlFor={`state-${s._id}`} className="field-label">
                      {t("worklist.stateLabel")}
                    </label>
                    <select
                      id={`state-${s._id}`}
                      name="state"
                      defaultValue={s.state === "open" ? "done" : s.state}
                      className="field-input w-full"
                    >
                      {STATES.map((st) => (
                        <option key={st} value={st}>
                          {stateLabel(st)}
                        </option>
                      ))}
                      {s.state !== "open" && <option value="open">{t("worklist.reopen")}</option>}
                    </select>
                  </div>
                  <div className="min-w-0">
                    <label htmlFor={`reason-${s._id}`} className="field-label">
                      {t("worklist.reasonLabel")}
                    </label>
                    <input
                      id={`reason-${s._id}`}
                      name="reason"
                      maxLength={300}
                      className="field-input"
                      aria-describedby={mine?.fieldErrors.reason ? `reason-error-${s._id}` : undefined}
                    />
                    {mine?.fieldErrors.reason?.map((m) => (
                      <p
                        key={m}
                        id={`reason-error-${s._id}`}
                        className="mt-1 text-sm font-semibold text-red-700"
                      >
                        {m}
                      </p>
                    ))}
                  </div>
                  <button type="submit" className="btn-primary w-full sm:w-auto" disabled={busy}>
                    {t("worklist.save")}
                  </button>
                </Form>
              </li>
            );
          })}
        </ul>
      )}
      <div className="no-print">
        <Pager pagination={pagination} />
      </div>
    </section>
  );
}
