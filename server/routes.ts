import { matchRoutes, type AgnosticRouteObject } from "@remix-run/router";
import type { ServerBuild } from "@remix-run/node";

/**
 * The route label of a request (the log line, the metrics, the trace span) from the route table,
 * never from the URL (a token in a path is a secret: decision 0033): `/update-password/:token`, never the token; a path no route
 * matches is one fixed label. The app names the pattern it matched (`named`, built from the
 * matched route's params); it is taken when it is one of the table's patterns, which saves the
 * matching (~35 µs) on nearly every request, and otherwise the path is matched against the table.
 */
export function routePatterns(build: ServerBuild): (pathname: string, named?: string) => string {
  type Node = AgnosticRouteObject & { children?: Node[]; id: string };
  const nodes = new Map<string, Node>();
  for (const r of Object.values(build.routes)) {
    nodes.set(r.id, { id: r.id, path: r.path, index: r.index, children: r.index ? undefined : [] } as Node);
  }
  const roots: Node[] = [];
  for (const r of Object.values(build.routes)) {
    const node = nodes.get(r.id)!;
    const parent = r.parentId ? nodes.get(r.parentId) : undefined;
    if (parent) (parent.children ??= []).push(node);
    else roots.push(node);
  }
  const known = new Set<string>();
  for (const r of Object.values(build.routes)) {
    const parts: string[] = [];
    for (let at: typeof r | undefined = r; at; at = at.parentId ? build.routes[at.parentId] : undefined)
      if (at.path) parts.unshift(at.path);
    known.add(pattern(parts));
  }
  return (pathname, named) => {
    if (named !== undefined && known.has(named)) return named;
    const clean = pathname.replace(/\.data$/, "") || "/";
    const matches = matchRoutes(roots, clean);
    if (!matches) return "(unmatched)";
    return pattern(matches.map((m) => m.route.path).filter((p): p is string => !!p));
  };
}

function pattern(parts: string[]): string {
  return "/" + parts.join("/").replace(/\/+/g, "/").replace(/^\//, "");
}
