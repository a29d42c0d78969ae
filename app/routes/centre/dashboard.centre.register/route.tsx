import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { screenMeta } from "~/components/reports/meta";
import { NotAllowed } from "~/components/reports/NotAllowed";
import { isLocale } from "~/i18n/config";
import { consentTextDate } from "~/lib/consent-text";
import { getT, tFor } from "~/i18n/i18n.server";
import { CONSENT_TEXT_VERSION } from "~/schemas/registration";
import { requireActor } from "~/web/auth.server";
import { centreOrRefusal } from "~/web/centre-screen.server";
import { registerAction } from "./register.server";
import { RegisterForm } from "~/components/care/RegisterForm";

/**
 * Registering a patient at the centre (decision 0030). Consent comes first: the worker picks the
 * patient's language (plain links, so it works without JavaScript), reads the text aloud — shown
 * large, in that language — and records the answer and how it was given; only then the patient's
 * details. A refusal saves nothing and the screen says what to do.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireActor(request);
  const { t, locale } = await tFor(request);
  const title = t("registration.registerTitle");
  const gate = await centreOrRefusal(actor, t, title);
  if (gate.refusal) return gate.refusal;
  const asked = new URL(request.url).searchParams.get("lang");
  const lang = isLocale(asked) ? asked : locale;
  const inLang = await getT(lang);
  return {
    title,
    notAllowed: null,
    centre: gate.centre,
    lang,
    consentText: inLang("registration.consentText").split("\n\n"),
    consentQuestion: inLang("registration.consentQuestion"),
    textVersion: CONSENT_TEXT_VERSION,
    textDate: consentTextDate(CONSENT_TEXT_VERSION, locale),
  };
}

export const meta: MetaFunction<typeof loader> = screenMeta;

export async function action(args: ActionFunctionArgs) {
  return registerAction(args);
}

export default function RegisterPatient() {
  const { t } = useTranslation();
  const loaded = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  if (loaded.notAllowed !== null)
    return <NotAllowed title={t("registration.registerTitle")} message={loaded.notAllowed} />;
  return (
    <RegisterForm
      centreName={loaded.centre.name}
      lang={loaded.lang}
      consentText={loaded.consentText}
      consentQuestion={loaded.consentQuestion}
      textVersion={loaded.textVersion}
      textDate={loaded.textDate}
      lastResult={lastResult}
    />
  );
}
