import { Form, useActionData, useNavigation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { useDateText } from "~/components/reports/LocalDate";
import type { ShareLanding } from "~/domain/sharing/index.server";
import { site } from "~/site";
import type { action } from "./route";

/**
 * The landing page: nothing of the patient, the link's end date and the Open form (with the
 * passcode when the link has one), posted to the route's action, which counts the open.
 */
export function Landing({ landing }: { landing: ShareLanding }) {
  const { t } = useTranslation();
  const dates = useDateText();
  const answer = useActionData<typeof action>();
  const navigation = useNavigation();
  const busy = navigation.state !== "idle" && navigation.formMethod?.toUpperCase() === "POST";
  const error = answer && "error" in answer ? answer.error : null;
  return (
    <section aria-labelledby="share-landing-title">
      <h1 id="share-landing-title" className="text-2xl font-bold text-slate-900 sm:text-3xl">
        {t("share.landingTitle")}
      </h1>
      <p className="mt-3 max-w-prose text-slate-700">
        {t("share.landingIntro", { product: site.productName })}
      </p>
      <p className="mt-2 text-slate-700">
        {t("share.landingUntil", { date: dates.dateTime(landing.expiresAt) })}
      </p>
      <Form method="post" className="card mt-6 space-y-4" data-testid="share-open-form">
        {landing.passcode && (
          <div>
            <p id="share-passcode-hint" className="mb-3 text-slate-700">
              {t("share.landingPasscode")}
            </p>
            <label htmlFor="share-passcode" className="field-label">
              {t("share.passcodeField")}
            </label>
            <input
              id="share-passcode"
              name="passcode"
              type="text"
              required
              maxLength={200}
              autoComplete="off"
              autoCapitalize="none"
              autoCorrect="off"
              spellCheck={false}
              aria-describedby={error ? "share-passcode-hint share-open-error" : "share-passcode-hint"}
              aria-invalid={error ? true : undefined}
              className="field-input font-mono tracking-wider sm:max-w-xs"
            />
          </div>
        )}
        {error && (
          <p
            id="share-open-error"
            role="alert"
            data-testid="share-open-error"
            className="rounded-lg border border-red-300 bg-red-50 px-3 py-2 font-semibold text-red-800"
          >
            {error.message}
          </p>
        )}
        <button type="submit" className="btn-primary w-full sm:w-auto" disabled={busy}>
          {busy ? t("share.opening") : t("share.open")}
        </button>
      </Form>
    </section>
  );
}
