import { randomUUID } from "node:crypto";
import type { Bundle, BundleEntry, Resource } from "@medplum/fhirtypes";
import { config } from "~/config.server";
import { addAuditEvents } from "./fhir-audit-events.server";
import { iso, systemsFor, type BundleContext, type Links, type Ref } from "./fhir-codes.server";
import { addConsents } from "./fhir-consents.server";
import { addParties } from "./fhir-people.server";
import { addFollowUps, addReports } from "./fhir-reports.server";
import { addCarePlans } from "./fhir-steps.server";
import type { Snapshot } from "./fhir-snapshot.server";

/**
 * The Bundle of an export (decision 0018): one FHIR R4 `collection` whose entries are, in this
 * order, the parties (service, centres, patient, family, experts), the reports and opinions, the
 * follow-ups, the consents and the access trail. `links` says where the attachments' bytes are.
 */
export function buildBundle(s: Snapshot, links: Links): Bundle {
  const base = config().appUrl;
  const sys = systemsFor(base);
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
  const ctx: BundleContext = { s, t: s.t, base, sys, links, add, refTo };

  const parties = addParties(ctx);
  const { documentRefs, opinionRefs } = addReports(ctx, parties);
  addFollowUps(ctx, parties, opinionRefs);
  addCarePlans(ctx, parties, opinionRefs);
  addConsents(ctx, parties, documentRefs);
  addAuditEvents(ctx, parties, documentRefs, opinionRefs);

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
