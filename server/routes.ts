import { matchRoutes, type AgnosticRouteObject } from "@remix-run/router";
import type { ServerBuild } from "@remix-run/node";

/**
 * A route pattern for the log line when the app has not named one (resource routes, refused
 * requests): `/update-password/:token`, never the token. Matching runs only for those.
 */
export function routePatterns(build: ServerBuild): (pathname: string) => string {
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
  return (pathname) => {
    const clean = pathname.replace(/\.data$/, "") || "/";
    const matches = matchRoutes(roots, clean);
    if (!matches) return "(unmatched)";
    const parts = matches.map((m) => m.route.path).filter((p): p is string => !!p);
    const pattern = "/" + parts.join("/").replace(/\/+/g, "/").replace(/^\//, "");
    return pattern.replace(/\*$/, "*");
  };
}
