import type {
  ContactPoint,
  Identifier,
  Organization,
  Patient,
  Practitioner,
  RelatedPerson,
} from "@medplum/fhirtypes";
import { CENTRE_KIND_KEYS } from "~/schemas/control";
import { site } from "~/site";
import {
  fhirId,
  GENDER,
  humanName,
  iso,
  phoneValue,
  PROFILE_GENDER,
  relatedRole,
  text,
  type BundleContext,
  type Ref,
} from "./fhir-codes.server";

/**
 * FHIR mapping of the parties an export names (decision 0018): the service (Organization), the
 * centres, the patient, the family members who act for them (RelatedPerson) and the experts
 * (Practitioner). The other resources refer to these.
 */

export type Parties = {
  /** The service itself: custodian of the documents, observer of the audit trail. */
  orgRef: Ref;
  centreRefs: Map<string, Ref>;
  patientRef: Ref;
  /** By the family manager's user id. */
  relatedRefs: Map<string, Ref>;
  /** By the expert's user id. */
  practitionerRefs: Map<string, Ref>;
  expertRef: (id: string | null | undefined) => Ref | undefined;
};

/** Adds the parties' resources to the Bundle (in this order) and returns references to them. */
export function addParties(ctx: BundleContext): Parties {
  const { s, t, base, sys, add } = ctx;

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

  return { orgRef, centreRefs, patientRef, relatedRefs, practitionerRefs, expertRef };
}
