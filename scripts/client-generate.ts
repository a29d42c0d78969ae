/** Writes the TypeScript client's generated files (see scripts/client-schema.ts). */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { CLIENT_DIR, clientFiles } from "./client-schema";

for (const [file, text] of Object.entries(await clientFiles())) {
  const target = path.join(CLIENT_DIR, file);
  mkdirSync(path.dirname(target), { recursive: true });
  writeFileSync(target, text);
  console.log(`wrote ${path.relative(process.cwd(), target)}`);
}
