import { build } from "esbuild";
import {
  execFile,
  spawn,
  type ChildProcess,
  type ExecFileOptions,
  type SpawnOptions,
} from "node:child_process";
import { mkdirSync, renameSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";

/**
 * The operator scripts (scripts/backup.ts, restore.ts, migrate-to-postgres.ts) as the tests run them
 * (decision 0085): bundled once per test file with esbuild, the same way scripts/build-server.mjs
 * bundles the server (packages external, `~/` the app folder), then run with plain Node. The source
 * is the same as `npm run backup` runs through tsx; what is saved is tsx's start-up and its module
 * loading, about 1.5–2 s per run on a busy 2-core machine, and the backup files run a dozen scripts.
 * The bundle sits under node_modules/.cache so the packages it imports resolve as from the project.
 * The tests' own second processes (tests/helpers/*-worker.ts) start the same way (`spawnScript`):
 * through tsx each cost about a second more of CPU on a machine the whole run keeps busy.
 */
const outDir = path.resolve("node_modules/.cache/cb-test-scripts");
const bundles = new Map<string, Promise<string>>();

/** The path of `script` (e.g. "scripts/backup.ts") bundled into one .mjs file, built on first use. */
export function bundledScript(script: string): Promise<string> {
  let bundle = bundles.get(script);
  if (!bundle) {
    bundle = bundleOnce(script);
    bundles.set(script, bundle);
  }
  return bundle;
}

async function bundleOnce(script: string): Promise<string> {
  mkdirSync(outDir, { recursive: true });
  // Named after its whole path: scripts/ and tests/ may hold files of the same name.
  const name = path.relative(".", script).replace(/\.ts$/, "").replace(/[\\/]/g, "__");
  const outfile = path.join(outDir, `${name}.mjs`);
  // Written under a name of this process's own, then renamed: files running side by side may bundle
  // the same script at once.
  const partial = path.join(outDir, `${name}.${process.pid}.partial.mjs`);
  await build({
    entryPoints: [script],
    outfile: partial,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    tsconfig: "tsconfig.json",
    plugins: [
      {
        name: "app-alias",
        setup(b) {
          b.onResolve({ filter: /^~\// }, (args) =>
            b.resolve("./" + args.path.slice(2), { resolveDir: path.resolve("app"), kind: args.kind }),
          );
        },
      },
    ],
    sourcemap: false,
    logLevel: "warning",
  });
  renameSync(partial, outfile);
  return outfile;
}

/** Starts `script` (a TypeScript file of the project) bundled, with plain Node: as `tsx script` would. */
export async function spawnScript(
  script: string,
  args: string[],
  options: SpawnOptions,
): Promise<ChildProcess> {
  return spawn(process.execPath, [await bundledScript(script), ...args], options);
}

/**
 * Runs `script` bundled to its end and gives what it printed. One that exits non-zero throws an error
 * naming the script, with its output in the message and its exit `code`, `stdout` and `stderr` on it.
 */
export async function runScript(
  script: string,
  args: string[],
  options: ExecFileOptions = {},
): Promise<{ stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [await bundledScript(script), ...args],
      { encoding: "utf8", ...options },
    );
    return { stdout: String(stdout), stderr: String(stderr) };
  } catch (err) {
    const e = err as { code?: number | string; stdout?: string; stderr?: string; message: string };
    const out = { code: e.code, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
    throw Object.assign(new Error(`${script} failed: ${e.message}\n${out.stdout}\n${out.stderr}`), out);
  }
}
