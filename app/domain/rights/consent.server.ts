import { and, count, desc, eq, inArray, isNull, sql, type SQLWrapper } from "drizzle-orm";
import { db, exec, first, rows, transaction, type DB, type TxSteps } from "~/db/client.server";
import {
  centres,
  consentRecords,
  patientConsents,
  patients,
  reports,
  uploadSessions,
  voiceNotes,
  type ConsentPurpose,
} from "~/db/schema";
import { CONSENT_PURPOSES } from "~/db/types";
import { getT } from "~/i18n/i18n.server";
import { isLocale } from "~/i18n/config";
import { CONSENT_TEXTS, type ConsentChange } from "~/schemas/rights";
import { newId } from "~/lib/ids.server";
import { log } from "~/lib/log.server";
import { holdLogin } from "../accounts/index.server";
import { auditInsert } from "../platform/index.server";
import { DomainError } from "../platform/errors";
import { deleteReportFileIfUnused, deleteStored } from "../records/index.server";
import { deleteSegments } from "../records/index.server";
import type { Actor } from "../platform/index.server";
import { assertMayDeleteReports, requirePatientAccess } from "../care/index.server";
import { uploadedFor } from "./consent-source.server";

/**
 * Consent (decision 0019, DPDP Act 2023 s. 6): one record per grant or withdrawal, never changed, with
 * the version of the text the person was shown; the newest record of a purpose is the current
 * consent. Patients give consent for three purposes:
 *
 * - review: an expert reviews the uploaded report. Given with the upload form's checkbox (recorded
 *   "upload"). Withdrawing it withdraws every report still waiting for a review: it leaves the
 *   experts' queue and is deleted with its file (reviewed reports stay with the patient).
 *   Uploading again needs consent again.
 * - contact: an expert may call the patient on the number given with the report. The number is
 *   given for that purpose (the report-submitted screen says so), which the Act allows as a
 *   legitimate use (s. 7(a)) until the patient says no: without a record it stands; withdrawn,
 *   nobody but the patient sees the number on the reports.
 * - statistics: anonymised use for statistics. Off unless given; nothing uses it yet, so there is
 *   nothing to gate beyond the record.
 */

export { CONSENT_TEXTS };

export type ConsentVia = "upload" | "settings" | "api";

export type ConsentState = {
  purpose: ConsentPurpose;
  granted: boolean;
  recorded: boolean;
  textVersion: string | null;
  currentTextVersion: string;
  text: string;
  outdated: boolean;
  at: string | null;
  via: string | null;
  /** Who gave it for the person ("manager" or "centre" via): their name, else null. */
  by: string | null;
};

export type ConsentRecordOut = {
  _id: string;
  purpose: ConsentPurpose;
  granted: boolean;
  textVersion: string;
  locale: string;
  via: string;
  createdAt: string;
};

/** A consent given for the person's profile by someone else (patient_consents): at a centre, a guardian's, a family member's. */
export type ProfileConsentOut = {
  _id: string;
  kind: "facilitated" | "guardian" | "family";
  granted: boolean;
  textVersion: string;
  locale: string;
  method: "verbal" | "witnessed" | "signature" | "thumbprint" | "online";
  witnessName: string | null;
  evidence: boolean;
  recordedBy: { _id: string | null; name: string };
  centre: { _id: string; name: string } | null;
  relationship: string;
  /** When the text was read aloud, when that was before it was recorded (offline); null: at createdAt. */
  shownAt: string | null;
  createdAt: string;
};

export type ConsentOverview = {
  consents: ConsentState[];
  history: ConsentRecordOut[];
  withdrawEffect: { pendingReports: number; reviewedReports: number };
  withdrawnReports?: number;
  /** Consents given for the profile by others, newest first (facilitated with method and witness, a guardian's …). */
  profileConsents: ProfileConsentOut[];
};

type RecordRow = typeof consentRecords.$inferSelect;

const HISTORY_MAX = 100;

function requirePatient(actor: Actor) {
  if (actor.accountType !== "Patient") throw new DomainError("forbidden", "rights.consentsPatientsOnly");
}

/** The newest record of one purpose (consent_records_user_idx walks it backwards). */
function latestQuery(q: DB, userId: string, purpose: ConsentPurpose) {
  return q
    .select()
    .from(consentRecords)
    .where(and(eq(consentRecords.userId, userId), eq(consentRecords.purpose, purpose)))
    .orderBy(desc(consentRecords.createdAt), desc(consentRecords.id))
    .limit(1);
}

/**
 * The first step of every transaction that reads or writes a person's consent: a no-op update of
 * their user row. It serialises those transactions per person (a row lock on PostgreSQL; SQLite
 * writes one at a time anyway), so a withdrawal and an upload, or two withdrawals, never interleave.
 */
export function* lockPerson(tx: DB, userId: string): TxSteps<boolean> {
  return yield* holdLogin(tx, userId);
}

async function reportCounts(patientId: string) {
  const found = await db()
    .select({ status: reports.status, n: count() })
    .from(reports)
    .where(eq(reports.patientId, patientId))
    .groupBy(reports.status);
  return {
    pendingReports: found.find((r) => r.status === "Pending")?.n ?? 0,
    reviewedReports: found.find((r) => r.status === "Reviewed")?.n ?? 0,
  };
}

/** The consents recorded for a profile by others, newest first, with the centre's name. */
export async function profileConsents(patientId: string): Promise<ProfileConsentOut[]> {
  const found = await db()
    .select({ c: patientConsents, centreName: centres.name })
    .from(patientConsents)
    .leftJoin(centres, eq(centres.id, patientConsents.centreId))
    // patient_consents_patient_idx (patient_id, created_at, id)
    .where(eq(patientConsents.patientId, patientId))
    .orderBy(desc(patientConsents.createdAt), desc(patientConsents.id))
    .limit(HISTORY_MAX);
  return found.map(({ c, centreName }) => ({
    _id: c.id,
    kind: c.kind,
    granted: c.granted,
    textVersion: c.textVersion,
    locale: c.locale,
    method: c.method,
    witnessName: c.witnessName || null,
    evidence: !!c.evidenceKey,
    recordedBy: { _id: c.recordedBy, name: c.recordedByName },
    centre: c.centreId ? { _id: c.centreId, name: centreName ?? "" } : null,
    relationship: c.relationship,
    shownAt: c.shownAt?.toISOString() ?? null,
    createdAt: c.createdAt.toISOString(),
  }));
}

/**
 * A patient's consents (current state per purpose, with today's text), the history, what
 * withdrawing review would do, and the consents others gave for their profile. With `patientId`,
 * a family manager reads a member's: only the consents given for that profile (the purposes and
 * their history belong to a login, which the member does not have) and its report counts.
 */
export async function consentOverview(
  actor: Actor,
  locale: string,
  opts: { patientId?: string | null } = {},
): Promise<ConsentOverview> {
  requirePatient(actor);
  if (opts.patientId && opts.patientId !== actor.id) {
    const access = await requirePatientAccess(actor, opts.patientId, "rights.consentsPatientsOnly");
    return {
      consents: [],
      history: [],
      withdrawEffect: await reportCounts(access.patient.id),
      profileConsents: await profileConsents(access.patient.id),
    };
  }
  const t = await getT(isLocale(locale) ? locale : "en");
  const history = await db()
    .select()
    .from(consentRecords)
    .where(eq(consentRecords.userId, actor.id))
    .orderBy(desc(consentRecords.createdAt), desc(consentRecords.id))
    .limit(HISTORY_MAX);
  const effect = await reportCounts(actor.id);
  let newestReport: Date | null = null;
  let givenBy: { via: "manager" | "centre"; name: string } | null = null;
  if (!history.some((r) => r.purpose === "review") && effect.pendingReports + effect.reviewedReports > 0) {
    const row = await first(
      db()
        .select({ id: reports.id, at: reports.consentAt })
        .from(reports)
        .where(eq(reports.patientId, actor.id))
        .orderBy(desc(reports.createdAt), desc(reports.id)),
    );
    newestReport = row?.at ?? null;
    if (row) givenBy = await uploadedFor(actor.id, row.id);
  }
  const consents = CONSENT_PURPOSES.map((purpose): ConsentState => {
    const latest = history.find((r) => r.purpose === purpose);
    const text = CONSENT_TEXTS[purpose];
    const base = { purpose, currentTextVersion: text.version, text: t(text.key) };
    if (latest) {
      return {
        ...base,
        granted: latest.granted,
        recorded: true,
        textVersion: latest.textVersion,
        outdated: latest.granted && latest.textVersion !== text.version,
        at: latest.createdAt.toISOString(),
        via: latest.via,
        by: null,
      };
    }
    // No record: review stands for reports uploaded before records were kept (their consentAt);
    // contact stands as the number's stated purpose; statistics is off.
    const granted = purpose === "contact" || (purpose === "review" && newestReport !== null);
    return {
      ...base,
      granted,
      recorded: false,
      textVersion: null,
      outdated: false,
      at: purpose === "review" && newestReport ? newestReport.toISOString() : null,
      via: purpose === "review" && newestReport ? (givenBy?.via ?? "upload") : null,
      by: purpose === "review" && newestReport ? (givenBy?.name ?? null) : null,
    };
  });
  const own = await first(
    db().select({ id: patients.id }).from(patients).where(eq(patients.accountId, actor.id)),
  );
  return {
    consents,
    history: history.map(toRecordOut),
    withdrawEffect: effect,
    profileConsents: own ? await profileConsents(own.id) : [],
  };
}

function toRecordOut(r: RecordRow): ConsentRecordOut {
  return {
    _id: r.id,
    purpose: r.purpose,
    granted: r.granted,
    textVersion: r.textVersion,
    locale: r.locale,
    via: r.via,
    createdAt: r.createdAt.toISOString(),
  };
}

/**
 * Gives or withdraws one purpose's consent: appends a record (unless the newest record already
 * says so, for the current text) and audits it, in one transaction. Withdrawing review consent
 * deletes, in the same transaction, every report of the patient still waiting for a review (a
 * claim on it ends with it) and then their files; reviewed reports stay. Two withdrawals at once
 * append one record and withdraw the reports once.
 */
export async function changeConsent(
  actor: Actor,
  input: ConsentChange,
  opts: { via: ConsentVia; locale: string; ip?: string | null },
): Promise<ConsentOverview> {
  requirePatient(actor);
  const { purpose, granted } = input;
  const version = CONSENT_TEXTS[purpose].version;
  const locale = isLocale(opts.locale) ? opts.locale : "en";
  // Withdrawing review deletes waiting reports: a taken-over account waits like any deletion.
  if (purpose === "review" && !granted) await assertMayDeleteReports(actor, actor.id);
  const removed = await transaction(function* (tx) {
    if (!(yield* lockPerson(tx, actor.id)))
      throw new DomainError("not_authenticated", "api.notAuthenticated");
    const [latest] = yield* rows(latestQuery(tx, actor.id, purpose));
    if (latest && latest.granted === granted && (!granted || latest.textVersion === version)) return null;
    const now = new Date();
    yield* exec(
      tx.insert(consentRecords).values({
        id: newId(),
        userId: actor.id,
        purpose,
        granted,
        textVersion: version,
        locale,
        via: opts.via,
        createdAt: now,
      }),
    );
    let gone: { id: string; fileKey: string }[] = [];
    let uploads: { id: string }[] = [];
    let voiceKeys: string[] = [];
    if (purpose === "review" && !granted) {
      // Voice notes on those reports go with them (cascade); their audio is removed below.
      voiceKeys = (yield* rows(
        tx
          .select({ k: voiceNotes.fileKey, phone: voiceNotes.phoneFileKey })
          .from(voiceNotes)
          .innerJoin(reports, eq(reports.id, voiceNotes.reportId))
          .where(and(eq(reports.patientId, actor.id), eq(reports.status, "Pending"))),
      )).flatMap((v) => (v.phone ? [v.k, v.phone] : [v.k]));
      gone = yield* rows(
        tx
          .delete(reports)
          .where(and(eq(reports.patientId, actor.id), eq(reports.status, "Pending")))
          .returning({ id: reports.id, fileKey: reports.fileKey }),
      );
      // Resumable uploads still on their way were started under the consent now withdrawn: they end too.
      uploads = yield* rows(
        tx
          .delete(uploadSessions)
          .where(and(eq(uploadSessions.ownerId, actor.id), isNull(uploadSessions.reportId)))
          .returning({ id: uploadSessions.id }),
      );
    }
    yield* exec(
      auditInsert(
        tx,
        actor,
        granted ? "account.consent_grant" : "account.consent_withdraw",
        "user",
        actor.id,
        {
          purpose,
          textVersion: version,
          via: opts.via,
          ...(gone.length ? { withdrawnReports: gone.length } : {}),
        },
        opts.ip,
      ),
    );
    for (const r of gone)
      yield* exec(auditInsert(tx, actor, "report.delete", "report", r.id, { by: "consent" }, opts.ip));
    return { gone, uploads, voiceKeys };
  });
  // A failure here leaves an unreferenced file that sweepLeftovers() removes later.
  await Promise.all([
    ...(removed?.voiceKeys ?? []).map((k) =>
      deleteStored(k).catch((err) =>
        log("error", "could not delete withdrawn voice note", { error: String(err) }),
      ),
    ),
    ...(removed?.gone ?? []).map((r) =>
      deleteReportFileIfUnused(r.fileKey).catch((err) =>
        log("error", "could not delete withdrawn report file", { reportId: r.id, error: String(err) }),
      ),
    ),
    ...(removed?.uploads ?? []).map((u) =>
      deleteSegments(u.id).catch((err) =>
        log("error", "could not remove upload segments", { upload: u.id, error: String(err) }),
      ),
    ),
  ]);
  const overview = await consentOverview(actor, locale);
  return { ...overview, withdrawnReports: removed?.gone.length ?? 0 };
}

/**
 * Inside createReport's transaction (both upload paths): review consent for this upload. Ticked
 * (the form always, an API client sending `consent`): recorded "upload" unless the newest record
 * already gives it for the current text. Not sent (API clients of the original contract): allowed
 * while consent stands, refused once the patient has withdrawn it — uploading again needs consent.
 */
export function* reviewConsentForUpload(
  tx: DB,
  actor: Actor,
  given: boolean,
  givenAt?: Date,
): TxSteps<{ recorded: boolean }> {
  yield* lockPerson(tx, actor.id);
  const [latest] = yield* rows(latestQuery(tx, actor.id, "review"));
  const version = CONSENT_TEXTS.review.version;
  // A resumable upload carries the consent ticked when it started (`givenAt`): a withdrawal
  // recorded after that moment outweighs it.
  const outweighed = given && givenAt && latest && !latest.granted && latest.createdAt > givenAt;
  if (!given || outweighed) {
    if (latest && !latest.granted) {
      throw new DomainError("invalid", "reports.consentRequired", {
        fieldErrors: { consent: ["reports.consentRequired"] },
      });
    }
    return { recorded: false };
  }
  if (latest?.granted && latest.textVersion === version) return { recorded: false };
  yield* exec(
    tx.insert(consentRecords).values({
      id: newId(),
      userId: actor.id,
      purpose: "review",
      granted: true,
      textVersion: version,
      locale: isLocale(actor.locale) ? actor.locale : "en",
      via: "upload",
      createdAt: new Date(),
    }),
  );
  yield* exec(
    auditInsert(tx, actor, "account.consent_grant", "user", actor.id, {
      purpose: "review",
      textVersion: version,
      via: "upload",
    }),
  );
  return { recorded: true };
}

/** Of these patients, those whose newest contact record is a withdrawal (they do not want calls). */
export async function patientsRefusingCalls(patientIds: string[]): Promise<Set<string>> {
  const ids = [...new Set(patientIds.filter(Boolean))];
  const out = new Set<string>();
  for (let i = 0; i < ids.length; i += 500) {
    const found = await db()
      .select({ userId: consentRecords.userId, granted: consentRecords.granted })
      .from(consentRecords)
      .where(
        and(inArray(consentRecords.userId, ids.slice(i, i + 500)), eq(consentRecords.purpose, "contact")),
      )
      // consent_records_user_idx: per person newest first, so the first row of each is current.
      .orderBy(desc(consentRecords.userId), desc(consentRecords.createdAt), desc(consentRecords.id));
    const seen = new Set<string>();
    for (const r of found) {
      if (seen.has(r.userId)) continue;
      seen.add(r.userId);
      if (!r.granted) out.add(r.userId);
    }
  }
  return out;
}

/** The mask shown instead of a number the patient does not want called (the same as for unapproved experts). */
export const HIDDEN_PHONE = "**********";

/**
 * Whether the person `userId` names (a column of the outer statement) refuses calls, as a column:
 * 1 when their newest contact consent is a withdrawal, 0 when it is a grant, null when they never
 * answered (which does not refuse) — the rule of `patientsRefusingCalls`, carried by a list's own
 * rows so that a list page needs no statement of its own for it (consent_records_user_idx
 * answers it per row).
 */
export function refusesCallsColumn(userId: SQLWrapper) {
  return sql<
    number | null
  >`(select case when ${consentRecords.granted} then 0 else 1 end from ${consentRecords} where ${consentRecords.userId} = ${userId} and ${consentRecords.purpose} = 'contact' order by ${consentRecords.createdAt} desc, ${consentRecords.id} desc limit 1)`;
}

/**
 * `hidePhonesOfRefusers` for rows that carry `refusesCallsColumn` already: the same mask, without
 * a statement. Changes the items in place.
 */
export function hidePhonesOfFlagged<T extends { phoneNumber: string }>(
  viewer: Pick<Actor, "accountType"> | null,
  items: T[],
  refuses: (item: T, index: number) => boolean,
): T[] {
  if (viewer?.accountType === "Patient") return items;
  items.forEach((r, i) => {
    if (refuses(r, i)) r.phoneNumber = HIDDEN_PHONE;
  });
  return items;
}

/**
 * The contact gate: on reports seen by anyone but their patient, the phone number of a patient
 * who withdrew contact consent is replaced by the mask. Changes the items in place.
 */
export async function hidePhonesOfRefusers<T extends { patient: { _id: string }; phoneNumber: string }>(
  viewer: Pick<Actor, "accountType"> | null,
  items: T[],
): Promise<T[]> {
  if (viewer?.accountType === "Patient" || !items.length) return items;
  const refusing = await patientsRefusingCalls(items.map((r) => r.patient._id));
  if (!refusing.size) return items;
  for (const r of items) if (refusing.has(r.patient._id)) r.phoneNumber = HIDDEN_PHONE;
  return items;
}
