import { and, asc, count, desc, eq, gte, inArray, isNull, like, lt, lte, ne } from "drizzle-orm";
import { db, first, runExclusive } from "~/db/client.server";
import { auditEvents, nextSteps, patients, users } from "~/db/schema";
import { requireWorkerCentre } from "../care/index.server";
import { notify, recipientColumns } from "../messaging/index.server";
import { audit, type Actor } from "../platform/index.server";
import { DomainError } from "../platform/errors";
import type { Paged, PageQuery } from "../platform/paging";
import { clinicDateAfter, clinicTodayDate, toApiStep, type ApiNextStep } from "./next-steps.server";

/**
 * The next steps as a centre and the service see them (decision 0114): the health worker's
 * worklist (her centre's patients' steps due this week, overdue, or closed), the admins' weekly
 * figures (due, overdue, closed, the share closed on time; on the Service screen, in /metrics and
 * as CSV), and the daily digest of urgent steps past due to the expert who asked and the admins.
 */

export const WORKLIST_WHEN = ["week", "overdue", "done"] as const;
export type WorklistWhen = (typeof WORKLIST_WHEN)[number];

export type WorklistItem = ApiNextStep & {
  patient: { _id: string; firstName: string; lastName: string; shortId: string | null };
};

/** A clinic date `days` after the date `day` (YYYY-MM-DD). */
function dayPlus(day: string, days: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/**
 * The worker's centre's steps: "week" the open ones due from today to seven days on (a step asked
 * for "this week" is due seven days after the opinion), "overdue" the
 * open ones past due (oldest first), "done" the closed ones (latest due first). Walks
 * next_steps_centre_idx (centre, state, due date); a patient who revoked the centre's access is
 * not listed.
 */
export async function centreWorklist(
  actor: Actor,
  when: WorklistWhen,
  page: PageQuery,
  now = Date.now(),
): Promise<Paged<WorklistItem> & { from: string; to: string }> {
  const centre = await requireWorkerCentre(actor);
  const today = clinicTodayDate(now);
  const to = dayPlus(today, 7);
  const state = when === "done" ? ne(nextSteps.state, "open") : eq(nextSteps.state, "open");
  const due =
    when === "week"
      ? and(gte(nextSteps.dueOn, today), lte(nextSteps.dueOn, to))
      : when === "overdue"
        ? lt(nextSteps.dueOn, today)
        : undefined;
  const where = and(eq(nextSteps.centreId, centre._id), state, due, isNull(patients.centreAccessRevokedAt));
  const order =
    when === "done" ? [desc(nextSteps.dueOn), desc(nextSteps.id)] : [asc(nextSteps.dueOn), asc(nextSteps.id)];
  const [found, total] = await Promise.all([
    db()
      .select({
        step: nextSteps,
        patient: {
          _id: patients.id,
          firstName: patients.firstName,
          lastName: patients.lastName,
          shortId: patients.shortId,
        },
      })
      .from(nextSteps)
      .innerJoin(patients, eq(patients.id, nextSteps.patientId))
      .where(where)
      .orderBy(...order)
      .limit(page.pageSize)
      .offset((page.page - 1) * page.pageSize),
    first(
      db()
        .select({ n: count() })
        .from(nextSteps)
        .innerJoin(patients, eq(patients.id, nextSteps.patientId))
        .where(where),
    ),
  ]);
  return {
    items: found.map((r) => ({ ...toApiStep(r.step), patient: r.patient })),
    total: total?.n ?? 0,
    page: page.page,
    pageSize: page.pageSize,
    from: when === "week" ? today : "",
    to: when === "week" ? to : "",
  };
}

// ---------------------------------------------------------------------------------------------
// Figures

export type StepWeek = {
  /** The Monday the week starts (YYYY-MM-DD, the clinic's calendar). */
  week: string;
  due: number;
  /** Due that week and still open past the due date. */
  overdue: number;
  /** Due that week and closed (done, visited, declined or unreachable). */
  closed: number;
  /** Due that week and closed on or before the due date. */
  closedOnTime: number;
  /** closedOnTime / due, or null with nothing due. */
  onTimeShare: number | null;
};

function mondayOf(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  return dayPlus(day, -((d.getUTCDay() + 6) % 7));
}

/** Steps due per week over the last `weeks` weeks (this one last), for admins. */
export async function stepWeeks(weeks = 12, now = Date.now()): Promise<StepWeek[]> {
  const today = clinicTodayDate(now);
  const thisWeek = mondayOf(today);
  const start = dayPlus(thisWeek, -7 * (weeks - 1));
  const end = dayPlus(thisWeek, 6);
  const found = await db()
    .select({ dueOn: nextSteps.dueOn, state: nextSteps.state, stateAt: nextSteps.stateAt })
    .from(nextSteps)
    .where(and(gte(nextSteps.dueOn, start), lte(nextSteps.dueOn, end)));
  const out = new Map<string, StepWeek>();
  for (let i = 0; i < weeks; i++) {
    const week = dayPlus(start, 7 * i);
    out.set(week, { week, due: 0, overdue: 0, closed: 0, closedOnTime: 0, onTimeShare: null });
  }
  for (const r of found) {
    const w = out.get(mondayOf(r.dueOn));
    if (!w) continue;
    w.due++;
    if (r.state === "open") {
      if (r.dueOn < today) w.overdue++;
    } else {
      w.closed++;
      if (r.stateAt && clinicDateAfter(r.stateAt, 0) <= r.dueOn) w.closedOnTime++;
    }
  }
  for (const w of out.values()) w.onTimeShare = w.due ? w.closedOnTime / w.due : null;
  return [...out.values()];
}

/** The gauges /metrics shows: this week's steps due and closed, all open steps past due, last week's share on time. */
export async function stepGaugeValues(now = Date.now()) {
  const [weeks, overdue] = await Promise.all([
    stepWeeks(2, now),
    first(
      db()
        .select({ n: count() })
        .from(nextSteps)
        .where(and(eq(nextSteps.state, "open"), lt(nextSteps.dueOn, clinicTodayDate(now)))),
    ),
  ]);
  const [last, current] = weeks;
  return {
    dueThisWeek: current.due,
    closedThisWeek: current.closed,
    overdue: overdue?.n ?? 0,
    lastWeekOnTimeShare: last.onTimeShare ?? 0,
  };
}

/** A CSV cell: quoted, and a leading = + - @ (or tab, CR) made text so no spreadsheet runs it as a formula. */
export function csvCell(value: string | number | null): string {
  let s = value === null ? "" : String(value);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return `"${s.replace(/"/g, '""')}"`;
}

/** The weekly figures as CSV (admins only). */
export async function stepWeeksCsv(actor: Actor, weeks = 12, now = Date.now()): Promise<string> {
  if (actor.accountType !== "Admin") throw new DomainError("forbidden", "api.forbidden");
  const rows = await stepWeeks(weeks, now);
  const head = ["week", "due", "overdue", "closed", "closed_on_time", "on_time_share"];
  const lines = rows.map((w) =>
    [
      w.week,
      w.due,
      w.overdue,
      w.closed,
      w.closedOnTime,
      w.onTimeShare === null ? "" : w.onTimeShare.toFixed(3),
    ]
      .map(csvCell)
      .join(","),
  );
  return `${[head.map(csvCell).join(","), ...lines].join("\r\n")}\r\n`;
}

// ---------------------------------------------------------------------------------------------
// The daily digest

const DIGEST_LINES = 30;

/**
 * Once a clinic day (run from the hourly work, beside the overdue reports' digest): every open
 * step asked for today or this week and now past due goes to the expert who asked (hers only) and
 * to every active admin (all), as counts and dates — never medical content or names. The day's
 * digest is recorded in the audit log before mailing, under the overdue digest's lock (one node at a
 * time), so it goes once.
 */
export async function sendStepsDigest(now = Date.now()): Promise<number> {
  const today = clinicTodayDate(now);
  const sent = await runExclusive("overdue", async () => {
    const marker = `{"stepsDigest":"${today}"`;
    const already = await first(
      db()
        .select({ id: auditEvents.id })
        .from(auditEvents)
        .where(and(eq(auditEvents.action, "report.overdue_notice"), like(auditEvents.detail, `${marker}%`))),
    );
    if (already) return 0;
    const late = await db()
      .select({
        id: nextSteps.id,
        expertId: nextSteps.expertId,
        dueOn: nextSteps.dueOn,
        urgency: nextSteps.urgency,
      })
      .from(nextSteps)
      .where(
        and(
          eq(nextSteps.state, "open"),
          lt(nextSteps.dueOn, today),
          inArray(nextSteps.urgency, ["today", "week"]),
        ),
      )
      .orderBy(asc(nextSteps.dueOn), asc(nextSteps.id));
    await audit(null, "report.overdue_notice", "report", null, { stepsDigest: today, steps: late.length });
    if (!late.length) return 0;
    const lines = (list: typeof late) => (t: (k: string, v?: Record<string, unknown>) => string) => [
      ...list.slice(0, DIGEST_LINES).map((s) =>
        t(s.urgency === "today" ? "worklist.digestLineToday" : "worklist.digestLineWeek", {
          due: s.dueOn,
          days: Math.round(
            (Date.parse(`${today}T00:00:00Z`) - Date.parse(`${s.dueOn}T00:00:00Z`)) / 86_400_000,
          ),
        }),
      ),
      ...(list.length > DIGEST_LINES
        ? [t("worklist.digestMore", { count: list.length - DIGEST_LINES })]
        : []),
    ];
    const byExpert = new Map<string, typeof late>();
    for (const s of late) if (s.expertId) byExpert.set(s.expertId, [...(byExpert.get(s.expertId) ?? []), s]);
    const experts = byExpert.size
      ? await db()
          .select({ ...recipientColumns, id: users.id })
          .from(users)
          .where(and(inArray(users.id, [...byExpert.keys()]), isNull(users.suspendedAt)))
      : [];
    for (const e of experts) {
      const own = byExpert.get(e.id)!;
      notify(e, {
        subject: "worklist.digestSubject",
        body: "worklist.digestExpertBody",
        action: "worklist.digestAction",
        path: "/dashboard/home",
        vars: { count: own.length },
        lines: lines(own),
      });
    }
    const admins = await db()
      .select(recipientColumns)
      .from(users)
      .where(and(eq(users.accountType, "Admin"), isNull(users.suspendedAt)));
    for (const admin of admins)
      notify(admin, {
        subject: "worklist.digestSubject",
        body: "worklist.digestAdminBody",
        action: "worklist.digestAction",
        path: "/dashboard/service",
        vars: { count: late.length },
        lines: lines(late),
      });
    return late.length;
  });
  return sent ?? 0;
}
