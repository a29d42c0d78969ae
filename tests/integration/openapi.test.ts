import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { userObject } from "~/schemas/objects";
import { routeEntries } from "../../routes.areas";
import { apiClient, signupViaApi } from "../helpers/api";
import { startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({ SMTP_URL: smtp.url, RATE_LIMIT_DISABLED: "1" });
});
afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

/** Every /api/v1 route the app serves, read from the route files: "METHOD /path". */
function servedRoutes(): string[] {
  const out: string[] = [];
  for (const entry of routeEntries()) {
    const m = /^api\.v1\.(.+)$/.exec(entry.name);
    if (!m || m[1] === "$") continue;
    const p =
      "/" +
      m[1]
        .replace(/\[\.\]/g, "§")
        // A literal "$name" segment (FHIR operations such as $everything) is escaped as "[$name]".
        .replace(/\[\$(\w+)\]/g, "¤$1")
        .split(".")
        // A parameter may be followed by a literal in its segment ("$frame[.]png" is "{frame}.png").
        .map((seg) => (seg.startsWith("$") ? seg.replace(/^\$(\w+)/, "{$1}") : seg))
        .join("/")
        .replace(/§/g, ".")
        .replace(/¤/g, "$$");
    const src = readFileSync(path.resolve("app", entry.file), "utf8");
    const methods = [
      ...src.matchAll(/^\s+(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS):/gm),
      ...src.matchAll(/apiRoute\(\{\s*(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS):/g),
    ].map((x) => x[1]);
    for (const method of new Set(methods)) out.push(`${method} ${p}`);
  }
  return out.sort();
}

/**
 * The paths of today that do not follow decision 0076: the spec's own (its action-style names stay,
 * decision 0076) and the few added before the rule. This list only shrinks: a new path follows the
 * rule instead of joining it.
 */
const BEFORE_THE_RULE = new Set([
  "/admin/get-callback-requests",
  "/admin/get-contact-messages",
  "/admin/get-sms-messages",
  "/expert/get-approved-expert",
  "/expert/get-pending-expert",
  "/fhir/Patient/{id}/$everything",
  "/openapi.json",
  "/profile/delete-profile",
  "/profile/download-my-data",
  "/profile/get-user-details",
  "/profile/update-display-picture",
  "/profile/update-expert-details",
  "/profile/update-notifications",
  "/profile/update-profile",
  "/report/add-review/{reportId}",
  "/report/claim/{reportId}",
  "/report/delete-report",
  "/report/follow-up-answer/{followUpId}",
  "/report/follow-up/{reportId}",
  "/report/get-all-reviewed-reports",
  "/report/get-follow-ups",
  "/report/get-pending-reports",
  "/report/get-report-by-expertId",
  "/report/get-report-by-patientId/{patientId}",
  "/report/release/{reportId}",
  "/report/second-opinion/{reportId}",
  "/report/upload-report",
  "/report/{reportId}/opinion.pdf",
  "/report/{reportId}/study/frames/{instance}/{frame}.png",
  // A file's name, as the opinion letter's (decision 0114 names it so).
  "/steps/{stepId}/referral.pdf",
  "/take-over/not-me/{token}",
]);

/** Why `path` (an OpenAPI path, "/centres/{centreId}/…") breaks decision 0076's rule, or nothing. */
function resourcePathFaults(path: string): string[] {
  const segs = path.split("/").slice(1);
  const faults: string[] = [];
  segs.forEach((s, i) => {
    if (s.startsWith("{")) {
      if (!/^\{[a-z][A-Za-z0-9]*Id\}$/.test(s)) faults.push(`${s} is not {<resource>Id}`);
      const before = segs[i - 1];
      if (!before || before.startsWith("{")) faults.push(`${s} does not follow the collection it picks from`);
      else if (!before.endsWith("s") && before !== "report")
        faults.push(`"${before}" before ${s} is not a collection named in the plural`);
    } else {
      if (!/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(s))
        faults.push(`"${s}" is not lower-case words joined by hyphens`);
      if (/^(get|list|fetch|add|create|update|set|delete|remove|upload|download)-/.test(s))
        faults.push(`"${s}" starts with a verb the method already says`);
    }
  });
  return faults;
}

describe("OpenAPI 3.1 document", () => {
  it("lists exactly the routes the app serves", async () => {
    const res = await fetch(`${server.url}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    const doc = await res.json();
    expect(doc.openapi).toBe("3.1.0");
    const documented = Object.entries<Record<string, unknown>>(doc.paths)
      .flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`))
      .sort();
    expect(servedRoutes().length).toBeGreaterThanOrEqual(25);
    expect(documented).toEqual(servedRoutes());
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.components.securitySchemes.bearerAuth.description).toContain("X-CareBridge-Outbox: 1");
    const signup = doc.paths["/auth/signup"].post;
    expect(signup.requestBody.content["application/json"].schema.required).toContain("otp");
    expect(doc.paths["/report/get-pending-reports"].get.parameters.map((p: any) => p.name)).toEqual(
      expect.arrayContaining(["page", "pageSize", "reportType"]),
    );
    expect(doc.paths["/report/upload-report"].post.requestBody.content["multipart/form-data"]).toBeTruthy();
  });

  it("every path added since decision 0076 is a resource path; the older ones stay as they are", async () => {
    const doc = await (await fetch(`${server.url}/api/v1/openapi.json`)).json();
    const paths = Object.keys(doc.paths).map((p) => p.replace(/^\/api\/v1/, ""));
    const faults = paths
      .filter((p) => !BEFORE_THE_RULE.has(p))
      .flatMap((p) => resourcePathFaults(p).map((f) => `${p}: ${f}`));
    expect(faults, "name the resource and let the method say the action (decision 0076)").toEqual([]);
    // The allow-list only shrinks: a path that is gone, or now follows the rule, leaves it.
    const stale = [...BEFORE_THE_RULE].filter(
      (p) => !paths.includes(p) || resourcePathFaults(p).length === 0,
    );
    expect(stale).toEqual([]);
    // The rule itself refuses the spec's style.
    expect(resourcePathFaults("/report/get-report-by-patientId/{patientId}")).not.toEqual([]);
    expect(resourcePathFaults("/centres/{centreId}/held-items/{heldItemId}/hand-over")).toEqual([]);
  });

  it("passes `redocly lint` with the recommended ruleset", async () => {
    const doc = await (await fetch(`${server.url}/api/v1/openapi.json`)).json();
    const ops = Object.values<Record<string, { operationId?: string; security?: unknown[] }>>(
      doc.paths,
    ).flatMap((byMethod) => Object.values(byMethod));
    const opIds = ops.map((op) => op.operationId);
    expect(opIds.every(Boolean)).toBe(true);
    expect(new Set(opIds).size).toBe(opIds.length);
    // Public operations say so; signed-in ones name the bearer scheme.
    expect(doc.paths["/auth/login"].post.security).toEqual([]);
    expect(doc.paths["/openapi.json"].get.security).toEqual([]);
    expect(doc.paths["/auth/logout"].post.security).toEqual([{ bearerAuth: [] }]);

    // In an empty folder, so no redocly.yaml is picked up: the built-in recommended rules.
    const dir = mkdtempSync(path.join(os.tmpdir(), "carebridge-openapi-"));
    try {
      writeFileSync(path.join(dir, "openapi.json"), JSON.stringify(doc, null, 2));
      const bin = path.resolve("node_modules/.bin/redocly");
      const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(
          bin,
          ["lint", "openapi.json", "--format=json"],
          {
            cwd: dir,
            timeout: 60_000,
            // No telemetry and no update check: the lint runs offline.
            env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
          },
          (err, stdout, stderr) => resolve({ code: err ? ((err.code as number) ?? 1) : 0, stdout, stderr }),
        );
      });
      expect(result.code, result.stdout + result.stderr).toBe(0);
      const report = JSON.parse(result.stdout) as {
        totals: { errors: number; warnings: number };
        problems: { ruleId: string; message: string }[];
      };
      expect(report.totals.errors).toBe(0);
      // The accepted warnings: these paths are fixed by the API contract (v1 never breaks) and by
      // the opinion letter (`/report/{id}/opinion.pdf`) the images' study (`/report/{id}/study`) and the lab values (`/report/{id}/observations`, decision 0084); the router tells them apart (the literal segment wins).
      expect(report.problems.map((p) => [p.ruleId, p.message]).sort()).toEqual([
        [
          "no-ambiguous-paths",
          "Paths should resolve unambiguously. Found two ambiguous paths: `/report/get-report-by-patientId/{patientId}` and `/report/{reportId}/file`.",
        ],
        [
          "no-ambiguous-paths",
          "Paths should resolve unambiguously. Found two ambiguous paths: `/report/get-report-by-patientId/{patientId}` and `/report/{reportId}/observations`.",
        ],
        [
          "no-ambiguous-paths",
          "Paths should resolve unambiguously. Found two ambiguous paths: `/report/get-report-by-patientId/{patientId}` and `/report/{reportId}/opinion.pdf`.",
        ],
        [
          "no-ambiguous-paths",
          "Paths should resolve unambiguously. Found two ambiguous paths: `/report/get-report-by-patientId/{patientId}` and `/report/{reportId}/study`.",
        ],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("describes what the API really returns", async () => {
    const api = apiClient(server.url);
    const { token } = await signupViaApi(api, smtp, codeFrom, { email: "doc@example.com" });
    const me = await api.get("/profile/get-user-details", token);
    expect(() => userObject.strict().parse(me.body.data)).not.toThrow();
  });

  it("says what the voice notes, the letter, follow-ups and $everything take and who may call them (decisions 0037 and 0058)", async () => {
    const doc = await (await fetch(`${server.url}/api/v1/openapi.json`)).json();
    const list = doc.paths["/voice-notes"].get;
    expect(list.parameters).toContainEqual(
      expect.objectContaining({ name: "reportId", in: "query", required: true }),
    );
    const unsatisfiable = doc.paths["/voice-notes/{voiceNoteId}/audio"].get.responses["416"];
    expect(unsatisfiable.description).toMatch(/Range Not Satisfiable/);
    expect(unsatisfiable.content).toBeUndefined();
    expect(unsatisfiable.headers["Content-Range"]).toBeTruthy();
    for (const [p, m] of [
      ["/report/{reportId}/opinion.pdf", "get"],
      ["/report/follow-up/{reportId}", "post"],
      ["/fhir/Patient/{id}/$everything", "get"],
    ])
      expect(doc.paths[p][m].description).toMatch(/family manager or centre health worker/);
  });

  it("serves a readable reference page from the app itself", async () => {
    const res = await fetch(`${server.url}/api-docs`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("/report/upload-report");
    expect(html).toContain("openapi.json");
    expect(html).not.toMatch(/<script[^>]+src="https?:\/\//);
    const home = await (await fetch(server.url)).text();
    expect(home).toContain('href="/api-docs"');
  });
});
