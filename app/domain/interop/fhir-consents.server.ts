import type { Consent } from "@medplum/fhirtypes";
import type { ConsentPurpose } from "~/db/schema";
import { isLocale } from "~/i18n/config";
import { CONSENT_KIND_KEYS, CONSENT_METHOD_KEYS } from "~/schemas/control";
import {
  CONSENT_PURPOSE_OF_USE,
  CONSENT_SCOPE,
  fhirId,
  iso,
  text,
  type BundleContext,
  type Ref,
} from "./fhir-codes.server";
import type { Parties } from "./fhir-people.server";

/**
 * FHIR mapping of consents (decision 0018): the upload form's consent for each report, the
 * consents the patient recorded (newest per purpose active), and those given for the patient by
 * someone else (a facilitated consent at a centre, a guardian's).
 */

/** Adds a Consent for each report's upload, each recorded consent, and each given for the profile. */
export function addConsents(ctx: BundleContext, parties: Parties, documentRefs: Map<string, Ref>): void {
  const { s, t, sys, add } = ctx;
  const { orgRef, patientRef, centreRefs, relatedRefs } = parties;

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
      // When it was given: read aloud offline and recorded later (decision 0064), or when recorded.
      dateTime: iso(c.shownAt ?? c.createdAt),
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
}
