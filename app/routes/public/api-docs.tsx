import type { MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { ENDPOINTS, openApiDocument } from "~/openapi.server";
import { site } from "~/site";

type Field = { name: string; type: string; required: boolean; note: string };

function fieldsOf(schema: any): Field[] {
  if (!schema?.properties) return [];
  const req = new Set<string>(schema.required ?? []);
  return Object.entries<any>(schema.properties).map(([name, s]) => ({
    name,
    type: s.enum ? s.enum.map((v: string) => JSON.stringify(v)).join(" | ") : (s.type ?? "any"),
    required: req.has(name),
    note: [
      s.minLength !== undefined && s.minLength > 1 ? `min ${s.minLength}` : "",
      s.maxLength !== undefined ? `max ${s.maxLength}` : "",
      s.pattern ? `pattern ${s.pattern}` : "",
      s.format ?? "",
      s.description ?? "",
    ]
      .filter(Boolean)
      .join(", "),
  }));
}

/** A human-readable API reference rendered by the app itself from the OpenAPI document (no CDN). */
export function loader() {
  const doc = openApiDocument() as any;
  return {
    endpoints: ENDPOINTS.map((e) => {
      const op = doc.paths[e.path][e.method];
      const content = op.requestBody?.content ?? {};
      const bodyType = Object.keys(content)[0] ?? null;
      return {
        method: e.method.toUpperCase(),
        path: e.path,
        who: e.who,
        summary: e.summary,
        auth: e.auth,
        bodyType,
        body: bodyType ? fieldsOf(content[bodyType].schema) : [],
        query: (op.parameters ?? []).filter((p: any) => p.in === "query").map((p: any) => p.name as string),
        statuses: Object.keys(op.responses),
      };
    }),
  };
}

export const meta: MetaFunction = () => [{ title: `${site.productName} API reference` }];

export default function ApiDocs() {
  const { endpoints } = useLoaderData<typeof loader>();
  return (
    <main id="main" lang="en" className="mx-auto w-full max-w-5xl flex-1 px-4 py-10">
      <h1 className="text-3xl font-bold">{site.productName} API reference (v1)</h1>
      <p className="mt-2 text-slate-700">
        Base path <code>/api/v1</code>. JSON in and out (uploads are <code>multipart/form-data</code>).
        Authenticate with <code>Authorization: Bearer &lt;token&gt;</code> from <code>POST /auth/login</code>.
        Every response has <code>success</code> and <code>message</code>; validation failures add{" "}
        <code>errors</code>. Lists take <code>?page=1&amp;pageSize=20</code> (1–100) and return{" "}
        <code>pagination</code>. Machine-readable:{" "}
        <a className="link" href="/api/v1/openapi.json">
          openapi.json
        </a>{" "}
        (OpenAPI 3.1).
      </p>
      <ul className="mt-8 space-y-4">
        {endpoints.map((e) => (
          <li key={`${e.method} ${e.path}`} className="card">
            <h2 className="flex flex-wrap items-baseline gap-2 font-mono text-base">
              <span className="rounded bg-brand-700 px-2 py-0.5 text-sm font-bold text-white">
                {e.method}
              </span>
              <span className="break-all">{e.path}</span>
            </h2>
            <p className="mt-1">{e.summary}</p>
            <p className="text-sm text-slate-600">
              Who: {e.who}
              {e.auth ? " · bearer token" : ""} · responses: {e.statuses.join(", ")}
              {e.query.length ? ` · query: ${e.query.join(", ")}` : ""}
            </p>
            {e.body.length > 0 && (
              <div
                className="mt-2 overflow-x-auto"
                tabIndex={0}
                role="region"
                aria-label={`${e.method} ${e.path} body`}
              >
                <table className="w-full text-left text-sm">
                  <caption className="text-left text-slate-600">Body ({e.bodyType})</caption>
                  <thead>
                    <tr>
                      <th className="pr-4">Field</th>
                      <th className="pr-4">Type</th>
                      <th className="pr-4">Required</th>
                      <th>Rules</th>
                    </tr>
                  </thead>
                  <tbody>
                    {e.body.map((f) => (
                      <tr key={f.name} className="border-t border-slate-100">
                        <td className="pr-4 font-mono">{f.name}</td>
                        <td className="pr-4">{f.type}</td>
                        <td className="pr-4">{f.required ? "yes" : "no"}</td>
                        <td className="break-all">{f.note}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </li>
        ))}
      </ul>
    </main>
  );
}
