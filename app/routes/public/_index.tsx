import type { ActionFunctionArgs } from "@remix-run/node";
import { Form, Link, useActionData, useLocation, useNavigation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { TextAreaField, TextField } from "~/components/ui/Field";
import { FormError } from "~/components/ui/FormError";
import { useServerForm } from "~/components/ui/useServerForm";
import { saveCallbackRequest } from "~/domain/messaging/index.server";
import { actorFromCookie } from "~/web/session-cookie.server";
import { tFor } from "~/i18n/i18n.server";
import { callbackSchema } from "~/schemas/public";
import { site } from "~/site";
import { parseForm } from "~/web/forms.server";
import { redirectWithSuccess } from "~/web/toast.server";
import { guardForm } from "~/web/guard.server";
import { clientOf } from "~/web/request.server";
import { formFailure } from "~/web/screen.server";

export async function action({ request, context }: ActionFunctionArgs) {
  await guardForm(request);
  const submission = await parseForm(request, callbackSchema);
  if (submission.status !== "success") {
    return Response.json(submission.reply(), { status: 400 });
  }
  const { t } = await tFor(request);
  try {
    await saveCallbackRequest(await actorFromCookie(request), submission.value, clientOf(context));
  } catch (err) {
    return formFailure(err, t, (o) => submission.reply(o));
  }
  return redirectWithSuccess("/#callback", t("contact.thanks"));
}

const CALLBACK_CODES = ["+91", "+1", "+44", "+61", "+81"];

export default function Home() {
  const { t } = useTranslation();
  // A successful post redirects back here; the new location remounts (clears) the callback form.
  const location = useLocation();

  return (
    <main id="main" className="flex-1">
      <section className="bg-gradient-to-b from-brand-50 to-white">
        <div className="mx-auto grid max-w-6xl items-center gap-8 px-4 py-12 md:grid-cols-2 md:py-20">
          <div>
            <h1 className="text-3xl leading-tight font-bold text-slate-900 md:text-5xl">
              {t("home.heroTitle")}
            </h1>
            <p className="mt-4 text-lg text-slate-700">{t("home.heroText")}</p>
            <div className="mt-8 flex flex-wrap gap-3">
              <Link to="/dashboard/upload-report" className="btn-primary">
                {t("home.submitReport")}
              </Link>
              <Link to="/signup" className="btn-secondary">
                {t("home.joinAsExpert")}
              </Link>
            </div>
          </div>
          <HeroArt />
        </div>
      </section>

      <section className="mx-auto max-w-6xl px-4 py-12" aria-labelledby="query-title">
        <div className="card md:flex md:items-center md:gap-8">
          <div className="flex-1">
            <h2 id="query-title" className="text-2xl font-bold">
              {t("home.queryTitle")}
            </h2>
            <p className="mt-2 text-slate-700">{t("home.queryText")}</p>
          </div>
          <ul className="mt-4 space-y-1 font-semibold md:mt-0">
            <li>{t("home.queryHelpline", { helpline: site.helpline })}</li>
            <li>{t("home.queryEmail", { email: site.supportEmail })}</li>
            <li>
              <Link to="/contact-us" className="link">
                {t("nav.contact")}
              </Link>
            </li>
          </ul>
        </div>
      </section>

      <section id="callback" className="bg-white py-12" aria-labelledby="callback-title">
        <div className="mx-auto grid max-w-6xl gap-8 px-4 md:grid-cols-2">
          <div>
            <h2 id="callback-title" className="text-2xl font-bold">
              {t("home.callbackTitle")}
            </h2>
            <p className="mt-2 text-slate-700">{t("home.callbackText")}</p>
          </div>
          <CallbackForm key={location.key} />
        </div>
      </section>

      <section className="mx-auto max-w-6xl px-4 py-12" aria-labelledby="what-title">
        <h2 id="what-title" className="text-2xl font-bold">
          {t("home.whatIsTitle", { product: site.productName })}
        </h2>
        <p className="mt-3 max-w-3xl text-lg text-slate-700">
          {t("home.whatIsText", { product: site.productName })}
        </p>
      </section>

      <section className="bg-white py-12" aria-labelledby="benefits-title">
        <div className="mx-auto max-w-6xl px-4">
          <h2 id="benefits-title" className="text-2xl font-bold">
            {t("home.benefitsTitle")}
          </h2>
          <div className="mt-6 grid gap-6 md:grid-cols-2">
            <BenefitList
              title={t("home.benefitsPatients")}
              items={[
                [t("home.benefitEasyUploads"), t("home.benefitEasyUploadsText")],
                [t("home.benefitQualifiedExperts"), t("home.benefitQualifiedExpertsText")],
                [t("home.benefitQuickFeedback"), t("home.benefitQuickFeedbackText")],
              ]}
            />
            <BenefitList
              title={t("home.benefitsExperts")}
              items={[
                [t("home.benefitByCategory"), t("home.benefitByCategoryText")],
                [t("home.benefitConsultation"), t("home.benefitConsultationText")],
                [t("home.benefitRemote"), t("home.benefitRemoteText")],
              ]}
            />
          </div>
        </div>
      </section>
    </main>
  );
}

function CallbackForm() {
  const { t } = useTranslation();
  const lastResult = useActionData<typeof action>();
  const navigation = useNavigation();
  // Checked by the server only (a public page loads no validation code).
  const [form, fields] = useServerForm(lastResult, ["name", "countryCode", "phoneNumber", "message"]);
  const busy = navigation.state === "submitting" && navigation.formAction === "/?index";
  return (
    <Form method="post" {...form.props} className="card space-y-4">
      <FormError id={form.errorId} errors={form.errors} />
      <TextField meta={fields.name} label={t("home.callbackName")} required autoComplete="name" />
      <div className="grid grid-cols-[7rem_1fr] gap-3">
        <div>
          <label htmlFor={fields.countryCode.id} className="field-label">
            {t("home.callbackCountryCode")}
          </label>
          <select
            id={fields.countryCode.id}
            name={fields.countryCode.name}
            defaultValue={(fields.countryCode.initialValue as string) ?? "+91"}
            className="field-input"
          >
            {CALLBACK_CODES.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </div>
        <TextField
          meta={fields.phoneNumber}
          label={t("home.callbackPhone")}
          type="text"
          inputMode="numeric"
          autoComplete="tel-national"
          required
        />
      </div>
      <TextAreaField meta={fields.message} label={t("home.callbackMessage")} maxLength={1000} />
      <button type="submit" className="btn-primary w-full" disabled={busy}>
        {busy ? t("contact.sending") : t("home.callbackSubmit")}
      </button>
    </Form>
  );
}

function BenefitList({ title, items }: { title: string; items: [string, string][] }) {
  return (
    <div className="card">
      <h3 className="text-xl font-bold text-brand-800">{title}</h3>
      <ul className="mt-4 space-y-4">
        {items.map(([name, text]) => (
          <li key={name} className="flex gap-3">
            <svg
              viewBox="0 0 24 24"
              className="mt-1 h-5 w-5 shrink-0 text-green-700"
              aria-hidden="true"
              fill="none"
              stroke="currentColor"
              strokeWidth="3"
            >
              <path d="M5 13l4 4L19 7" />
            </svg>
            <div>
              <p className="font-semibold">{name}</p>
              <p className="text-slate-700">{text}</p>
            </div>
          </li>
        ))}
      </ul>
    </div>
  );
}

function HeroArt() {
  return (
    <svg viewBox="0 0 320 220" className="mx-auto w-full max-w-sm" aria-hidden="true">
      <rect x="40" y="20" width="150" height="190" rx="12" fill="#fff" stroke="#0b5f56" strokeWidth="4" />
      <rect x="62" y="50" width="106" height="10" rx="5" fill="#99f6e4" />
      <rect x="62" y="74" width="90" height="8" rx="4" fill="#cbd5e1" />
      <rect x="62" y="94" width="100" height="8" rx="4" fill="#cbd5e1" />
      <rect x="62" y="114" width="70" height="8" rx="4" fill="#cbd5e1" />
      <path
        d="M62 160h20l10-22 14 40 10-18h32"
        fill="none"
        stroke="#0d7468"
        strokeWidth="4"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
      <circle cx="238" cy="92" r="52" fill="#ccfbf1" />
      <circle cx="238" cy="78" r="18" fill="#0b5f56" />
      <path d="M206 128c6-18 20-26 32-26s26 8 32 26" fill="#0b5f56" />
      <path
        d="M214 160l18 18 36-40"
        fill="none"
        stroke="#15803d"
        strokeWidth="8"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
    </svg>
  );
}
