import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FLOORS } from "../../scripts/floors.mjs";

/**
 * The map matches the house: docs/architecture.md is checked against the code it describes — the
 * domain's contexts and the layers they form (read from the imports between them), the floors of
 * the code (scripts/floors.mjs, which scripts/import-cycles.mjs enforces) and what `npm run lint`
 * runs. A newcomer reads the document first; when the code moves, this test says which sentence
 * went stale.
 */
const root = path.resolve(__dirname, "../..");
const doc = readFileSync(path.join(root, "docs/architecture.md"), "utf8").replace(/\s+/g, " ");
const contexts = readdirSync(path.join(root, "app/domain")).filter((n) =>
  statSync(path.join(root, "app/domain", n)).isDirectory(),
);

/** The contexts each context imports (`../<other>/…` from inside app/domain/<context>/). */
function importsOf(context: string): Set<string> {
  const out = new Set<string>();
  const walk = (dir: string) => {
    for (const n of readdirSync(dir)) {
      const p = path.join(dir, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.tsx?$/.test(n))
        for (const m of readFileSync(p, "utf8").matchAll(/from "(?:\.\.\/)+([a-z]+)\/[^"]*"/g))
          if (m[1] !== context && contexts.includes(m[1])) out.add(m[1]);
    }
  };
  walk(path.join(root, "app/domain", context));
  return out;
}

/** Text with every parenthesised part removed (nested too). */
function outsideParentheses(text: string): string {
  let depth = 0;
  let out = "";
  for (const ch of text) {
    if (ch === "(") depth++;
    else if (ch === ")") depth = Math.max(0, depth - 1);
    else if (depth === 0) out += ch;
  }
  return out;
}

describe("docs/architecture.md matches the code", () => {
  it("names every context of app/domain, and each has its section", () => {
    const listed = /The domain is grouped by context \(([^)]*)\)/.exec(doc)?.[1];
    expect(listed, "the sentence naming the contexts").toBeDefined();
    expect(
      listed!
        .split(",")
        .map((s) => s.trim())
        .sort(),
    ).toEqual([...contexts].sort());
    for (const c of contexts) expect(doc, `a "### ${c} —" section`).toMatch(new RegExp(`### ${c} — `));
  });

  it("states the layers the contexts' imports really form", () => {
    const stated = /The contexts form layers, each depending only on those before it: ([^.]*) on top\./.exec(
      doc,
    )?.[1];
    expect(stated, "the sentence naming the layers").toBeDefined();
    const layers = stated!.split(";").map((l) =>
      l
        .split(/,| and /)
        .map((s) => s.trim())
        .filter(Boolean),
    );
    const layerOf = new Map(layers.flatMap((names, i) => names.map((n) => [n, i] as const)));
    expect([...layerOf.keys()].sort()).toEqual([...contexts].sort());
    const upward: string[] = [];
    for (const c of contexts)
      for (const used of importsOf(c))
        if (layerOf.get(used)! >= layerOf.get(c)!) upward.push(`${c} imports ${used}`);
    expect(upward, "imports that do not run down the stated layers").toEqual([]);
  });

  it("lists the floors of the code in the order scripts/floors.mjs enforces", () => {
    const paragraph = /an import only runs down or stays in its room: (.*?)`server\/`\./.exec(doc)?.[1];
    expect(paragraph, "the floors paragraph").toBeDefined();
    const room = (name: string) =>
      name
        .replace(/^app\//, "")
        .replace(/\/$/, "")
        .replace(/\.server$/, "");
    const floors = [
      ...outsideParentheses(paragraph!)
        .split("→")
        .map((floor) => [...floor.matchAll(/`([^`]+)`/g)].map((m) => room(m[1])).sort())
        .filter((rooms) => rooms.length),
      ["server"],
    ];
    expect(floors).toEqual(FLOORS.map((rooms) => [...rooms].sort()));
  });

  it("says what npm run lint runs", () => {
    const scripts: Record<string, string> = JSON.parse(
      readFileSync(path.join(root, "package.json"), "utf8"),
    ).scripts;
    const said = /`npm run lint` \(([^)]*)\)/.exec(doc)?.[1];
    expect(said, "the sentence saying what lint runs").toBeDefined();
    // Each step, with `npm run <part>` replaced by the part's own steps.
    const stepsOf = (script: string): string[] =>
      script
        .split("&&")
        .map((s) => s.trim())
        .flatMap((s) => (/^npm run (\S+)$/.test(s) ? stepsOf(scripts[s.slice("npm run ".length)]) : [s]));
    const steps = stepsOf(scripts.lint);
    for (const step of steps) {
      const script = /^node scripts\/(\S+)/.exec(step)?.[1];
      const tool = script ?? { eslint: "ESLint", prettier: "Prettier" }[step.split(" ")[0]];
      expect(tool, `a known lint step: ${step}`).toBeDefined();
      expect(said, `the document names ${tool}`).toContain(tool!);
    }
  });

  it("names no file or folder that is not there", () => {
    // Every file name in the places the document speaks of (a bare name such as `login.server.ts`
    // is found in any of them; a path from the project's root must exist as written).
    const names = new Set<string>();
    const walk = (dir: string) => {
      for (const n of readdirSync(dir)) {
        const p = path.join(dir, n);
        names.add(n);
        if (statSync(p).isDirectory()) walk(p);
      }
    };
    for (const top of ["app", "server", "scripts", "tests", "docs", ".ci", "drizzle", "clients"])
      if (existsSync(path.join(root, top))) walk(path.join(root, top));
    for (const n of readdirSync(root)) names.add(n);
    const missing: string[] = [];
    for (const [, token] of doc.matchAll(/`([^`\s]+)`/g)) {
      // Patterns and placeholders (`voice.*`, `<build>/…`, `{id}`) name no one file.
      if (/[*…<>{}]/.test(token)) continue;
      if (/^(app|server|scripts|tests|docs|\.ci|drizzle|clients)\//.test(token)) {
        if (!existsSync(path.join(root, token))) missing.push(token);
      } else if (/^[\w.\-[\]$]+\.(ts|tsx|mjs|js|md|json)$/.test(token) && !token.startsWith(".")) {
        if (!names.has(token)) missing.push(token);
      }
    }
    expect(missing).toEqual([]);
  });

  it("lists every decision record in the index, and names every number never given", () => {
    const dir = path.join(root, "docs/decisions");
    const index = readFileSync(path.join(dir, "README.md"), "utf8");
    const numbers = readdirSync(dir)
      .map((n) => /^(\d{4})-.+\.md$/.exec(n))
      .filter((m): m is RegExpExecArray => !!m)
      .map((m) => ({ n: Number(m[1]), file: m[0] }));
    for (const { file } of numbers) expect(index, `the index links ${file}`).toContain(`](${file})`);
    const given = new Set(numbers.map((x) => x.n));
    const skipped =
      /Numbers never given: ([^(]*(?:\([^)]*\)[^(]*)*?)\./.exec(index.replace(/\s+/g, " "))?.[1] ?? "";
    const named = new Set([...skipped.matchAll(/\b(\d{4})\b/g)].map((m) => Number(m[1])));
    const max = Math.max(...given);
    const gaps = Array.from({ length: max }, (_, i) => i + 1).filter((n) => !given.has(n) && !named.has(n));
    expect(gaps, "numbers neither given nor named as never given").toEqual([]);
  });
});
