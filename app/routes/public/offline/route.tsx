import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { OfflineApp } from "~/components/offline/OfflineApp";
import type { OfflineLoaded } from "~/components/offline/loaded";
import { screenMeta } from "~/components/reports/meta";
import { useHydrated } from "~/components/reports/useHydrated";
import { config } from "~/config.server";
import { SUPPORTED_LOCALES } from "~/i18n/config";
import { getT, tFor } from "~/i18n/i18n.server";
import { useTranslation } from "~/i18n/useTranslation";
import { CONSENT_TEXT_VERSION } from "~/schemas/registration";
import { consentTextDate } from "~/lib/consent-text";

/**
 * The outbox screen (decision 0063): what this phone keeps to send, how much room is left, and the
 * forms that work without a connection. Its page holds nothing of any person — the service worker
 * keeps it without cookies — only the consent text in every language and the limits; all the
 * person's own data comes from the browser's sealed database once the page runs.
 */
export async function loader({ request }: LoaderFunctionArgs): Promise<OfflineLoaded> {
  const { t, locale } = await tFor(request);
  const consent = Object.fromEntries(
    await Promise.all(
      SUPPORTED_LOCALES.map(async (l) => {
        const inLang = await getT(l);
        return [
          l,
          {
            text: inLang("registration.consentText").split("\n\n"),
            question: inLang("registration.consentQuestion"),
          },
        ] as const;
      }),
    ),
  );
  return {
    title: t("offline.title"),
    locale,
    consent,
    textVersion: CONSENT_TEXT_VERSION,
    textDate: consentTextDate(CONSENT_TEXT_VERSION, locale),
    voiceMaxSeconds: config().voiceMaxSeconds,
    maxUploadMb: Math.floor(config().maxUploadBytes / (1024 * 1024)),
  };
}

export const meta: MetaFunction<typeof loader> = screenMeta;

/** The page is kept for offline use and drawn for nobody: the header offers no sign-in (root.tsx). */
export const handle = { offlineShell: true };

export default function OfflineScreen() {
  const { t } = useTranslation();
  const loaded = useLoaderData<typeof loader>();
  const hydrated = useHydrated();
  return (
    <main id="main" className="mx-auto w-full max-w-3xl flex-1 px-4 py-6">
      <h1 className="text-2xl font-bold text-slate-900">{t("offline.title")}</h1>
      {hydrated ? <OfflineApp loaded={loaded} /> : <p className="mt-4">{t("offline.needsScript")}</p>}
    </main>
  );
}
