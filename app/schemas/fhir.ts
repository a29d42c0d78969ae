import { z } from "zod";

/**
 * The FHIR answers for the OpenAPI document: the outline of the R4 collection Bundle that
 * `GET /fhir/Patient/{id}/$everything` returns (each entry's resource is one of the listed
 * types; their full structure is FHIR R4's, https://hl7.org/fhir/R4/). Decision 0018.
 */
export const FHIR_RESOURCE_TYPES = [
  "Organization",
  "Patient",
  "Practitioner",
  "DocumentReference",
  "DiagnosticReport",
  "Communication",
  "Consent",
  "AuditEvent",
] as const;

export const fhirBundleObject = z
  .object({
    resourceType: z.literal("Bundle"),
    id: z.string(),
    meta: z.object({ lastUpdated: z.string().datetime() }),
    identifier: z.object({ system: z.string().url(), value: z.string() }),
    type: z.literal("collection"),
    timestamp: z.string().datetime(),
    entry: z.array(
      z.object({
        fullUrl: z.string().describe("urn:uuid:<the resource's id>"),
        resource: z
          .object({ resourceType: z.enum(FHIR_RESOURCE_TYPES), id: z.string().uuid() })
          .passthrough()
          .describe("A FHIR R4 resource"),
      }),
    ),
  })
  .describe("A FHIR R4 Bundle of type collection");
