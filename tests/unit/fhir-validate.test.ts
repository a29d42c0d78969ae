import { describe, expect, it } from "vitest";
import { checkBundle } from "../helpers/fhir-validate";

/** The FHIR check the export tests rely on must itself catch mistakes, or its "zero errors" proves nothing. */
describe("the FHIR R4 check (tests/helpers/fhir-validate.ts)", () => {
  const u = (n: number) => `0b5c4c3a-1111-4111-8111-${String(n).padStart(12, "0")}`;
  const entry = (n: number, resource: Record<string, unknown>) => ({
    fullUrl: `urn:uuid:${u(n)}`,
    resource: { id: u(n), ...resource },
  });

  it("passes a correct Bundle and flags structure, bindings, codings and references", () => {
    const good = checkBundle({
      resourceType: "Bundle",
      type: "collection",
      entry: [
        entry(1, { resourceType: "Patient", gender: "female" }),
        entry(2, {
          resourceType: "Consent",
          status: "active",
          scope: {
            coding: [
              {
                system: "http://terminology.hl7.org/CodeSystem/consentscope",
                code: "research",
                display: "Research",
              },
            ],
          },
          category: [{ text: "consent" }],
          policyRule: { text: "v1" },
          patient: { reference: `urn:uuid:${u(1)}` },
        }),
      ],
    } as never);
    expect(good.errors).toEqual([]);

    const bad = checkBundle({
      resourceType: "Bundle",
      type: "collection",
      entry: [
        entry(1, { resourceType: "Patient", gender: "bogus", birthDate: "2020-13-45", nickname: "x" }),
        entry(2, {
          resourceType: "Consent",
          status: "nope",
          scope: {
            coding: [
              {
                system: "http://terminology.hl7.org/CodeSystem/consentscope",
                code: "treatment",
                display: "Wrong",
              },
            ],
          },
          category: [{ text: "consent" }],
          patient: { reference: `urn:uuid:${u(3)}` },
          provision: {
            type: "permit",
            data: [{ meaning: "nah", reference: { reference: "urn:uuid:missing" } }],
          },
        }),
        entry(3, { resourceType: "Organization" }),
        { fullUrl: "urn:uuid:somewhere-else", resource: { resourceType: "Organization", id: u(3) } },
      ],
    } as never);
    const messages = bad.errors.flatMap((e) => e.problems.map((p) => `${p.path}: ${p.message}`)).join("\n");
    for (const expected of [
      /Patient\.gender: "bogus" is not in/,
      /birthDate.*Invalid date/,
      /nickname/,
      /Consent\.status: "nope" is not in/,
      /display "Wrong" is not "Treatment"/,
      /Consent\.patient: Organization is not allowed here \(Patient\)/,
      /meaning: "nah" is not in/,
      /urn:uuid:missing does not resolve/,
      /ppc-1/,
      /fullUrl: urn:uuid:somewhere-else is not/,
      /duplicate id/,
    ])
      expect(messages).toMatch(expected);
  });
});
