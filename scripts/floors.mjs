// The floors of the code (decision 0078), lowest first: an import only runs down a floor or stays in
// its room. Read by scripts/import-cycles.mjs (which refuses an import up a floor) and by
// tests/unit/architecture-doc.test.ts (which checks docs/architecture.md names the same floors).
// A room is a folder of app/ (or a module's name before its first dot), or `server`.
export const FLOORS = [
  ["site", "i18n", "types", "budgets"],
  ["config", "config-phone-line"],
  ["lib"],
  ["db"],
  ["storage"],
  ["schemas"],
  ["domain"],
  ["web"],
  ["openapi"],
  ["offline"],
  ["components", "sw"],
  ["routes", "root", "entry"],
  ["server"],
];
