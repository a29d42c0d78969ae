import { and, count, desc, eq, inArray, isNotNull, isNull } from "drizzle-orm";
import { db, exec, first, rows, transaction, type DB, type TxSteps } from "~/db/client.server";
import {
  auditEvents,
  centres,
  patientManagers,
  patients,
  shareLinks,
  users,
  type PatientRow,
} from "~/db/schema";
import { getT } from "~/i18n/i18n.server";
import { isLocale } from "~/i18n/config";
import { auditInsert, parseDetail } from "../platform/index.server";
import { DomainError } from "../platform/errors";
import type { Paged, PageQuery } from "../platform/paging";
import type { Actor, PatientAction } from "../platform/index.server";
import { findPatient, patientAccess } from "./patients.server";
import { newestFirstWindow } from "../platform/index.server";
import { foldRepeats } from "../platform/repeats";

/**
 * The person stays in control of their profile (decision 0030): they see who may act for them (the
 * family logins managing it, the centre that registered them), end that access at once, and read
 * the profile's access trail — what those others did. patientAccess reads the same two columns
 * (patient_managers.revoked_at, patients.centre_access_revoked_at) on every request, so a revoked
 * manager or health worker is refused from the next request on, on screens and the API alike.
 */

export type ApiAccessHolders = {
  patientId: string;
  managers: {
    managerId: string;
    firstName: string;
    lastName: string;
    /** The person as the manager described them ("daughter", "father"). */
    relationship: string;
    since: string;
  }[];
  centre: { _id: string; name: string; kind: string; district: string; state: string } | null;
};

/** The profile that is the actor themself (a patient account's own, or one they took over). */
async function ownProfile(actor: Actor): Promise<PatientRow> {
  if (actor.accountType !== "Patient") throw new DomainError("forbidden", "control.patientsOnly");
  const own = await first(db().select().from(patients).where(eq(patients.accountId, actor.id)));
  if (!own) throw new DomainError("not_found", "control.noProfile");
  return own;
}

async function holdersOf(patient: PatientRow): Promise<ApiAccessHolders> {
  const managers = await db()
    .select({
      managerId: patientManagers.managerId,
      firstName: users.firstName,
      lastName: users.lastName,
      relationship: patientManagers.relationship,
      since: patientManagers.createdAt,
    })
    .from(patientManagers)
    .innerJoin(users, eq(users.id, patientManagers.managerId))
    .where(and(eq(patientManagers.patientId, patient.id), isNull(patientManagers.revokedAt)))
    .orderBy(patientManagers.createdAt, patientManagers.managerId);
  const centre =
    patient.centreId && !patient.centreAccessRevokedAt
      ? await first(db().select().from(centres).where(eq(centres.id, patient.centreId)))
      : undefined;
  return {
    patientId: patient.id,
    managers: managers.map((m) => ({ ...m, since: m.since.toISOString() })),
    centre: centre
      ? {
          _id: centre.id,
          name: centre.name,
          kind: centre.kind,
          district: centre.district,
          state: centre.state,
        }
      : null,
  };
}

/** Who may act for the actor's own profile now: family managers and the centre (revoked ones left out). */
export async function accessHolders(actor: Actor): Promise<ApiAccessHolders> {
  return holdersOf(await ownProfile(actor));
}

/**
 * The person ends a family manager's access to their profile. One conditional update (so two
 * revocations at once record one), audited in the profile's trail in the same transaction.
 */
export async function revokeManager(
  actor: Actor,
  managerId: string,
  opts: { ip?: string | null } = {},
): Promise<ApiAccessHolders> {
  const own = await ownProfile(actor);
  const id = typeof managerId === "string" && managerId.length <= 100 ? managerId : "";
  const done = await transaction(function* (tx) {
    const ended = yield* rows(
      tx
        .update(patientManagers)
        .set({ revokedAt: new Date() })
        .where(
          and(
            eq(patientManagers.patientId, own.id),
            eq(patientManagers.managerId, id),
            isNull(patientManagers.revokedAt),
          ),
        )
        .returning({ managerId: patientManagers.managerId }),
    );
    if (ended.length === 1) {
      // The sharing links they made for this person end with their access.
      const links = yield* revokeLinksMadeBy(tx, own.id, id);
      yield* exec(
        auditInsert(
          tx,
          actor,
          "patient.manager_revoked",
          "patient",
          own.id,
          { managerId: id, links },
          opts.ip,
        ),
      );
    }
    return ended.length === 1;
  });
  if (!done) throw new DomainError("not_found", "control.managerNotFound");
  return holdersOf((await findPatient(own.id)) ?? own);
}

/** The person ends the registering centre's access to their profile (its health workers lose it at once). */
export async function revokeCentreAccess(
  actor: Actor,
  opts: { ip?: string | null } = {},
): Promise<ApiAccessHolders> {
  const own = await ownProfile(actor);
  const done = await transaction(function* (tx) {
    const ended = yield* rows(
      tx
        .update(patients)
        .set({ centreAccessRevokedAt: new Date() })
        .where(
          and(eq(patients.id, own.id), isNotNull(patients.centreId), isNull(patients.centreAccessRevokedAt)),
        )
        .returning({ centreId: patients.centreId }),
    );
    if (ended.length === 1)
      yield* exec(
        auditInsert(
          tx,
          actor,
          "patient.centre_revoked",
          "patient",
          own.id,
          { centreId: ended[0].centreId },
          opts.ip,
        ),
      );
    return ended.length === 1;
  });
  if (!done) throw new DomainError("not_found", "control.noCentreAccess");
  return holdersOf((await findPatient(own.id)) ?? own);
}

// ---------------------------------------------------------------------------------------------
// The access trail

export type TrailBy = "self" | "manager" | "centre" | "admin" | "other";

export type ApiTrailEntry = {
  _id: string;
  action: string;
  at: string;
  by: TrailBy;
  actor: { _id: string; firstName: string; lastName: string } | null;
  centre: { _id: string; name: string } | null;
  reportId: string | null;
  /** What happened, in the reader's language, without the date ("Opened by Asha (health worker, PHC Rampur)"). */
  text: string;
  /** How many events of the same person doing the same thing this line stands for (decision 0073). */
  count: number;
  /** The oldest of them; `at` is the newest. */
  firstAt: string;
};

/** Each action a person's trail can hold, as its sentence (every language has it: tests/domain/access.test.ts). */
export const TRAIL_TEXT: Record<PatientAction, string> = {
  "patient.registered": "control.trail.registered",
  "patient.opened": "control.trail.opened",
  "patient.family_add": "control.trail.familyAdd",
  "patient.reports_open": "control.trail.reportsOpen",
  "patient.file_open": "control.trail.fileOpen",
  "patient.letter_open": "control.trail.letterOpen",
  "patient.report_upload": "control.trail.reportUpload",
  "patient.followup_ask": "control.trail.followupAsk",
  "patient.voice_add": "voice.trailAdd",
  "patient.voice_open": "voice.trailOpen",
  "patient.voice_heard": "voice.trailHeard",
  "patient.share_create": "control.trail.shareCreate",
  "patient.share_revoke": "control.trail.shareRevoke",
  "patient.fhir_export": "control.trail.export",
  "patient.manager_revoked": "control.trail.managerRevoked",
  "patient.centre_revoked": "control.trail.centreRevoked",
  "patient.takeover_start": "control.trail.takeoverStart",
  "patient.takeover": "control.trail.takeover",
  "patient.takeover_report": "control.trail.takeoverReport",
  "patient.takeover_undo": "control.trail.takeoverUndo",
  "patient.takeover_clear": "control.trail.takeoverClear",
  "patient.slip_print": "slip.trailPrinted",
  "patient.call_heard": "phonecall.trailHeard",
  "patient.call_unverified": "phonecall.trailUnverified",
  "patient.notice_set": "phonecall.trailNoticeSet",
  "patient.number_proven": "phonecall.trailProvenByCode",
  "patient.step_state": "steps.trailState",
  "patient.step_reminded": "steps.trailReminded",
  "patient.step_answered": "steps.trailAnswered",
  "patient.step_reminders": "steps.trailReminders",
  "patient.step_attached": "steps.trailAttached",
  "patient.referral_seen": "steps.trailReferralSeen",
};

/**
 * Whose trail `actor` may read: the person (their own profile), an admin, and a family manager of a
 * profile that has no login of its own (a child's, a parent's who never signed up) — whoever acts
 * for a person who cannot look themself. Anyone else gets the same refusal as for an unknown id.
 */
async function trailProfile(actor: Actor, patientId: string | null | undefined): Promise<PatientRow> {
  if (!patientId) return ownProfile(actor);
  const access = await patientAccess(actor, patientId);
  if (
    !access ||
    access.kind === "centre" ||
    (access.kind === "manager" && access.patient.accountId !== null)
  ) {
    if (actor.accountType === "Admin") throw new DomainError("not_found", "reports.patientNotFound");
    throw new DomainError("forbidden", "control.notYourTrail");
  }
  return access.patient;
}

/** The profile's access trail, newest first, each entry worded in `locale`. */
export async function accessTrail(
  actor: Actor,
  query: { patientId?: string | null; locale: string },
  page: PageQuery,
): Promise<Paged<ApiTrailEntry>> {
  const patient = await trailProfile(actor, query.patientId);
  const where = and(eq(auditEvents.subjectType, "patient"), eq(auditEvents.subjectId, patient.id));
  const total = (await first(db().select({ n: count() }).from(auditEvents).where(where)))?.n ?? 0;
  // audit_events_subject_idx (subject_type, subject_id, created_at, id)
  const win = newestFirstWindow(page, auditEvents.createdAt, auditEvents.id);
  const eventsRead = await db()
    .select({
      e: auditEvents,
      firstName: users.firstName,
      lastName: users.lastName,
      accountType: users.accountType,
    })
    .from(auditEvents)
    .leftJoin(users, eq(users.id, auditEvents.actorId))
    .where(and(where, win.after))
    .orderBy(desc(auditEvents.createdAt), desc(auditEvents.id))
    .limit(win.limit)
    .offset(win.offset);
  const { rows: events, nextCursor } = win.cut(eventsRead, (r) => r.e);
  const details = events.map((r) => (parseDetail(r.e.detail) ?? {}) as Record<string, unknown>);
  const str = (v: unknown) => (typeof v === "string" && v ? v : null);
  const centreIds = new Set<string>();
  const managerIds = new Set<string>();
  for (const d of details) {
    const c = str(d.centreId);
    if (c) centreIds.add(c);
    const m = str(d.managerId);
    if (m) managerIds.add(m);
  }
  if (patient.centreId) centreIds.add(patient.centreId);
  const centreNames = new Map<string, string>();
  if (centreIds.size)
    for (const c of await db()
      .select({ id: centres.id, name: centres.name })
      .from(centres)
      .where(inArray(centres.id, [...centreIds])))
      centreNames.set(c.id, c.name);
  const managerNames = new Map<string, string>();
  if (managerIds.size)
    for (const u of await db()
      .select({ id: users.id, firstName: users.firstName, lastName: users.lastName })
      .from(users)
      .where(inArray(users.id, [...managerIds])))
      managerNames.set(u.id, `${u.firstName} ${u.lastName}`.trim());

  const t = await getT(isLocale(query.locale) ? query.locale : "en");
  const entries = events.map((r, i): Omit<ApiTrailEntry, "count" | "firstAt"> => {
    const d = details[i];
    const e = r.e;
    const self = !!e.actorId && e.actorId === patient.accountId;
    const by: TrailBy = self
      ? "self"
      : d.by === "manager" || d.by === "centre"
        ? d.by
        : r.accountType === "HealthWorker"
          ? "centre"
          : r.accountType === "Admin"
            ? "admin"
            : r.accountType === "Patient"
              ? "manager"
              : "other";
    // The centre a health worker acted for: recorded with the event, else the profile's own.
    const centreId = str(d.centreId) ?? (by === "centre" ? patient.centreId : null);
    const centreName = centreId ? (centreNames.get(centreId) ?? "") : "";
    const name = r.firstName !== null ? `${r.firstName} ${r.lastName ?? ""}`.trim() : "";
    const who = !e.actorId
      ? t("control.who.nobody")
      : r.firstName === null
        ? t("control.who.gone")
        : by === "self"
          ? t("control.who.you")
          : by === "centre"
            ? t("control.who.worker", { name, centre: centreName || "—" })
            : by === "manager"
              ? t("control.who.family", { name })
              : by === "admin"
                ? t("control.who.admin", { name })
                : name;
    const key: string | undefined = TRAIL_TEXT[e.action as PatientAction];
    const text =
      e.action === "patient.registered"
        ? t(d.heldItemId ? "control.trail.registeredHeld" : key, {
            name: name || t("control.who.gone"),
            centre: centreName || "—",
            recordedBy: str(d.workerName) ?? "—",
          })
        : e.action === "patient.manager_revoked"
          ? t(key, { name: managerNames.get(str(d.managerId) ?? "") || t("control.who.gone"), who })
          : e.action === "patient.centre_revoked"
            ? t(key, { centre: centreName || "—", who })
            : e.action === "patient.slip_print" && Number(d.prints) > 1
              ? t("slip.trailReprinted", { who })
              : e.action === "patient.number_proven" && d.how === "missed-call"
                ? t("phonecall.trailProvenByMissedCall")
                : key
                  ? t(key, { who })
                  : t("control.trail.other", { who }); // a row of an action no longer recorded
    return {
      _id: e.id,
      action: e.action,
      at: e.createdAt.toISOString(),
      by,
      actor:
        e.actorId && r.firstName !== null
          ? { _id: e.actorId, firstName: r.firstName, lastName: r.lastName ?? "" }
          : null,
      centre: centreId ? { _id: centreId, name: centreName } : null,
      reportId: str(d.reportId),
      text,
    };
  });
  // The same person doing the same thing again within minutes is one line "…, 3 times" (0073).
  const items = foldRepeats(
    entries,
    (a, b) =>
      a.action === b.action &&
      a.by === b.by &&
      (a.actor?._id ?? null) === (b.actor?._id ?? null) &&
      a.reportId === b.reportId &&
      (a.centre?._id ?? null) === (b.centre?._id ?? null),
  ).map((e) => (e.count > 1 ? { ...e, text: t("seen.times", { text: e.text, n: e.count }) } : e));
  return {
    nextCursor,
    items,
    total,
    page: page.page,
    pageSize: page.pageSize,
  };
}

/**
 * Inside a transaction: ends the live links to a profile's reports that `userId` made while acting
 * for it — when the person revokes a family member's access, the links that member made go too
 * (decision 0030). Returns how many. The links are sharing's, which depends on care; ending
 * them is part of ending the access, so it is written here, in the same transaction.
 */
export function* revokeLinksMadeBy(tx: DB, patientId: string, userId: string): TxSteps<number> {
  const ended = yield* rows(
    tx
      .update(shareLinks)
      .set({ revokedAt: new Date() })
      .where(
        and(
          eq(shareLinks.patientId, patientId),
          eq(shareLinks.createdBy, userId),
          isNull(shareLinks.revokedAt),
        ),
      )
      .returning({ id: shareLinks.id }),
  );
  return ended.length;
}
