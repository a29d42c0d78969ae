/** A translation catalogue's keys, dotted ("reports.urgent"), in the order the catalogue lists them. */
export function catalogueKeys(obj: object, prefix = ""): string[] {
  return Object.entries(obj).flatMap(([k, v]) =>
    typeof v === "string" ? [prefix + k] : catalogueKeys(v as object, `${prefix}${k}.`),
  );
}

/** The string at a dotted key of a catalogue (undefined when there is none). */
export function catalogueValue(catalogue: object, key: string): unknown {
  return key.split(".").reduce((o: any, p) => o?.[p], catalogue);
}
