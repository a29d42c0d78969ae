import { readdirSync } from "node:fs";
import path from "node:path";
import type { RouteManifest } from "@remix-run/dev/dist/config/routes.js";
import { flatRoutesUniversal } from "@remix-run/dev/dist/config/flat-routes.js";

/**
 * Routes by area (decision 0116). `app/routes/` holds area folders (`api/`, `public/`, `patient/`,
 * `expert/`, `admin/`, `centre/`, `service/` …, which may nest: `api/reports/`); inside them each
 * route keeps the name Remix's flat-routes convention gives it (`api.v1.auth.login.ts`,
 * `dashboard.settings/route.tsx`), so its URL and its route id (`routes/dashboard.settings`,
 * what `useRouteLoaderData` and the browser's string lists name) are those of the flat name alone,
 * whatever folder it sits in. Remix's own flat-routes function works them out, on the list of flat
 * names: the areas are only where the files live.
 *
 * A folder holding a `route.*` or `index.*` module is a folder route (decision 0028); any other
 * folder is an area, looked into.
 */

const ROUTE_EXTS = [".tsx", ".ts", ".jsx", ".js"];
/** app/, from the project's folder (where vite, the scripts and the tests run, as vite.config.ts's). */
const APP = path.resolve("app");
/** The files Remix never takes for routes (as `ignoredRouteFiles` did: dot-files and tests). */
const ignored = (name: string) => name.startsWith(".") || /\.test\.[jt]sx?$/.test(name);

export type RouteEntry = {
  /** The flat name (`api.v1.auth.login`), which makes the URL and the id `routes/<name>`. */
  name: string;
  /** The route module, relative to app/ (`routes/api/auth/api.v1.auth.login.ts`). */
  file: string;
  /** The area folders it sits in, relative to app/routes (`api/auth`). */
  area: string;
  /** A folder route (`<name>/route.tsx`), not a file. */
  folder: boolean;
};

const posix = (p: string) => p.split(path.sep).join("/");

function folderModule(dir: string): string | null {
  const names = new Set(readdirSync(dir));
  for (const base of ["route", "index"])
    for (const ext of ROUTE_EXTS) if (names.has(base + ext)) return base + ext;
  return null;
}

/** Every route module under app/routes, by its flat name, with where it lives. */
export function routeEntries(app = APP): RouteEntry[] {
  const root = path.join(app, "routes");
  const out: RouteEntry[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (ignored(entry.name)) continue;
      const full = path.join(dir, entry.name);
      const area = posix(path.relative(root, dir));
      if (entry.isDirectory()) {
        const module = folderModule(full);
        if (module)
          out.push({
            name: entry.name,
            file: posix(path.relative(app, path.join(full, module))),
            area,
            folder: true,
          });
        else walk(full);
      } else if (ROUTE_EXTS.includes(path.extname(entry.name))) {
        out.push({
          name: entry.name.slice(0, -path.extname(entry.name).length),
          file: posix(path.relative(app, full)),
          area,
          folder: false,
        });
      }
    }
  };
  walk(root);
  const seen = new Map<string, string>();
  for (const e of out) {
    const other = seen.get(e.name);
    if (other) throw new Error(`Two route modules have the name "${e.name}": ${other} and ${e.file}`);
    seen.set(e.name, e.file);
  }
  // In the order a flat folder lists them (the file's name with its extension).
  const key = (e: RouteEntry) => (e.folder ? e.name : path.basename(e.file));
  return out.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** The route manifest Remix builds from (remix.config.ts's `routes`): flat names, files in areas. */
export function routeManifest(app = APP): RouteManifest {
  const entries = routeEntries(app);
  // Where each route would sit in a flat folder, and where it really is.
  const real = new Map<string, string>();
  const flat = entries.map((e) => {
    const virtual = e.folder
      ? `routes/${e.name}/${path.basename(e.file)}`
      : `routes/${path.basename(e.file)}`;
    real.set(virtual, e.file);
    return path.join(app, virtual);
  });
  const manifest = flatRoutesUniversal(app, flat, "routes");
  for (const route of Object.values(manifest)) route.file = real.get(route.file) ?? route.file;
  return manifest;
}
