import type { LoaderFunctionArgs } from "@remix-run/node";
import { getLocale, getT } from "~/i18n/i18n.server";
import { site } from "~/site";

/** The app's colours (root.tsx's theme-color; the page background). */
const THEME = "#0b5f56";
const BACKGROUND = "#ffffff";

/**
 * GET /manifest.webmanifest — the installable web app's manifest (decision 0066), in the
 * language the pages use (`?lng=` first, then the `lng` cookie, as remix-i18next reads them). The
 * page links it with `?lng=` because browsers fetch a manifest without cookies. The same for
 * everyone asking in one language: no personal data.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const locale = await getLocale(request);
  const t = await getT(locale);
  const manifest = {
    id: "/dashboard/home",
    name: t("meta.appName", { product: site.productName }),
    short_name: site.productName,
    description: t("meta.description"),
    lang: locale,
    dir: "ltr",
    start_url: "/dashboard/home",
    scope: "/",
    display: "standalone",
    theme_color: THEME,
    background_color: BACKGROUND,
    icons: [
      { src: "/icons/icon-192.png", sizes: "192x192", type: "image/png", purpose: "any" },
      { src: "/icons/icon-512.png", sizes: "512x512", type: "image/png", purpose: "any" },
      { src: "/icons/icon-maskable-512.png", sizes: "512x512", type: "image/png", purpose: "maskable" },
    ],
  };
  return new Response(JSON.stringify(manifest), {
    headers: {
      "Content-Type": "application/manifest+json; charset=utf-8",
      "Cache-Control": "public, max-age=3600",
      Vary: "Cookie",
    },
  });
}
