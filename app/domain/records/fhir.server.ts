import { createHash, randomUUID } from "node:crypto";
import { PassThrough, Readable, Transform } from "node:stream";
import type {
  Attachment,
  AuditEvent,
  Bundle,
  BundleEntry,
  CodeableConcept,
  Communication,
  Consent,
  ContactPoint,
  DiagnosticReport,
  DocumentReference,
  Identifier,
  Organization,
  Patient,
  Practitioner,
  Reference,
  RelatedPerson,
  Resource,
} from "@medplum/fhirtypes";
import { and, asc, desc, eq, inArray, isNull, sql } from "drizzle-orm";
import type { TFunction } from "i18next";
import { ZipFile } from "yazl";
import { config } from "~/config.server";
import { db, first, unindexed } from "~/db/client.server";
import {
  auditEvents,
  centres,
  consentRecords,
  patientConsents,
  patientManagers,
  profiles,
  reports,
  shareLinks,
  users,
  voiceNotes,
  type AccountType,
  type ConsentPurpose,
  type PatientRow,
  type ReportRow,
  type UserRow,
} from "~/db/schema";
import { isLocale, type Locale } from "~/i18n/config";
import { getT } from "~/i18n/i18n.server";
import { CENTRE_KIND_KEYS, CONSENT_KIND_KEYS, CONSENT_METHOD_KEYS } from "~/schemas/control";
import { REPORT_TYPE_KEYS, type ReportType } from "~/schemas/reports";
import { site } from "~/site";
import { DEFAULT_TIME_ZONE } from "~/utils/format";
import { log } from "~/utils/log.server";
import { audit, parseDetail } from "../platform/audit.server";
import type { Client } from "../platform/client";
import { DomainError } from "../platform/errors";
import { expertDetailsFor, type ApiExpertDetails, type Actor } from "../accounts/index.server";
import { openDecrypted, sanitizeFileName, storedExists } from "./files.server";
import { followUpsFor, type ApiFollowUp } from "../consultation/followups.server";
import { letterFileName, renderOpinionLetter } from "../consultation/letters.server";
import { limit } from "../platform/ratelimit.server";
import { opinionUrl, reportFileUrl, toApiReport } from "../consultation/reports.server";
import { findPatient, patientAccess, traceAccess, type PatientAccess } from "../care/patients.server";

/**
 * A patient's data as FHIR R4 (decision 0018): one `collection` Bundle with the patient,
 * their reports (DocumentReference, the file as an attachment), the opinions (DiagnosticReport,
 * the letter PDF in presentedForm), the experts (Practitioner, registration number as an
 * identifier), the follow-up questions and answers (Communication), consents (Consent) and who
 * opened their files or exported their data (AuditEvent).
 *
 * Two shapes: for /api/v1 the attachments link to the authenticated file and letter routes; for
 * "Download my data" a ZIP streams the decrypted originals and the letters one at a time and ends
 * with the Bundle, whose attachment URLs are paths inside the ZIP (with size and SHA-1, counted
 * while the bytes passed). The patient themself or an admin only; every export is audited and
 * rate-limited.
 */

export const FHIR_CONTENT_TYPE = "application/fhir+json; fhirVersion=4.0";

// ---------------------------------------------------------------------------------------------
// Identity: stable resource ids and the systems of our identifiers

/** The namespace of our name-based (version 5) UUIDs: a constant, never to be changed. */
const UUID_NAMESPACE = Buffer.from("3b2f8a61c0d94e5fa7b81e6d2c4f9a07", "hex");

/**
 * A stable UUID for a resource made from a database row: the same row gives the same id in
 * every export (RFC 9562 version 5: SHA-1 of namespace and name).
 */
export function fhirId(kind: string, rowId: string): string {
  const h = createHash("sha1").update(UUID_NAMESPACE).update(`${kind}/${rowId}`).digest();
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString("hex");
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** Identifier systems and code systems: URLs under this deployment's address (decision 0018). */
function systemsFor(base: string) {
  const sid = (name: string) => `${base}/fhir/sid/${name}`;
  const cs = (name: string) => `${base}/fhir/CodeSystem/${name}`;
  return {
    user: sid("user"),
    report: sid("report"),
    opinion: sid("opinion"),
    letterCode: sid("letter-code"),
    followUp: sid("follow-up"),
    followUpAnswer: sid("follow-up-answer"),
    consent: sid("consent"),
    uploadConsent: sid("upload-consent"),
    auditEvent: sid("audit-event"),
    medicalRegistration: sid("medical-registration"),
    export: sid("export"),
    reportType: cs("report-type"),
    opinionFlag: cs("opinion-flag"),
    consentPurpose: cs("consent-purpose"),
    consentText: cs("consent-text"),
    patient: sid("patient"),
    shortId: sid("short-id"),
    centre: sid("centre"),
    consentBasis: cs("consent-basis"),
    consentMethod: `${base}/fhir/StructureDefinition/consent-method`,
    consentWitness: `${base}/fhir/StructureDefinition/consent-witness`,
  };
}

// ---------------------------------------------------------------------------------------------
// Who may export whom

const ID_MAX = 100;

/**
 * The profile whose data `actor` may export, through the one access rule (decision 0030): the
 * person themself, a family manager, the registering centre's health workers, an admin. Experts
 * may not; a profile the actor may not act for is refused without saying whether it exists; an
 * admin asking for an id that is no profile gets not_found.
 */
async function exportablePatient(
  actor: Actor,
  patientId: unknown,
): Promise<{ patient: PatientRow; account: UserRow | undefined; access: PatientAccess }> {
  if (actor.accountType === "Expert") throw new DomainError("forbidden", "fhir.notAllowed");
  if (
    actor.accountType !== "Patient" &&
    actor.accountType !== "Admin" &&
    actor.accountType !== "HealthWorker"
  )
    throw new DomainError("forbidden", "fhir.notAllowed");
  const id = typeof patientId === "string" && patientId.length <= ID_MAX ? patientId : "";
  const patient = id ? await findPatient(id) : undefined;
  if (!patient) {
    if (actor.accountType === "Admin") throw new DomainError("not_found", "fhir.patientNotFound");
    throw new DomainError("forbidden", "fhir.notYourData");
  }
  const access = await patientAccess(actor, patient.id);
  if (!access) throw new DomainError("forbidden", "fhir.notYourData");
  const account = patient.accountId
    ? await first(db().select().from(users).where(eq(users.id, patient.accountId)))
    : undefined;
  return { patient, account, access };
}

// ---------------------------------------------------------------------------------------------
// What is exported: one consistent read of the patient's rows

type Person = { id: string; firstName: string; lastName: string; accountType: AccountType };

type EventRow = typeof auditEvents.$inferSelect;

type ManagerRow = {
  managerId: string;
  firstName: string;
  lastName: string;
  relationship: string;
  gender: string | null;
  since: Date;
};

type Snapshot = {
  /** The patient profile (decision 0030). */
  patient: PatientRow;
  /** Their own login, when they have one (a patient account, or a profile taken over). */
  account: UserRow | undefined;
  profile: typeof profiles.$inferSelect | undefined;
  /** Family logins acting for the profile now. */
  managers: ManagerRow[];
  /** The centre that registered them, and every centre a consent for them was recorded at. */
  centres: Map<string, typeof centres.$inferSelect>;
  /** Consents given for the profile by others (facilitated, a guardian's, a family member's). */
  profileConsents: (typeof patientConsents.$inferSelect)[];
  reports: ReportRow[];
  followUps: Map<string, ApiFollowUp[]>;
  /** Everyone the export names besides the patient (reviewers, answerers, who opened files), by id. */
  people: Map<string, Person>;
  expertDetails: Map<string, ApiExpertDetails>;
  consents: (typeof consentRecords.$inferSelect)[];
  events: EventRow[];
  /** The patient's own words for each sharing link an event went through, by link id. */
  shareLabels: Map<string, string>;
  locale: Locale;
  t: TFunction;
  at: Date;
};

/**
 * The file openings and exports a patient sees: who opened a report's file or letter — signed in,
 * or through one of the patient's sharing links (no actor) — and who exported their data.
 */
const REPORT_EVENTS = [
  "report.file_open",
  "report.letter_open",
  "share.file_open",
  "share.letter_open",
] as const;
const LETTER_EVENTS = new Set(["report.letter_open", "share.letter_open"]);
const SHARE_EVENTS = new Set(["share.file_open", "share.letter_open"]);
export const EXPORT_EVENT = "account.data_export" as const;
const BATCH = 500;

/** The sharing link a "share.*" event went through ("" when the detail has none). */
function linkIdOf(e: EventRow): string {
  const detail = parseDetail(e.detail) as { linkId?: unknown } | null;
  return typeof detail?.linkId === "string" ? detail.linkId : "";
}

async function snapshot(patient: PatientRow, account: UserRow | undefined): Promise<Snapshot> {
  const at = new Date();
  const [profile, reportRows, consents, managers, givenByOthers] = await Promise.all([
    account ? first(db().select().from(profiles).where(eq(profiles.userId, account.id))) : undefined,
    db()
      .select()
      .from(reports)
      // reports_patient_created_idx (patient_id, created_at, id)
      .where(eq(reports.patientId, patient.id))
      .orderBy(desc(reports.createdAt), desc(reports.id)),
    db()
      .select()
      .from(consentRecords)
      // consent_records_user_idx (user_id, purpose, created_at, id)
      .where(eq(consentRecords.userId, account?.id ?? ""))
      .orderBy(asc(consentRecords.purpose), asc(consentRecords.createdAt), asc(consentRecords.id)),
    db()
      .select({
        managerId: patientManagers.managerId,
        firstName: users.firstName,
        lastName: users.lastName,
        relationship: patientManagers.relationship,
        gender: profiles.gender,
        since: patientManagers.createdAt,
      })
      .from(patientManagers)
      .innerJoin(users, eq(users.id, patientManagers.managerId))
      .leftJoin(profiles, eq(profiles.userId, patientManagers.managerId))
      .where(and(eq(patientManagers.patientId, patient.id), isNull(patientManagers.revokedAt)))
      .orderBy(asc(patientManagers.createdAt), asc(patientManagers.managerId)),
    db()
      .select()
      .from(patientConsents)
      // patient_consents_patient_idx (patient_id, created_at, id)
      .where(eq(patientConsents.patientId, patient.id))
      .orderBy(asc(patientConsents.createdAt), asc(patientConsents.id)),
  ]);
  const centreIds = [
    ...new Set([patient.centreId, ...givenByOthers.map((c) => c.centreId)].filter((c): c is string => !!c)),
  ];
  const centreRows = new Map<string, typeof centres.$inferSelect>();
  if (centreIds.length)
    for (const c of await db().select().from(centres).where(inArray(centres.id, centreIds)))
      centreRows.set(c.id, c);
  const reportIds = reportRows.map((r) => r.id);
  const followUps = await followUpsFor(reportIds);

  const events: EventRow[] = [];
  for (let i = 0; i < reportIds.length; i += BATCH) {
    events.push(
      ...(await db()
        .select()
        .from(auditEvents)
        .where(
          and(
            // audit_events_subject_idx (subject_type, subject_id, created_at, id)
            eq(auditEvents.subjectType, "report"),
            inArray(auditEvents.subjectId, reportIds.slice(i, i + BATCH)),
            inArray(unindexed(auditEvents.action), [...REPORT_EVENTS]),
          ),
        )),
    );
  }
  events.push(
    ...(await db()
      .select()
      .from(auditEvents)
      .where(
        and(
          eq(auditEvents.subjectType, "user"),
          eq(auditEvents.subjectId, patient.id),
          sql`${unindexed(auditEvents.action)} = ${EXPORT_EVENT}`,
        ),
      )),
  );
  events.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));

  const wanted = new Set<string>();
  for (const r of reportRows) {
    if (r.expertId) wanted.add(r.expertId);
    if (r.followupExpertId) wanted.add(r.followupExpertId);
  }
  for (const list of followUps.values()) for (const f of list) if (f.answeredBy) wanted.add(f.answeredBy._id);
  for (const e of events) if (e.actorId) wanted.add(e.actorId);
  wanted.delete(patient.id);
  const people = new Map<string, Person>();
  const ids = [...wanted];
  for (let i = 0; i < ids.length; i += BATCH) {
    const found = await db()
      .select({
        id: users.id,
        firstName: users.firstName,
        lastName: users.lastName,
        accountType: users.accountType,
      })
      .from(users)
      .where(inArray(users.id, ids.slice(i, i + BATCH)));
    for (const p of found) people.set(p.id, p);
  }
  const linkIds = [
    ...new Set(
      events
        .filter((e) => SHARE_EVENTS.has(e.action))
        .map((e) => linkIdOf(e))
        .filter((id) => !!id),
    ),
  ];
  const shareLabels = new Map<string, string>();
  for (let i = 0; i < linkIds.length; i += BATCH) {
    const found = await db()
      .select({ id: shareLinks.id, label: shareLinks.label })
      .from(shareLinks)
      .where(inArray(shareLinks.id, linkIds.slice(i, i + BATCH)));
    for (const l of found) shareLabels.set(l.id, l.label);
  }
  const experts = [...people.values()].filter((p) => p.accountType === "Expert").map((p) => p.id);
  const locale: Locale = isLocale(patient.locale) ? patient.locale : "en";
  return {
    patient,
    account,
    profile,
    managers,
    centres: centreRows,
    profileConsents: givenByOthers,
    reports: reportRows,
    followUps,
    people,
    expertDetails: await expertDetailsFor(experts),
    consents,
    events,
    shareLabels,
    locale,
    t: await getT(locale),
    at,
  };
}

// ---------------------------------------------------------------------------------------------
// The Bundle

/** Where an attachment's bytes are: a URL (absolute in the API, a path inside the ZIP), and when known their size and SHA-1. */
export type AttachmentLink = { url: string; size?: number; sha1?: string };

type Links = {
  file: (r: ReportRow) => AttachmentLink | null;
  /** Null: no letter to point to (e.g. the reviewing expert's account was deleted). */
  letter: (r: ReportRow) => AttachmentLink | null;
};

const GENDER: Record<string, Patient["gender"]> = {
  Male: "male",
  Female: "female",
  "Non-Binary": "other",
  Other: "other",
  "Prefer not to say": "unknown",
};

/** A profile's sex as registered (decision 0030). */
const PROFILE_GENDER: Record<string, Patient["gender"]> = { female: "female", male: "male", other: "other" };

/**
 * What a family manager is to the patient, as an HL7 v3 RoleCode. The relationship is recorded
 * the other way round — the member as the manager described them ("daughter": the manager is her
 * parent) — so it is turned over, and made a father or mother, a son or daughter where the
 * manager's own profile gives their gender. Anything else is a family member.
 */
function relatedRole(relationship: string, managerGender: string | null): { code: string; display: string } {
  const r = relationship.trim().toLowerCase();
  const male = managerGender === "Male";
  const female = managerGender === "Female";
  if (["daughter", "son", "child"].includes(r))
    return male
      ? { code: "FTH", display: "father" }
      : female
        ? { code: "MTH", display: "mother" }
        : { code: "PRN", display: "parent" };
  if (["father", "mother", "parent"].includes(r))
    return male
      ? { code: "SON", display: "natural son" }
      : female
        ? { code: "DAU", display: "natural daughter" }
        : { code: "CHILD", display: "child" };
  if (["spouse", "husband", "wife"].includes(r))
    return r === "husband"
      ? { code: "WIFE", display: "wife" }
      : r === "wife"
        ? { code: "HUSB", display: "husband" }
        : { code: "SPS", display: "spouse" };
  if (["brother", "sister", "sibling"].includes(r))
    return male
      ? { code: "BRO", display: "brother" }
      : female
        ? { code: "SIS", display: "sister" }
        : { code: "SIB", display: "sibling" };
  if (["grandfather", "grandmother", "grandparent"].includes(r))
    return { code: "GRNDCHILD", display: "grandchild" };
  if (["grandson", "granddaughter", "grandchild"].includes(r))
    return { code: "GRPRN", display: "grandparent" };
  return { code: "FAMMEMB", display: "family member" };
}

const CONSENT_SCOPE: Record<ConsentPurpose, { code: string; display: string }> = {
  review: { code: "treatment", display: "Treatment" },
  contact: { code: "patient-privacy", display: "Privacy Consent" },
  statistics: { code: "research", display: "Research" },
};

/** The purpose of use each consent permits (HL7 v3 ActReason). */
const CONSENT_PURPOSE_OF_USE: Record<ConsentPurpose, { code: string; display: string }> = {
  review: { code: "TREAT", display: "treatment" },
  contact: { code: "PATADMIN", display: "patient administration" },
  statistics: { code: "HRESCH", display: "healthcare research" },
};

/** An audited entity that is the patient (HL7 object-role). */
const PATIENT_ROLE = {
  system: "http://terminology.hl7.org/CodeSystem/object-role",
  code: "1",
  display: "Patient",
};

/**
 * Free text as a FHIR string: never empty (undefined for nothing to say) and without the control
 * characters FHIR strings may not hold (all below U+0020 but tab, CR and LF).
 */
function text(value: string | null | undefined): string | undefined {
  // eslint-disable-next-line no-control-regex
  const s = (value ?? "").replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "").trim();
  return s ? s : undefined;
}

const iso = (d: Date) => d.toISOString();

function humanName(first: string, last: string) {
  const family = text(last);
  const given = text(first);
  return {
    ...(family ? { family } : {}),
    ...(given ? { given: [given] } : {}),
    ...(text(`${first} ${last}`) ? { text: `${first} ${last}`.trim() } : {}),
  };
}

/** A number as typed with its country code: "+91" + "9876543210"; numbers already in E.164 stay. */
function phoneValue(countryCode: string | null | undefined, number: string | null | undefined) {
  const n = (number ?? "").replace(/[\s\-().]/g, "");
  if (!n) return undefined;
  return n.startsWith("+") ? n : `${countryCode ?? ""}${n}`;
}

/** A reference to an entry of this Bundle (any target type: the element's type decides). */
type Ref = Reference<any>;

function buildBundle(s: Snapshot, links: Links): Bundle {
  const base = config().appUrl;
  const sys = systemsFor(base);
  const { t } = s;
  const entries: BundleEntry[] = [];
  const add = (resource: Resource): Ref => {
    const url = `urn:uuid:${resource.id}`;
    entries.push({ fullUrl: url, resource });
    return { reference: url, type: resource.resourceType };
  };
  const refTo = (resourceType: Resource["resourceType"], id: string, display?: string): Ref => ({
    reference: `urn:uuid:${id}`,
    type: resourceType,
    ...(display ? { display } : {}),
  });

  // The service itself: custodian of the documents, observer of the audit trail.
  const organization: Organization = {
    resourceType: "Organization",
    id: fhirId("Organization", "service"),
    identifier: [{ system: "urn:ietf:rfc:3986", value: base }],
    active: true,
    name: site.productName,
    telecom: [{ system: "url", value: base }],
  };
  const orgRef = add(organization);

  // The centres: the one that registered the patient, and those where a consent was recorded.
  const centreRefs = new Map<string, Ref>();
  for (const c of s.centres.values()) {
    const kind = t(CENTRE_KIND_KEYS[c.kind]);
    const address = {
      ...(text(c.district) ? { district: text(c.district) } : {}),
      ...(text(c.state) ? { state: text(c.state) } : {}),
      ...(text(c.pinCode) ? { postalCode: text(c.pinCode) } : {}),
      country: "IN",
    };
    const centre: Organization = {
      resourceType: "Organization",
      id: fhirId("Organization", `centre/${c.id}`),
      identifier: [{ use: "usual", system: sys.centre, value: c.id }],
      active: true,
      type: [
        {
          coding: [
            {
              system: "http://terminology.hl7.org/CodeSystem/organization-type",
              code: "prov",
              display: "Healthcare Provider",
            },
          ],
          text: kind,
        },
      ],
      name: text(c.name) ?? kind,
      address: [address],
      partOf: orgRef,
    };
    centreRefs.set(c.id, { ...add(centre), display: centre.name });
  }

  // The patient: the profile (decision 0030), with their own login's contact details when they have one.
  const p = s.patient;
  const acc = s.account;
  const patientName = `${p.firstName} ${p.lastName}`.trim();
  const telecom: ContactPoint[] = [];
  const seen = new Set<string>();
  const addTelecom = (c: ContactPoint) => {
    if (!c.value || seen.has(`${c.system}:${c.value}`)) return;
    seen.add(`${c.system}:${c.value}`);
    telecom.push(c);
  };
  if (acc && text(acc.email)) addTelecom({ system: "email", value: acc.email });
  if (acc && text(acc.phone)) addTelecom({ system: "phone", value: acc.phone!, use: "mobile" });
  if (p.phone && p.phoneOwner === "self") addTelecom({ system: "phone", value: p.phone, use: "mobile" });
  if (acc) addTelecom({ system: "phone", value: phoneValue(acc.countryCode, acc.contactNumber) });
  if (acc) addTelecom({ system: "phone", value: phoneValue(acc.countryCode, s.profile?.contactNumber) });
  for (const r of s.reports) addTelecom({ system: "phone", value: phoneValue(null, r.phoneNumber) });
  const birthDate = s.profile?.dateOfBirth;
  const gender = p.sex ? PROFILE_GENDER[p.sex] : s.profile?.gender ? GENDER[s.profile.gender] : undefined;
  const identifier: Identifier[] = [
    // A patient account's profile has the account's id: the identifier earlier exports carried.
    p.accountId === p.id
      ? { use: "usual", system: sys.user, value: p.id }
      : { use: "usual", system: sys.patient, value: p.id },
  ];
  if (p.shortId) identifier.push({ use: "secondary", system: sys.shortId, value: p.shortId });
  const locality = text(p.locality);
  const registeredAt = p.centreId ? centreRefs.get(p.centreId) : undefined;
  // A phone that is a family member's: how to reach the patient, as a contact.
  const familyPhone = p.phone && p.phoneOwner === "family" ? p.phone : null;
  const patient: Patient = {
    resourceType: "Patient",
    id: fhirId("Patient", p.id),
    identifier,
    active: acc ? !acc.suspendedAt : true,
    name: [{ use: "official", ...humanName(p.firstName, p.lastName) }],
    ...(telecom.length ? { telecom } : {}),
    ...(gender ? { gender } : {}),
    ...(birthDate && /^\d{4}-\d{2}-\d{2}$/.test(birthDate)
      ? { birthDate }
      : p.birthYear && p.birthYear > 1800 && p.birthYear < 10000
        ? { birthDate: String(p.birthYear) }
        : {}),
    ...(locality ? { address: [{ use: "home", text: locality, city: locality, country: "IN" }] } : {}),
    ...(familyPhone
      ? {
          contact: [
            {
              relationship: [
                {
                  coding: [
                    {
                      system: "http://terminology.hl7.org/CodeSystem/v3-RoleCode",
                      code: "FAMMEMB",
                      display: "family member",
                    },
                  ],
                  ...(text(p.phoneRelationship) ? { text: text(p.phoneRelationship) } : {}),
                },
              ],
              telecom: [{ system: "phone", value: familyPhone, use: "mobile" }],
            },
          ],
        }
      : {}),
    communication: [
      { language: { coding: [{ system: "urn:ietf:bcp:47", code: s.locale }] }, preferred: true },
    ],
    managingOrganization: registeredAt ?? orgRef,
  };
  const patientRef = { ...add(patient), ...(patientName ? { display: patientName } : {}) };

  // Family members who act for the patient: a RelatedPerson each, the relationship coded (v3-RoleCode).
  const relatedRefs = new Map<string, Ref>();
  for (const m of s.managers) {
    const role = relatedRole(m.relationship, m.gender);
    const related: RelatedPerson = {
      resourceType: "RelatedPerson",
      id: fhirId("RelatedPerson", `${p.id}/${m.managerId}`),
      identifier: [{ use: "usual", system: sys.user, value: m.managerId }],
      active: true,
      patient: patientRef,
      relationship: [
        {
          coding: [
            {
              system: "http://terminology.hl7.org/CodeSystem/v3-RoleCode",
              code: role.code,
              display: role.display,
            },
          ],
          ...(text(m.relationship) ? { text: text(m.relationship) } : {}),
        },
      ],
      name: [humanName(m.firstName, m.lastName)],
      period: { start: iso(m.since) },
    };
    const name = `${m.firstName} ${m.lastName}`.trim();
    relatedRefs.set(m.managerId, { ...add(related), ...(name ? { display: name } : {}) });
  }

  // Experts: everyone of them the export names.
  const practitionerRefs = new Map<string, Ref>();
  for (const person of s.people.values()) {
    if (person.accountType !== "Expert") continue;
    const details = s.expertDetails.get(person.id);
    const identifier: Identifier[] = [{ use: "usual", system: sys.user, value: person.id }];
    if (text(details?.registrationNumber)) {
      identifier.push({
        use: "official",
        type: {
          coding: [
            {
              system: "http://terminology.hl7.org/CodeSystem/v2-0203",
              code: "MD",
              display: "Medical License number",
            },
          ],
          text: t("opinion.regNo"),
        },
        system: sys.medicalRegistration,
        value: details!.registrationNumber.trim(),
        ...(text(details?.registrationCouncil)
          ? { assigner: { display: details!.registrationCouncil.trim() } }
          : {}),
      });
    }
    const practitioner: Practitioner = {
      resourceType: "Practitioner",
      id: fhirId("Practitioner", person.id),
      identifier,
      name: [humanName(person.firstName, person.lastName)],
    };
    const name = `${person.firstName} ${person.lastName}`.trim();
    practitionerRefs.set(person.id, { ...add(practitioner), ...(name ? { display: name } : {}) });
  }
  const expertRef = (id: string | null | undefined) => (id ? practitionerRefs.get(id) : undefined);

  // Reports and opinions.
  const documentRefs = new Map<string, Ref>();
  const opinionRefs = new Map<string, Ref>();
  const typeOf = (r: ReportRow): CodeableConcept => ({
    coding: [{ system: sys.reportType, code: r.reportType, display: r.reportType }],
    text: t(REPORT_TYPE_KEYS[r.reportType as ReportType] ?? r.reportType),
  });
  for (const r of s.reports) {
    const reviewed = r.status === "Reviewed";
    const documentId = fhirId("DocumentReference", r.id);
    const opinionId = fhirId("DiagnosticReport", r.id);
    const file = links.file(r);
    const attachment: Attachment = {
      contentType: r.mimeType,
      ...(file ? { url: file.url } : {}),
      size: file?.size ?? r.size,
      ...(file?.sha1 ? { hash: file.sha1 } : {}),
      ...(text(r.fileName) ? { title: text(r.fileName) } : {}),
      creation: iso(r.createdAt),
    };
    const document: DocumentReference = {
      resourceType: "DocumentReference",
      id: documentId,
      identifier: [{ system: sys.report, value: r.id }],
      status: "current",
      type: typeOf(r),
      subject: patientRef,
      date: iso(r.createdAt),
      author: [patientRef],
      custodian: orgRef,
      ...(text(r.description) ? { description: text(r.description) } : {}),
      content: [{ attachment }],
      ...(reviewed ? { context: { related: [refTo("DiagnosticReport", opinionId)] } } : {}),
    };
    documentRefs.set(r.id, add(document));

    if (!reviewed) continue;
    const reviewer = expertRef(r.expertId);
    const letter = links.letter(r);
    const conclusion = [
      text(r.review),
      text(r.findings) ? `${t("opinion.findings")}: ${text(r.findings)}` : undefined,
      text(r.recommendations) ? `${t("opinion.recommendations")}: ${text(r.recommendations)}` : undefined,
      r.seeDoctorSoon ? t("opinion.seeDoctorSoonNotice") : undefined,
    ]
      .filter(Boolean)
      .join("\n\n");
    const opinion: DiagnosticReport = {
      resourceType: "DiagnosticReport",
      id: opinionId,
      identifier: [
        { system: sys.opinion, value: r.id },
        ...(r.letterCode ? [{ system: sys.letterCode, value: r.letterCode }] : []),
      ],
      status: "final",
      code: typeOf(r),
      subject: patientRef,
      ...(r.reviewedAt ? { issued: iso(r.reviewedAt) } : {}),
      ...(reviewer ? { performer: [reviewer], resultsInterpreter: [reviewer] } : {}),
      ...(conclusion ? { conclusion } : {}),
      ...(r.seeDoctorSoon
        ? {
            conclusionCode: [
              {
                coding: [
                  {
                    system: sys.opinionFlag,
                    code: "see-doctor-soon",
                    display: "See a doctor in person soon",
                  },
                ],
                text: t("opinion.seeDoctorSoonNotice"),
              },
            ],
          }
        : {}),
      ...(letter && r.letterCode
        ? {
            presentedForm: [
              {
                contentType: "application/pdf",
                language: s.locale,
                url: letter.url,
                ...(letter.size !== undefined ? { size: letter.size } : {}),
                ...(letter.sha1 ? { hash: letter.sha1 } : {}),
                title: letterFileName(r.letterCode),
              },
            ],
          }
        : {}),
    };
    opinionRefs.set(r.id, add(opinion));
  }

  // Follow-up questions and their answers.
  for (const r of s.reports) {
    for (const f of s.followUps.get(r.id) ?? []) {
      const about = opinionRefs.get(r.id);
      const answerer = expertRef(f.answeredBy?._id);
      const holder = answerer ?? expertRef(r.followupExpertId) ?? expertRef(r.expertId);
      const question: Communication = {
        resourceType: "Communication",
        id: fhirId("Communication", `question/${f._id}`),
        identifier: [{ system: sys.followUp, value: f._id }],
        status: "completed",
        subject: patientRef,
        ...(about ? { about: [about] } : {}),
        sent: f.askedAt,
        sender: patientRef,
        ...(holder ? { recipient: [holder] } : {}),
        payload: [{ contentString: text(f.question) ?? "?" }],
      };
      const questionRef = add(question);
      const answerText = text(f.answer);
      if (!answerText || !f.answeredAt) continue;
      const answer: Communication = {
        resourceType: "Communication",
        id: fhirId("Communication", `answer/${f._id}`),
        identifier: [{ system: sys.followUpAnswer, value: f._id }],
        inResponseTo: [questionRef],
        status: "completed",
        subject: patientRef,
        ...(about ? { about: [about] } : {}),
        sent: f.answeredAt,
        ...(answerer ? { sender: answerer } : {}),
        recipient: [patientRef],
        payload: [{ contentString: answerText }],
      };
      add(answer);
    }
  }

  // Consents: the upload form's consent for each report, then the recorded consents (newest per purpose active).
  for (const r of s.reports) {
    const consent: Consent = {
      resourceType: "Consent",
      id: fhirId("Consent", `upload/${r.id}`),
      identifier: [{ system: sys.uploadConsent, value: r.id }],
      status: "active",
      scope: {
        coding: [
          {
            system: "http://terminology.hl7.org/CodeSystem/consentscope",
            code: CONSENT_SCOPE.review.code,
            display: CONSENT_SCOPE.review.display,
          },
        ],
      },
      category: [{ coding: [{ system: "http://loinc.org", code: "59284-0", display: "Patient Consent" }] }],
      patient: patientRef,
      dateTime: iso(r.consentAt),
      organization: [orgRef],
      policyRule: {
        coding: [{ system: sys.consentText, code: "upload-form" }],
        text: t("reports.consentLabel"),
      },
      provision: {
        type: "permit",
        purpose: [
          {
            system: "http://terminology.hl7.org/CodeSystem/v3-ActReason",
            code: CONSENT_PURPOSE_OF_USE.review.code,
            display: CONSENT_PURPOSE_OF_USE.review.display,
          },
        ],
        data: [{ meaning: "instance", reference: documentRefs.get(r.id)! }],
      },
    };
    add(consent);
  }
  const newest = new Map<string, string>();
  for (const c of s.consents) newest.set(c.purpose, c.id); // ordered by purpose, then time
  for (const c of s.consents) {
    const purpose = c.purpose as ConsentPurpose;
    const scope = CONSENT_SCOPE[purpose];
    const use = CONSENT_PURPOSE_OF_USE[purpose];
    if (!scope || !use) continue;
    const consent: Consent = {
      resourceType: "Consent",
      id: fhirId("Consent", c.id),
      identifier: [{ system: sys.consent, value: c.id }],
      status: newest.get(c.purpose) === c.id ? "active" : "inactive",
      scope: {
        coding: [
          {
            system: "http://terminology.hl7.org/CodeSystem/consentscope",
            code: scope.code,
            display: scope.display,
          },
        ],
      },
      category: [
        { coding: [{ system: "http://loinc.org", code: "59284-0", display: "Patient Consent" }] },
        { coding: [{ system: sys.consentPurpose, code: c.purpose }] },
      ],
      patient: patientRef,
      dateTime: iso(c.createdAt),
      organization: [orgRef],
      sourceAttachment: {
        ...(isLocale(c.locale) ? { language: c.locale } : {}),
        title: c.textVersion,
      },
      policyRule: { coding: [{ system: sys.consentText, code: c.textVersion }], text: c.textVersion },
      provision: {
        type: c.granted ? "permit" : "deny",
        purpose: [{ system: "http://terminology.hl7.org/CodeSystem/v3-ActReason", ...use }],
      },
    };
    add(consent);
  }

  // Consents given for the patient by someone else: the basis of a consultation a health worker
  // or a guardian started (the facilitated consent at the centre, the guardian's for a minor).
  const newestGiven = s.profileConsents.at(-1)?.id;
  for (const c of s.profileConsents) {
    const centreRef = c.centreId ? centreRefs.get(c.centreId) : undefined;
    const performer: Ref | undefined =
      c.kind === "facilitated"
        ? centreRef
        : ((c.recordedBy ? relatedRefs.get(c.recordedBy) : undefined) ??
          (text(c.recordedByName) ? { display: text(c.recordedByName) } : undefined));
    const consent: Consent = {
      resourceType: "Consent",
      id: fhirId("Consent", `profile/${c.id}`),
      identifier: [{ system: sys.consent, value: c.id }],
      extension: [
        { url: sys.consentMethod, valueCode: c.method },
        ...(text(c.witnessName) ? [{ url: sys.consentWitness, valueString: text(c.witnessName) }] : []),
      ],
      status: !c.granted ? "rejected" : c.id === newestGiven ? "active" : "inactive",
      scope: {
        coding: [
          {
            system: "http://terminology.hl7.org/CodeSystem/consentscope",
            code: CONSENT_SCOPE.review.code,
            display: CONSENT_SCOPE.review.display,
          },
        ],
      },
      category: [
        { coding: [{ system: "http://loinc.org", code: "59284-0", display: "Patient Consent" }] },
        { coding: [{ system: sys.consentBasis, code: c.kind }], text: t(CONSENT_KIND_KEYS[c.kind]) },
      ],
      patient: patientRef,
      dateTime: iso(c.createdAt),
      ...(performer ? { performer: [performer] } : {}),
      organization: [centreRef ?? orgRef],
      sourceAttachment: {
        ...(isLocale(c.locale) ? { language: c.locale } : {}),
        title: c.textVersion,
      },
      policyRule: {
        coding: [{ system: sys.consentBasis, code: c.kind }],
        text: [
          t(CONSENT_KIND_KEYS[c.kind]),
          t("control.consentMethodLine", { method: t(CONSENT_METHOD_KEYS[c.method]) }),
          text(c.witnessName) ? t("control.consentWitness", { name: text(c.witnessName) }) : "",
          text(c.recordedByName)
            ? t("control.consentRecordedBy", { name: text(c.recordedByName), date: iso(c.createdAt) })
            : "",
          text(c.relationship)
            ? t("control.consentRelationship", { relationship: text(c.relationship) })
            : "",
        ]
          .filter(Boolean)
          .join(". "),
      },
      provision: {
        type: c.granted ? "permit" : "deny",
        purpose: [
          {
            system: "http://terminology.hl7.org/CodeSystem/v3-ActReason",
            code: CONSENT_PURPOSE_OF_USE.review.code,
            display: CONSENT_PURPOSE_OF_USE.review.display,
          },
        ],
        ...(performer && c.kind === "guardian" && performer.reference
          ? {
              actor: [
                {
                  role: {
                    coding: [
                      {
                        system: "http://terminology.hl7.org/CodeSystem/v3-RoleCode",
                        code: "GUARD",
                        display: "guardian",
                      },
                    ],
                  },
                  reference: performer,
                },
              ],
            }
          : {}),
      },
    };
    add(consent);
  }

  // Who opened the files and letters, and who exported the data.
  for (const e of s.events) {
    const isExport = e.action === EXPORT_EVENT;
    const what = isExport
      ? patientRef
      : LETTER_EVENTS.has(e.action)
        ? opinionRefs.get(e.subjectId ?? "")
        : documentRefs.get(e.subjectId ?? "");
    if (!what) continue;
    // Through a sharing link: no account, so no actor; the agent is named by the patient's label.
    const viaLink = SHARE_EVENTS.has(e.action);
    const label = viaLink ? (s.shareLabels.get(linkIdOf(e)) ?? "") : "";
    const who: Person | undefined = e.actorId ? s.people.get(e.actorId) : undefined;
    const whoRef = viaLink
      ? undefined
      : e.actorId === p.id
        ? patientRef
        : who?.accountType === "Expert"
          ? practitionerRefs.get(who.id)
          : who
            ? { display: `${who.firstName} ${who.lastName}`.trim() || who.accountType }
            : undefined;
    const role = viaLink ? undefined : e.actorId === p.id ? "Patient" : who?.accountType;
    const event: AuditEvent = {
      resourceType: "AuditEvent",
      id: fhirId("AuditEvent", e.id),
      type: isExport
        ? { system: "http://dicom.nema.org/resources/ontology/DCM", code: "110106", display: "Export" }
        : {
            system: "http://terminology.hl7.org/CodeSystem/audit-event-type",
            code: "rest",
            display: "RESTful Operation",
          },
      ...(isExport
        ? {}
        : {
            subtype: [{ system: "http://hl7.org/fhir/restful-interaction", code: "read", display: "read" }],
          }),
      action: "R",
      recorded: iso(e.createdAt),
      outcome: "0",
      agent: [
        {
          ...(whoRef ? { who: whoRef } : {}),
          ...(viaLink
            ? { name: label ? t("fhir.viaShareLink", { label }) : t("fhir.viaShareLinkNoLabel") }
            : {}),
          ...(role ? { role: [{ text: role }] } : {}),
          requestor: true,
        },
      ],
      source: {
        observer: orgRef,
        type: [
          {
            system: "http://terminology.hl7.org/CodeSystem/security-source-type",
            code: "4",
            display: "Application Server",
          },
        ],
      },
      // The patient as an entity too, so the event is found by patient (AuditEvent's `patient` search).
      entity: isExport
        ? [{ what, role: PATIENT_ROLE }]
        : [{ what }, { what: patientRef, role: PATIENT_ROLE }],
    };
    add(event);
  }

  return {
    resourceType: "Bundle",
    id: randomUUID(),
    meta: { lastUpdated: iso(s.at) },
    identifier: { system: sys.export, value: randomUUID() },
    type: "collection",
    timestamp: iso(s.at),
    entry: entries,
  };
}

// ---------------------------------------------------------------------------------------------
// Exports

type ExportFormat = "bundle" | "zip";

/** Checks, limits and records one export; returns what it will contain. */
async function beginExport(
  actor: Actor,
  patientId: unknown,
  client: Client,
  format: ExportFormat,
): Promise<Snapshot> {
  const { patient, account, access } = await exportablePatient(actor, patientId);
  await limit("dataExport", actor.id, client);
  const ip = client.ip === "unknown" ? null : client.ip;
  // Recorded before the read, so the export lists itself among the exports of this patient's data.
  await audit(actor, EXPORT_EVENT, "user", patient.id, { format, by: actor.accountType }, ip);
  // A family manager's or a health worker's export is in the profile's access trail too.
  await traceAccess(actor, access, "patient.fhir_export", { format }, ip);
  return snapshot(patient, account);
}

/**
 * `GET /api/v1/fhir/Patient/{id}/$everything`: the patient's data as a FHIR R4 collection Bundle
 * whose attachments link to the authenticated file and letter routes (absolute URLs; fetching
 * them is audited like any other opening).
 */
export async function exportBundle(actor: Actor, patientId: unknown, client: Client): Promise<Bundle> {
  const s = await beginExport(actor, patientId, client, "bundle");
  const base = config().appUrl;
  return buildBundle(s, {
    file: (r) => ({ url: `${base}${reportFileUrl(r.id)}` }),
    letter: (r) => (r.expertId && r.letterCode ? { url: `${base}${opinionUrl(r.id)}` } : null),
  });
}

const EXT: Record<string, string> = {
  "application/pdf": "pdf",
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/webp": "webp",
  "image/gif": "gif",
};

/** YYYY-MM-DD of `d` in the app's time zone. */
function isoDay(d: Date): string {
  return new Intl.DateTimeFormat("en-CA", {
    timeZone: DEFAULT_TIME_ZONE,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).format(d);
}

/** A path inside the ZIP as a relative URL (each segment percent-encoded). */
const relativeUrl = (path: string) => path.split("/").map(encodeURIComponent).join("/");

/** Counts and hashes the bytes passing through (the Bundle, written last, carries both). */
function measured(onDone: (size: number, sha1: string) => void): Transform {
  const hash = createHash("sha1");
  let size = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
    flush(done) {
      onDone(size, hash.digest("base64"));
      done();
    },
  });
}

export const BUNDLE_FILE = "fhir-bundle.json";

/** What yazl's callback gets with an error (it reads no stream then). */
const NO_STREAM = undefined as unknown as NodeJS.ReadableStream;

/**
 * "Download my data": a ZIP, streamed, with a README, one folder per report (the original file
 * as uploaded, decrypted, and the signed opinion letter once reviewed) and, last, the FHIR Bundle
 * whose attachments point at those files (relative paths, with size and SHA-1). Files are read
 * one at a time; a file that cannot be read ends the download with an error (never a ZIP that
 * looks whole but is not).
 */
export async function exportZip(
  actor: Actor,
  patientId: unknown,
  client: Client,
): Promise<{ stream: Readable; fileName: string }> {
  const s = await beginExport(actor, patientId, client, "zip");
  const { t } = s;
  const day = isoDay(s.at);
  const own = actor.id === s.patient.accountId;
  const fileName = own
    ? `carebridge-my-data-${day}.zip`
    : `carebridge-patient-${s.patient.id.replace(/[^A-Za-z0-9]/g, "")}-${day}.zip`;

  // Files the store no longer has are left out (and logged) rather than failing the export.
  const present = new Set<string>();
  for (const r of s.reports) {
    if (await storedExists(r.fileKey)) present.add(r.id);
    else log("error", "export: stored file missing", { reportId: r.id });
  }

  const folders = new Map<string, string>();
  for (const r of s.reports) {
    const type = r.reportType.replace(/[^A-Za-z0-9]+/g, "-").replace(/^-|-$/g, "") || "report";
    folders.set(r.id, `reports/${isoDay(r.createdAt)}_${type}_${r.id.replace(/[^A-Za-z0-9]/g, "")}`);
  }
  const filePath = (r: ReportRow) =>
    `${folders.get(r.id)}/${sanitizeFileName(r.fileName, EXT[r.mimeType] ?? "bin")}`;
  const letterPath = (r: ReportRow) => {
    const name = letterFileName(r.letterCode ?? "letter");
    const path = `${folders.get(r.id)}/${name}`;
    return path === filePath(r) ? `${folders.get(r.id)}/letter-${name}` : path;
  };
  const fileInfo = new Map<string, AttachmentLink>();
  const letterInfo = new Map<string, AttachmentLink>();

  const zip = new ZipFile();
  const out = new PassThrough();
  let current: Readable | null = null;
  let failed = false;
  const fail = (err: unknown) => {
    if (failed) return;
    failed = true;
    log("error", "export zip failed", {
      patientId: s.patient.id,
      error: String((err as Error)?.message ?? err),
    });
    current?.destroy();
    out.destroy(err instanceof Error ? err : new Error(String(err)));
  };
  zip.on("error", fail);
  zip.outputStream.on("error", fail);
  zip.outputStream.pipe(out);
  // The reader went away (download cancelled): stop reading files.
  out.on("close", () => {
    if (!out.writableFinished) {
      failed = true;
      current?.destroy();
    }
  });

  const readme = [
    t("fhir.readmeTitle", { product: site.productName, date: day }),
    "",
    t("fhir.readmeIntro", { product: site.productName }),
    "",
    t("fhir.readmeReports"),
    "",
    t("fhir.readmeBundle", { file: BUNDLE_FILE }),
    "",
  ].join("\r\n");
  zip.addBuffer(Buffer.from(readme, "utf8"), "README.txt", { mtime: s.at });

  const entry = (
    source: () => Promise<Readable>,
    path: string,
    mtime: Date,
    info: Map<string, AttachmentLink>,
    id: string,
  ) =>
    zip.addReadStreamLazy(path, { mtime, compress: false }, (cb) => {
      if (failed) return cb(new Error("export cancelled"), NO_STREAM);
      source().then(
        (src) => {
          const counter = measured((size, sha1) => info.set(id, { url: relativeUrl(path), size, sha1 }));
          current = src;
          src.on("error", (err) => counter.destroy(err));
          counter.on("error", fail);
          cb(null, src.pipe(counter));
        },
        (err) => cb(err, NO_STREAM),
      );
    });

  for (const r of [...s.reports].reverse()) {
    if (present.has(r.id)) entry(() => openDecrypted(r.fileKey), filePath(r), r.createdAt, fileInfo, r.id);
    if (r.status === "Reviewed" && r.letterCode && r.expertId && s.people.has(r.expertId)) {
      const letterCode = r.letterCode;
      entry(
        async () => {
          const { pdf } = await renderOpinionLetter(letterSource(s, r), letterCode, s.locale);
          return Readable.from([pdf], { objectMode: false });
        },
        letterPath(r),
        r.reviewedAt ?? s.at,
        letterInfo,
        r.id,
      );
    }
  }

  // The voice notes on the reports (decision 0037), beside each report's file, as recorded.
  const voiceInfo = new Map<string, AttachmentLink>();
  const reportIds = s.reports.map((r) => r.id);
  const voices = reportIds.length
    ? await db()
        .select()
        .from(voiceNotes)
        .where(inArray(voiceNotes.reportId, reportIds))
        .orderBy(asc(voiceNotes.createdAt), asc(voiceNotes.id))
    : [];
  const reviewed = new Set(s.reports.filter((r) => r.status === "Reviewed").map((r) => r.id));
  for (const v of voices) {
    // The expert's spoken explanation is the patient's only beside the written opinion.
    if (v.kind === "explanation" && !reviewed.has(v.reportId)) continue;
    if (!(await storedExists(v.fileKey))) continue;
    const ext =
      { "audio/webm": "webm", "audio/ogg": "ogg", "audio/mp4": "m4a", "audio/mpeg": "mp3" }[v.mimeType] ??
      "wav";
    entry(
      () => openDecrypted(v.fileKey),
      `${folders.get(v.reportId)}/voice-${v.kind}-${isoDay(v.createdAt)}-${v.id.slice(0, 8)}.${ext}`,
      v.createdAt,
      voiceInfo,
      v.id,
    );
  }

  zip.addReadStreamLazy(BUNDLE_FILE, { mtime: s.at }, (cb) => {
    try {
      const bundle = buildBundle(s, {
        file: (r) => fileInfo.get(r.id) ?? null,
        letter: (r) => letterInfo.get(r.id) ?? null,
      });
      cb(null, Readable.from([Buffer.from(JSON.stringify(bundle, null, 2), "utf8")], { objectMode: false }));
    } catch (err) {
      cb(err, NO_STREAM);
    }
  });
  zip.end();
  return { stream: out, fileName };
}

/** What the letter of one reviewed report prints, from the snapshot. */
function letterSource(s: Snapshot, r: ReportRow) {
  const expert = r.expertId ? (s.people.get(r.expertId) ?? null) : null;
  const report = toApiReport(r, s.patient, expert);
  const details = expert ? s.expertDetails.get(expert.id) : undefined;
  // Name, registration and council as signed come with the report row (decision 0023).
  if (report.expert && details) report.expert.specialties = details.specialties;
  report.followUps = s.followUps.get(r.id) ?? [];
  return report;
}

/** `GET /api/v1/profile/download-my-data`: the signed-in patient's own ZIP (other accounts have no such data). */
export async function exportOwnZip(actor: Actor, client: Client) {
  if (actor.accountType !== "Patient") throw new DomainError("forbidden", "fhir.patientsOnly");
  return exportZip(actor, actor.id, client);
}
