import type { LoaderFunctionArgs } from "@remix-run/node";
import { isLocale, SUPPORTED_LOCALES } from "~/i18n/config";
import { loadCatalogue } from "~/i18n/i18n.server";
import { routeKeys, stringsOf } from "~/i18n/strings.server";

const MAX_ITEMS = 40;
const NAME = /^[A-Za-z0-9_.$()[\]/-]{1,120}$/;

function list(value: string | null): string[] | null {
  if (!value) return [];
  const items = value.split(",");
  return items.length <= MAX_ITEMS && items.every((i) => NAME.test(i)) ? items : null;
}

/**
 * GET /i18n.json?lng=hi&routes=routes/login,…&keys=accounts — the strings a client navigation needs
 * for the routes it is about to render (`routes`), or keys and sections the page found missing
 * (`keys`). Public: the catalogue is no secret. The build's version is in the URL the browser asks
 * for (`v`), so a day's caching never serves strings of another release.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const lng = url.searchParams.get("lng");
  const routes = list(url.searchParams.get("routes"));
  const keys = list(url.searchParams.get("keys"));
  if (!isLocale(lng) || !routes || !keys) {
    return Response.json(
      {
        success: false,
        message: `lng must be one of ${SUPPORTED_LOCALES.join(", ")}; routes and keys are short lists`,
      },
      { status: 400 },
    );
  }
  const wanted = routes.length ? [...routeKeys(routes), ...keys] : keys;
  await loadCatalogue(lng);
  return Response.json(stringsOf(lng, wanted), {
    headers: { "Cache-Control": "public, max-age=86400" },
  });
}
