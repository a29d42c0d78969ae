import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import {
  data,
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useMatches,
  useRouteLoaderData,
} from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { ErrorPage } from "~/components/ErrorBoundary";
import { Footer } from "~/components/Footer";
import { Header } from "~/components/Header";
import { Toaster } from "~/components/Toaster";
import { actorFromCookie } from "~/web/session-cookie.server";
import { avatarUrl } from "~/domain/accounts/index.server";
import { FALLBACK_LOCALE } from "~/i18n/config";
import { getLocale, getT } from "~/i18n/i18n.server";
import { useLocaleSync } from "~/i18n/useLocaleSync";
import { site } from "~/site";
import stylesheet from "~/tailwind.css?url";
import { useNonce } from "~/web/nonce";
import { getToast } from "~/web/toast.server";

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: stylesheet },
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
  { rel: "apple-touch-icon", href: "/icons/icon-192.png" },
];

export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await actorFromCookie(request);
  const locale = await getLocale(request);
  const t = await getT(locale);
  const { toast, headers } = await getToast(request);
  return data(
    {
      locale,
      title: t("meta.title", { product: site.productName }),
      description: t("meta.description"),
      user: actor
        ? {
            id: actor.id,
            firstName: actor.firstName,
            lastName: actor.lastName,
            accountType: actor.accountType,
            image: avatarUrl(actor.image),
          }
        : null,
      toast: toast ? { ...toast, id: `${Date.now()}-${Math.random()}` } : null,
    },
    { headers },
  );
}

export type RootData = Awaited<ReturnType<typeof loader>>["data"];

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data?.title ?? site.productName },
  { name: "description", content: data?.description ?? "" },
];

export function useRootData() {
  return useRouteLoaderData<typeof loader>("root");
}

export function Layout({ children }: { children: React.ReactNode }) {
  const root = useRootData();
  const nonce = useNonce();
  // The offline screen is kept by the service worker for nobody in particular: no sign-in links.
  const offlineShell = useMatches().some(
    (m) => (m.handle as { offlineShell?: boolean } | undefined)?.offlineShell,
  );
  const locale = root?.locale ?? FALLBACK_LOCALE;
  useLocaleSync(locale);
  return (
    <html lang={locale} dir="ltr">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="theme-color" content="#0b5f56" />
        {/* In the page's language: browsers fetch a manifest without cookies (decision 0066). */}
        <link rel="manifest" href={`/manifest.webmanifest?lng=${locale}`} />
        <Meta />
        <Links />
      </head>
      <body className="flex min-h-screen flex-col">
        <SkipLink />
        <Toaster initial={root?.toast ?? null}>
          <Header user={root?.user ?? null} accountLinks={!offlineShell} />
          {children}
          <Footer />
        </Toaster>
        <ScrollRestoration nonce={nonce} />
        {/* The page's modules are fetched after its first paint (decision 0045). */}
        <Scripts nonce={nonce} deferModules />
      </body>
    </html>
  );
}

function SkipLink() {
  const { t } = useTranslation();
  return (
    <a
      href="#main"
      className="sr-only z-50 rounded bg-white px-3 py-2 focus:not-sr-only focus:absolute focus:top-2 focus:left-2"
    >
      {t("common.skipToContent")}
    </a>
  );
}

export default function App() {
  return <Outlet />;
}

/** A failure outside the dashboard (or of the dashboard's own loader): the error as the page. */
export function ErrorBoundary() {
  return <ErrorPage />;
}
