import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const found = new Map<string, string>();

/**
 * A program or worker module that ships beside the server build (decision 0117): `<build>/<built>`,
 * whether the caller runs from `<build>/server/index.js` or `<build>/main.js`, else its TypeScript
 * `source` beside the caller (tests, the bench), which Node 24 runs as it is.
 */
export function besideTheBuild(callerUrl: string, built: string, source: string): string {
  const key = `${callerUrl}\n${built}`;
  const known = found.get(key);
  if (known) return known;
  const here = dirname(fileURLToPath(callerUrl));
  const file = [join(here, "..", built), join(here, built), join(here, source)].find((f) => existsSync(f));
  if (!file) throw new Error(`${built} is missing from the build`);
  found.set(key, file);
  return file;
}
