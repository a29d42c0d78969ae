import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { NameFields } from "~/components/AccountFields";
import { AuthCard } from "~/components/AuthCard";
import { ExpertDetailsFields } from "~/components/ExpertDetailsFields";
import { MobileNumberField } from "~/components/MobileNumberField";
import { smsCountryCodeOptions } from "~/lib/country-codes.server";
import { TextField } from "~/components/ui/Field";
import { useServerForm } from "~/components/ui/useServerForm";
import { FormError } from "~/components/ui/FormError";
import { PasswordField } from "~/components/ui/PasswordField";
import { SelectField } from "~/components/ui/Select";
import { startSignup } from "~/domain/accounts/index.server";
import { centreDirectory } from "~/domain/care/index.server";
import { HEALTH_WORKER_ROLES } from "~/db/types";
import { SIGNUP_COUNTRY_CODES, WORKER_ID_MAX, WORKER_ROLE_KEYS } from "~/schemas/limits";
import { tFor } from "~/i18n/i18n.server";
import { signupFormSchema } from "~/schemas/auth";
import { site } from "~/site";
import { redirectIfSignedIn } from "~/web/auth.server";
import { parseForm } from "~/web/forms.server";
import { guardForm } from "~/web/guard.server";
import { pendingSignupCookie } from "~/web/pending-signup.server";
import { formFailure } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";
import { clientOf } from "~/web/request.server";

export async function loader({ request }: LoaderFunctionArgs) {
  await redirectIfSignedIn(request);
  const { locale } = await tFor(request);
  // Health workers choose the centre they work at.
  return { countryCodes: smsCountryCodeOptions(locale), centres: await centreDirectory() };
}

export async function action({ request, context }: ActionFunctionArgs) {
  await guardForm(request);
  await redirectIfSignedIn(request);
  const submission = await parseForm(request, signupFormSchema);
  if (submission.status !== "success") {
    return Response.json(submission.reply({ hideFields: ["password", "confirmPassword"] }), { status: 400 });
  }
  const { t, locale } = await tFor(request);
  try {
    const { pendingId } = await startSignup(submission.value, clientOf(context), locale);
    return redirectWithSuccess("/verify-email", t("accounts.otpSent"), {
      headers: { "Set-Cookie": await pendingSignupCookie().serialize(pendingId) },
    });
  } catch (err) {
    return formFailure(err, t, (o) =>
      submission.reply({ ...o, hideFields: ["password", "confirmPassword"] }),
    );
  }
}

export default function Signup() {
  const { t } = useTranslation();
  const { countryCodes, centres } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const navigation = useNavigation();
  // Checked by the server only: a public page loads no validation code (decision 0036); the
  // server's answer puts each message by its field, with or without JavaScript.
  const [form, fields] = useServerForm(
    lastResult,
    [
      "accountType",
      "firstName",
      "lastName",
      "signupWith",
      "email",
      "countryCode",
      "contactNumber",
      "mobileCountryCode",
      "mobileNumber",
      "specialties",
      "registrationNumber",
      "registrationCouncil",
      "yearsOfPractice",
      "centreId",
      "workerRole",
      "workerId",
      "password",
      "confirmPassword",
    ],
    {
      defaultValue: {
        accountType: "Patient",
        countryCode: "+91",
        signupWith: "email",
        mobileCountryCode: "+91",
      },
    },
  );
  // The choices are uncontrolled radios: a choice made before the page has hydrated (a slow phone)
  // stays chosen, and CSS shows the fields that follow from it.
  const accountType = (fields.accountType.initialValue as string) || "Patient";
  const signupWith = (fields.signupWith.initialValue as string) || "email";
  const busy = navigation.state === "submitting";

  return (
    <AuthCard
      wide
      title={t("accounts.joinTitle", { product: site.productName })}
      intro={
        <>
          <p>{t("accounts.joinText")}</p>
          <ul className="mt-2 flex flex-wrap gap-x-4 gap-y-1 text-sm font-semibold text-brand-800">
            <li>✓ {t("accounts.joinPoint1")}</li>
            <li>✓ {t("accounts.joinPoint2")}</li>
            <li>✓ {t("accounts.joinPoint3")}</li>
          </ul>
        </>
      }
    >
      <Form method="post" {...form.props} noValidate className="group/signup space-y-4">
        <FormError id={form.errorId} errors={form.errors} />
        <fieldset>
          <legend className="field-label">{t("accounts.accountType")}</legend>
          <div className="grid grid-cols-3 gap-1 rounded-lg bg-slate-100 p-1" role="radiogroup">
            {(["Patient", "Expert", "HealthWorker"] as const).map((type) => (
              <label
                key={type}
                className="flex min-h-11 cursor-pointer items-center justify-center rounded-md px-1 text-center leading-tight font-semibold text-slate-700 has-[:checked]:bg-white has-[:checked]:text-brand-800 has-[:checked]:shadow has-[:focus-visible]:outline-3 has-[:focus-visible]:outline-brand-600"
              >
                <input
                  type="radio"
                  name={fields.accountType.name}
                  value={type}
                  defaultChecked={accountType === type}
                  className={`sr-only ${type === "Expert" ? "expert-choice" : type === "HealthWorker" ? "hw-choice" : ""}`}
                />
                {type === "Patient"
                  ? t("accounts.patient")
                  : type === "Expert"
                    ? t("accounts.expert")
                    : t("centres.accountHealthWorker")}
              </label>
            ))}
          </div>
        </fieldset>
        <div className="grid gap-4 sm:grid-cols-2">
          <NameFields firstName={fields.firstName} lastName={fields.lastName} lastNameRequired />
        </div>
        {/* Patients may sign up with a mobile number instead of an e-mail; experts use e-mail.
            Shown or hidden by CSS from the radio buttons, so it works without JavaScript. */}
        <fieldset className="group-has-[.expert-choice:checked]/signup:hidden">
          <legend className="field-label">{t("accounts.signupWith")}</legend>
          <div className="grid grid-cols-2 gap-1 rounded-lg bg-slate-100 p-1">
            {(["email", "phone"] as const).map((way) => (
              <label
                key={way}
                className="flex min-h-11 cursor-pointer items-center justify-center rounded-md px-2 text-center font-semibold text-slate-700 has-[:checked]:bg-white has-[:checked]:text-brand-800 has-[:checked]:shadow has-[:focus-visible]:outline-3 has-[:focus-visible]:outline-brand-600"
              >
                <input
                  type="radio"
                  name={fields.signupWith.name}
                  value={way}
                  defaultChecked={signupWith === way}
                  className={`sr-only ${way === "phone" ? "phone-choice" : ""}`}
                />
                {way === "email" ? t("accounts.withEmail") : t("accounts.withMobile")}
              </label>
            ))}
          </div>
        </fieldset>
        <div className="space-y-4 group-has-[.phone-choice:checked]/signup:group-has-[.expert-choice:not(:checked)]/signup:hidden">
          <TextField
            meta={fields.email}
            label={t("accounts.email")}
            type="email"
            required
            autoComplete="email"
            maxLength={254}
          />
          <div className="grid grid-cols-[7.5rem_1fr] gap-3">
            <SelectField
              meta={fields.countryCode}
              label={t("accounts.countryCode")}
              defaultValue="+91"
              options={SIGNUP_COUNTRY_CODES.map((c) => ({ value: c, label: c }))}
            />
            <TextField
              meta={fields.contactNumber}
              label={t("accounts.contactNumber")}
              type="text"
              inputMode="numeric"
              required
              autoComplete="tel-national"
              maxLength={10}
            />
          </div>
        </div>
        <div
          className="hidden group-has-[.phone-choice:checked]/signup:group-has-[.expert-choice:not(:checked)]/signup:block"
          data-testid="mobile-signup"
        >
          <MobileNumberField
            code={fields.mobileCountryCode}
            number={fields.mobileNumber}
            options={countryCodes}
          />
          <p className="mt-1 text-sm text-slate-600">{t("accounts.mobileSignupHint")}</p>
        </div>
        {/* Experts say who they are. Shown by CSS while "Expert" is chosen, so it works without JavaScript. */}
        <fieldset
          className="hidden rounded-lg border border-slate-200 p-3 group-has-[.expert-choice:checked]/signup:block"
          data-testid="expert-details"
        >
          <legend className="px-1 font-semibold text-slate-900">{t("experts.detailsTitle")}</legend>
          <p className="mb-3 text-sm text-slate-600">{t("experts.detailsIntro")}</p>
          <ExpertDetailsFields fields={fields} />
        </fieldset>
        {/* Health workers name their centre, role and ID. Shown by CSS while "Health worker" is chosen. */}
        <fieldset
          className="hidden rounded-lg border border-slate-200 p-3 group-has-[.hw-choice:checked]/signup:block"
          data-testid="health-worker-details"
        >
          <legend className="px-1 font-semibold text-slate-900">{t("centres.signupTitle")}</legend>
          <p className="mb-3 text-sm text-slate-600">{t("centres.signupIntro")}</p>
          {centres.length === 0 ? (
            <p className="rounded-lg bg-amber-50 p-3 text-sm text-slate-900">{t("centres.noCentresYet")}</p>
          ) : (
            <div className="space-y-4">
              <SelectField
                meta={fields.centreId}
                label={t("centres.centre")}
                required
                options={[
                  { value: "", label: t("centres.chooseCentre") },
                  ...centres.map((c) => ({ value: c._id, label: `${c.name} — ${c.district}, ${c.state}` })),
                ]}
              />
              <div className="grid gap-4 sm:grid-cols-2">
                <SelectField
                  meta={fields.workerRole}
                  label={t("centres.role")}
                  required
                  options={[
                    { value: "", label: "—" },
                    ...HEALTH_WORKER_ROLES.map((r) => ({ value: r, label: t(WORKER_ROLE_KEYS[r]) })),
                  ]}
                />
                <TextField
                  meta={fields.workerId}
                  label={t("centres.workerId")}
                  hint={t("centres.workerIdHint")}
                  required
                  autoComplete="off"
                  maxLength={WORKER_ID_MAX}
                />
              </div>
            </div>
          )}
        </fieldset>
        <div className="grid gap-4 sm:grid-cols-2">
          <PasswordField meta={fields.password} label={t("accounts.password")} autoComplete="new-password" />
          <PasswordField
            meta={fields.confirmPassword}
            label={t("accounts.confirmPassword")}
            autoComplete="new-password"
          />
        </div>
        <button type="submit" className="btn-primary w-full" disabled={busy}>
          {busy ? t("accounts.creating") : t("accounts.createAccount")}
        </button>
        <p className="text-center text-sm">
          {t("accounts.haveAccount")}{" "}
          <Link to="/login" className="link">
            {t("nav.login")}
          </Link>
        </p>
      </Form>
    </AuthCard>
  );
}
