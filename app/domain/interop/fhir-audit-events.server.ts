import type { AuditEvent } from "@medplum/fhirtypes";
import { fhirId, iso, PATIENT_ROLE, type BundleContext, type Ref } from "./fhir-codes.server";
import type { Parties } from "./fhir-people.server";
import { EXPORT_EVENT, LETTER_EVENTS, linkIdOf, SHARE_EVENTS, type Person } from "./fhir-snapshot.server";

/**
 * FHIR mapping of the access trail (decision 0018): who opened the patient's files and letters —
 * signed in, or through one of their sharing links — and who exported their data, as AuditEvents.
 */

/** Adds an AuditEvent per file or letter opening and per export of the patient's data. */
export function addAuditEvents(
  ctx: BundleContext,
  parties: Parties,
  documentRefs: Map<string, Ref>,
  opinionRefs: Map<string, Ref>,
): void {
  const { s, t, add } = ctx;
  const { orgRef, patientRef, practitionerRefs } = parties;
  const p = s.patient;

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
}
