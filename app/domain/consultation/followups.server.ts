import { and, asc, count, eq, isNull, sql, type SQLWrapper } from "drizzle-orm";
import { alias, aliasInSql } from "~/db/alias";
import { config } from "~/config.server";
import {
  db,
  epochMs,
  exec,
  first,
  inList,
  jsonRows,
  listParam,
  preparedOnce,
  rows,
  transaction,
} from "~/db/client.server";
import { reportFollowups, reports, users } from "~/db/schema";
import {
  followUpAnswerSchema,
  followUpQuestionSchema,
  reassignSchema,
  spokenQuestionSchema,
} from "~/schemas/reports";
import { newId } from "~/lib/ids.server";
import { auditInsert } from "../platform/index.server";
import { DomainError, zodFieldErrors } from "../platform/errors";
import { notify, recipientColumns } from "../messaging/index.server";
import { patientAccess, traceAccess } from "../care/index.server";
import type { Actor } from "../platform/index.server";

/**
 * Follow-up questions (decision 0013): after the opinion, the patient may ask up to FOLLOWUP_MAX
 * questions within FOLLOWUP_DAYS; the expert who holds the report's follow-ups (the reviewer, or
 * another expert an admin reassigned them to) answers each. Both sides are told by mail (no
 * content). Asking, answering and reassigning are audited like reviews. Who may read a thread is
 * decided in reports.server.ts (canSeeFollowUps).
 */

export type ApiFollowUp = {
  _id: string;
  question: string;
  askedAt: string;
  answer: string | null;
  answeredAt: string | null;
  answeredBy: { _id: string; firstName: string; lastName: string } | null;
};

const answerer = alias(users, "answerer");

/** The threads of many reports (oldest question first), by report id. */
export async function followUpsFor(reportIds: string[]): Promise<Map<string, ApiFollowUp[]>> {
  const ids = [...new Set(reportIds)];
  const out = new Map<string, ApiFollowUp[]>(ids.map((id) => [id, []]));
  const threads = preparedOnce("followups_of_reports", (d) =>
    d
      .select({
        f: reportFollowups,
        by: { id: answerer.id, firstName: answerer.firstName, lastName: answerer.lastName },
      })
      .from(reportFollowups)
      .leftJoin(answerer, eq(answerer.id, reportFollowups.answeredBy))
      .where(inList(reportFollowups.reportId, "ids"))
      .orderBy(asc(reportFollowups.reportId), asc(reportFollowups.askedAt), asc(reportFollowups.id)),
  );
  // One list parameter whatever the number of reports (inList): no batches.
  if (ids.length)
    for (const { f, by } of await threads.execute({ ids: listParam(ids) })) {
      out.get(f.reportId)?.push(
        toFollowUp({
          id: f.id,
          question: f.question,
          askedAt: f.askedAt.getTime(),
          answer: f.answer,
          answeredAt: f.answeredAt?.getTime() ?? null,
          byId: by?.id ?? null,
          byFirstName: by?.firstName ?? null,
          byLastName: by?.lastName ?? null,
        }),
      );
    }
  return out;
}

/** A follow-up as either reader gets it (times as epoch milliseconds). */
type FollowUpFacts = {
  id: string;
  question: string;
  askedAt: number;
  answer: string | null;
  answeredAt: number | null;
  byId: string | null;
  byFirstName: string | null;
  byLastName: string | null;
};

function toFollowUp(f: FollowUpFacts): ApiFollowUp {
  return {
    _id: f.id,
    question: f.question,
    askedAt: new Date(f.askedAt).toISOString(),
    answer: f.answer,
    answeredAt: f.answeredAt === null ? null : new Date(f.answeredAt).toISOString(),
    answeredBy: f.byId ? { _id: f.byId, firstName: f.byFirstName ?? "", lastName: f.byLastName ?? "" } : null,
  };
}

const threadAnswerer = aliasInSql(users, "thread_answerer");

/**
 * The follow-up thread of the report whose id is in `reportId`, as one column of a select (a
 * correlated JSON list on report_followups_report_idx), so that a list's statement brings every
 * row's thread along — no statement of its own per page. Read it with `followUpsFromColumn`.
 */
export function followUpsColumn(reportId: SQLWrapper) {
  return jsonRows(
    {
      id: reportFollowups.id,
      question: reportFollowups.question,
      askedAt: epochMs(reportFollowups.askedAt),
      answer: reportFollowups.answer,
      answeredAt: epochMs(reportFollowups.answeredAt),
      byId: threadAnswerer.as.id,
      byFirstName: threadAnswerer.as.firstName,
      byLastName: threadAnswerer.as.lastName,
    },
    sql`from ${reportFollowups} left join ${threadAnswerer.from} on ${threadAnswerer.as.id} = ${reportFollowups.answeredBy} where ${reportFollowups.reportId} = ${reportId}`,
  );
}

/** The thread a `followUpsColumn` brought, oldest question first. */
export function followUpsFromColumn(value: string | null | undefined): ApiFollowUp[] {
  if (!value) return [];
  const facts = JSON.parse(value) as FollowUpFacts[];
  facts.sort((a, b) => a.askedAt - b.askedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return facts.map(toFollowUp);
}

/** What the patient may still do: how many questions are left and until when. */
export function followUpAllowance(
  report: { status: string; reviewedAt: Date | null },
  asked: number,
  now = Date.now(),
): { left: number; until: string | null } {
  const c = config();
  if (report.status !== "Reviewed" || !report.reviewedAt) return { left: 0, until: null };
  const until = report.reviewedAt.getTime() + c.followupWindowMs;
  return { left: now > until ? 0 : Math.max(0, c.followupMax - asked), until: new Date(until).toISOString() };
}

async function contactOf(userId: string | null) {
  if (!userId) return undefined;
  return first(
    db()
      .select({ ...recipientColumns, suspendedAt: users.suspendedAt })
      .from(users)
      .where(eq(users.id, userId)),
  );
}

/** The owning patient asks a question about a reviewed report. */
export async function askFollowUp(
  actor: Actor,
  reportId: string,
  input: unknown,
  opts: { ip?: string | null; spoken?: boolean } = {},
): Promise<ApiFollowUp> {
  // The patient, or whoever acts for their profile (a family manager, their centre's health worker)
  // asking what the patient dictates; experts and admins never ask.
  if (actor.accountType !== "Patient" && actor.accountType !== "HealthWorker")
    throw new DomainError("forbidden", "followups.patientsOnly");
  // A question spoken in a voice note (decision 0037) needs no typed words: the voice is the question.
  const parsed = (opts.spoken ? spokenQuestionSchema : followUpQuestionSchema).safeParse(input);
  if (!parsed.success) {
    throw new DomainError("invalid", "followups.askFailed", { fieldErrors: zodFieldErrors(parsed.error) });
  }
  const report = await first(
    db()
      .select()
      .from(reports)
      .where(eq(reports.id, String(reportId ?? ""))),
  );
  if (!report) throw new DomainError("not_found", "reports.notFound");
  const access = await patientAccess(actor, report.patientId);
  if (!access || access.kind === "admin") throw new DomainError("forbidden", "reports.notYourReport");
  if (report.status !== "Reviewed") throw new DomainError("conflict", "followups.notReviewedYet");
  const c = config();
  const now = new Date();
  const id = newId();
  const outcome = await transaction(function* (tx) {
    // Touching the report first serialises two questions sent at once (a row lock on PostgreSQL;
    // SQLite's write lock), so the count below cannot be passed by both.
    const locked = yield* rows(
      tx
        .update(reports)
        .set({ updatedAt: now })
        .where(and(eq(reports.id, report.id), eq(reports.status, "Reviewed")))
        .returning({ reviewedAt: reports.reviewedAt }),
    );
    if (!locked.length) return "gone" as const;
    const [{ n }] = yield* rows(
      tx.select({ n: count() }).from(reportFollowups).where(eq(reportFollowups.reportId, report.id)),
    );
    const allowance = followUpAllowance(
      { status: "Reviewed", reviewedAt: locked[0].reviewedAt },
      n,
      now.getTime(),
    );
    if (allowance.left <= 0) return n >= c.followupMax ? ("limit" as const) : ("late" as const);
    yield* exec(
      tx
        .insert(reportFollowups)
        .values({ id, reportId: report.id, question: parsed.data.question, askedAt: now }),
    );
    yield* exec(auditInsert(tx, actor, "followup.ask", "report", report.id, { followUpId: id }, opts.ip));
    return "ok" as const;
  });
  if (outcome === "ok")
    await traceAccess(
      actor,
      access,
      "patient.followup_ask",
      { reportId: report.id, followUpId: id },
      opts.ip,
    );
  if (outcome === "gone") throw new DomainError("not_found", "reports.notFound");
  if (outcome === "limit")
    throw new DomainError("conflict", "followups.limitReached", { values: { max: c.followupMax } });
  if (outcome === "late")
    throw new DomainError("conflict", "followups.windowClosed", {
      values: { days: Math.round(c.followupWindowMs / 86_400_000) },
    });
  const expert = await contactOf(report.followupExpertId ?? report.expertId);
  if (expert && !expert.suspendedAt) {
    notify(expert, {
      subject: "mail.followUpAskedSubject",
      body: "mail.followUpAskedBody",
      action: "mail.followUpAskedAction",
      path: "/dashboard/follow-ups",
    });
  }
  return {
    _id: id,
    question: parsed.data.question,
    askedAt: now.toISOString(),
    answer: null,
    answeredAt: null,
    answeredBy: null,
  };
}

/** The expert who holds the report's follow-ups answers one question, once. */
export async function answerFollowUp(
  actor: Actor,
  followUpId: string,
  input: unknown,
  opts: { ip?: string | null } = {},
): Promise<ApiFollowUp> {
  if (actor.accountType !== "Expert") throw new DomainError("forbidden", "followups.expertsOnly");
  if (!actor.approved) throw new DomainError("forbidden", "reports.awaitApproval");
  const parsed = followUpAnswerSchema.safeParse(input);
  if (!parsed.success) {
    throw new DomainError("invalid", "followups.answerFailed", { fieldErrors: zodFieldErrors(parsed.error) });
  }
  const found = await first(
    db()
      .select({ f: reportFollowups, r: reports })
      .from(reportFollowups)
      .innerJoin(reports, eq(reports.id, reportFollowups.reportId))
      .where(eq(reportFollowups.id, String(followUpId ?? ""))),
  );
  if (!found) throw new DomainError("not_found", "followups.notFound");
  if ((found.r.followupExpertId ?? found.r.expertId) !== actor.id) {
    throw new DomainError("forbidden", "followups.notYours");
  }
  const now = new Date();
  const won = await transaction(function* (tx) {
    const done = yield* rows(
      tx
        .update(reportFollowups)
        .set({ answer: parsed.data.answer, answeredBy: actor.id, answeredAt: now })
        .where(and(eq(reportFollowups.id, found.f.id), isNull(reportFollowups.answer)))
        .returning({ id: reportFollowups.id }),
    );
    if (done.length === 1)
      yield* exec(
        auditInsert(tx, actor, "followup.answer", "report", found.r.id, { followUpId: found.f.id }, opts.ip),
      );
    return done.length === 1;
  });
  if (!won) throw new DomainError("conflict", "followups.alreadyAnswered");
  const patient = await contactOf(found.r.patientId);
  if (patient && !patient.suspendedAt) {
    notify(patient, {
      subject: "mail.followUpAnsweredSubject",
      body: "mail.followUpAnsweredBody",
      action: "mail.reviewedAction",
      path: `/dashboard/previous-report/${encodeURIComponent(found.r.patientId)}`,
      sms: { key: "sms.followUpAnswered", purpose: "followup-answered" },
    });
  }
  return {
    _id: found.f.id,
    question: found.f.question,
    askedAt: found.f.askedAt.toISOString(),
    answer: parsed.data.answer,
    answeredAt: now.toISOString(),
    answeredBy: { _id: actor.id, firstName: actor.firstName, lastName: actor.lastName },
  };
}

/** Admin: another approved expert takes over a reviewed report's follow-up questions. */
export async function reassignFollowUps(
  actor: Actor,
  reportId: string,
  input: unknown,
  opts: { ip?: string | null } = {},
): Promise<void> {
  if (actor.accountType !== "Admin") throw new DomainError("forbidden", "reports.adminsOnly");
  const parsed = reassignSchema.safeParse(input);
  if (!parsed.success) {
    throw new DomainError("invalid", "followups.reassignFailed", {
      fieldErrors: zodFieldErrors(parsed.error),
    });
  }
  const expert = await first(db().select().from(users).where(eq(users.id, parsed.data.expertId)));
  if (!expert || expert.accountType !== "Expert" || !expert.approved || expert.suspendedAt) {
    throw new DomainError("invalid", "followups.reassignNotExpert", {
      fieldErrors: { expertId: ["followups.reassignNotExpert"] },
    });
  }
  const done = await transaction(function* (tx) {
    const changed = yield* rows(
      tx
        .update(reports)
        .set({ followupExpertId: expert.id, updatedAt: new Date() })
        .where(and(eq(reports.id, String(reportId ?? "")), eq(reports.status, "Reviewed")))
        .returning({ id: reports.id }),
    );
    if (changed.length === 1)
      yield* exec(
        auditInsert(
          tx,
          actor,
          "followup.reassign",
          "report",
          changed[0].id,
          { expertId: expert.id },
          opts.ip,
        ),
      );
    return changed.length === 1;
  });
  if (!done) {
    const exists = await first(
      db()
        .select({ id: reports.id })
        .from(reports)
        .where(eq(reports.id, String(reportId ?? ""))),
    );
    throw exists
      ? new DomainError("conflict", "followups.notReviewedYet")
      : new DomainError("not_found", "reports.notFound");
  }
  notify(expert, {
    subject: "mail.followUpAssignedSubject",
    body: "mail.followUpAssignedBody",
    action: "mail.followUpAskedAction",
    path: "/dashboard/follow-ups",
  });
}
