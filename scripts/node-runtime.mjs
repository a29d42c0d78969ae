// The project's runtime is Node 24 LTS from the npm package `node` (decision 0054): `npm install`
// puts it in node_modules/.bin, where every `npm run`/`npm start`/`npm test`/`npx` finds it before the
// system's Node (which runs npm itself and may be 20). Run after every install (postinstall), this
// checks that the project's Node is there and that the one native module built for a Node ABI of its
// own choosing, better-sqlite3 (an N-API build shipped inside the package), loads under it — so a
// broken install stops at `npm install`, with a message, not at the first request.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const node = path.join(root, "node_modules", ".bin", "node");
if (!existsSync(node)) {
  console.error(
    "node-runtime: node_modules/.bin/node is missing: the package `node` did not install its runtime",
  );
  process.exit(1);
}
const probe = spawnSync(
  node,
  [
    "-e",
    "const D = require('better-sqlite3'); new D(':memory:').close(); process.stdout.write(process.version)",
  ],
  { cwd: root, encoding: "utf8" },
);
if (probe.status !== 0) {
  console.error(`node-runtime: better-sqlite3 does not load under the project's Node:\n${probe.stderr}`);
  process.exit(1);
}
console.log(`node-runtime: Node ${probe.stdout} runs the app; better-sqlite3 loads`);
