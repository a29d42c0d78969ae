import { createHash } from "node:crypto";
import type { Patient, Reference, Resource } from "@medplum/fhirtypes";
import type { TFunction } from "i18next";
import type { ConsentPurpose, ReportRow } from "~/db/schema";
import type { Snapshot } from "./fhir-snapshot.server";

/**
 * What the FHIR mapping shares (decision 0018): stable resource ids, the systems of our
 * identifiers and codes, the coded values (gender, family relationship, consent scope and purpose),
 * FHIR strings, and the context every resource builder is handed while one Bundle is assembled.
 */

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
export function systemsFor(base: string) {
  const sid = (name: string) => `${base}/fhir/sid/${name}`;
  const cs = (name: string) => `${base}/fhir/CodeSystem/${name}`;
  return {
    user: sid("user"),
    report: sid("report"),
    opinion: sid("opinion"),
    letterCode: sid("letter-code"),
    followUp: sid("follow-up"),
    followUpAnswer: sid("follow-up-answer"),
    step: sid("next-step"),
    referralCode: sid("referral-code"),
    specialty: cs("specialty"),
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

export type Systems = ReturnType<typeof systemsFor>;

// ---------------------------------------------------------------------------------------------
// What a resource builder is handed

/** Where an attachment's bytes are: a URL (absolute in the API, a path inside the ZIP), and when known their size and SHA-1. */
export type AttachmentLink = { url: string; size?: number; sha1?: string };

export type Links = {
  file: (r: ReportRow) => AttachmentLink | null;
  /** Null: no letter to point to (e.g. the reviewing expert's account was deleted). */
  letter: (r: ReportRow) => AttachmentLink | null;
};

/** A reference to an entry of this Bundle (any target type: the element's type decides). */
export type Ref = Reference<any>;

/** One Bundle being assembled: what it is made from, and where each resource goes. */
export type BundleContext = {
  s: Snapshot;
  t: TFunction;
  /** This deployment's address (config().appUrl). */
  base: string;
  sys: Systems;
  links: Links;
  /** Adds a resource as the Bundle's next entry; returns a reference to it. */
  add: (resource: Resource) => Ref;
  /** A reference to an entry added (or to be added) under this type and id. */
  refTo: (resourceType: Resource["resourceType"], id: string, display?: string) => Ref;
};

// ---------------------------------------------------------------------------------------------
// Coded values and FHIR strings

export const GENDER: Record<string, Patient["gender"]> = {
  Male: "male",
  Female: "female",
  "Non-Binary": "other",
  Other: "other",
  "Prefer not to say": "unknown",
};

/** A profile's sex as registered (decision 0030). */
export const PROFILE_GENDER: Record<string, Patient["gender"]> = {
  female: "female",
  male: "male",
  other: "other",
};

/**
 * What a family manager is to the patient, as an HL7 v3 RoleCode. The relationship is recorded
 * the other way round — the member as the manager described them ("daughter": the manager is her
 * parent) — so it is turned over, and made a father or mother, a son or daughter where the
 * manager's own profile gives their gender. Anything else is a family member.
 */
export function relatedRole(
  relationship: string,
  managerGender: string | null,
): { code: string; display: string } {
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

export const CONSENT_SCOPE: Record<ConsentPurpose, { code: string; display: string }> = {
  review: { code: "treatment", display: "Treatment" },
  contact: { code: "patient-privacy", display: "Privacy Consent" },
  statistics: { code: "research", display: "Research" },
};

/** The purpose of use each consent permits (HL7 v3 ActReason). */
export const CONSENT_PURPOSE_OF_USE: Record<ConsentPurpose, { code: string; display: string }> = {
  review: { code: "TREAT", display: "treatment" },
  contact: { code: "PATADMIN", display: "patient administration" },
  statistics: { code: "HRESCH", display: "healthcare research" },
};

/** An audited entity that is the patient (HL7 object-role). */
export const PATIENT_ROLE = {
  system: "http://terminology.hl7.org/CodeSystem/object-role",
  code: "1",
  display: "Patient",
};

/**
 * Free text as a FHIR string: never empty (undefined for nothing to say) and without the control
 * characters FHIR strings may not hold (all below U+0020 but tab, CR and LF).
 */
export function text(value: string | null | undefined): string | undefined {
  // eslint-disable-next-line no-control-regex
  const s = (value ?? "").replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "").trim();
  return s ? s : undefined;
}

export const iso = (d: Date) => d.toISOString();

export function humanName(first: string, last: string) {
  const family = text(last);
  const given = text(first);
  return {
    ...(family ? { family } : {}),
    ...(given ? { given: [given] } : {}),
    ...(text(`${first} ${last}`) ? { text: `${first} ${last}`.trim() } : {}),
  };
}

/** A number as typed with its country code: "+91" + "9876543210"; numbers already in E.164 stay. */
export function phoneValue(countryCode: string | null | undefined, number: string | null | undefined) {
  const n = (number ?? "").replace(/[\s\-().]/g, "");
  if (!n) return undefined;
  return n.startsWith("+") ? n : `${countryCode ?? ""}${n}`;
}
