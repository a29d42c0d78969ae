import { parseFormData } from "~/schemas/strict";
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Form, Link, useActionData, useNavigation, useSearchParams } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { AuthCard } from "~/components/AuthCard";
import { EmailOrMobileField } from "~/components/AccountFields";
import { FormError } from "~/components/ui/FormError";
import { useServerForm } from "~/components/ui/useServerForm";
import { useSignInSubmit } from "~/offline/signin";
import { PasswordField } from "~/components/ui/PasswordField";
import { tFor } from "~/i18n/i18n.server";
import { loginSchema } from "~/schemas/auth";
import { redirectIfSignedIn, sessionHeaders } from "~/web/auth.server";
import { authenticateForm } from "~/web/authenticator.server";
import { safeRedirect } from "~/web/forms.server";
import { guardForm } from "~/web/guard.server";
import { toSecondStep } from "~/web/mfa.server";
import { clientOf } from "~/web/request.server";
import { formFailure } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";

export async function loader({ request }: LoaderFunctionArgs) {
  await redirectIfSignedIn(request);
  return null;
}

export async function action({ request, context }: ActionFunctionArgs) {
  await guardForm(request);
  const formData = await request
    .clone()
    .formData()
    .catch(() => new FormData());
  const submission = parseFormData(formData, { schema: loginSchema });
  if (submission.status !== "success") {
    return Response.json(submission.reply({ hideFields: ["password"] }), { status: 400 });
  }
  const { t } = await tFor(request);
  // Decided before a session exists, so a bad redirectTo can never leave one behind.
  const to = safeRedirect(formData.get("redirectTo"), "/dashboard/home");
  try {
    const target = to === "/login" ? "/dashboard/home" : to;
    const result = await authenticateForm(request, clientOf(context));
    // Two-step login: no session yet, the second step comes first.
    if (result.mfa) return toSecondStep(result.mfa.token, target);
    return redirectWithSuccess(target, t("accounts.loginSuccess"), {
      headers: await sessionHeaders(result.token, result.user.locale, result.user.id),
    });
  } catch (err) {
    return formFailure(err, t, (o) => submission.reply({ ...o, hideFields: ["password"] }));
  }
}

export default function Login() {
  const { t } = useTranslation();
  const lastResult = useActionData<typeof action>();
  const navigation = useNavigation();
  const [params] = useSearchParams();
  // Checked by the server only (a public page loads no validation code).
  const [form, fields] = useServerForm(lastResult, ["email", "password"]);
  // The outbox's key is prepared from the password before the form is sent (decisions 0072, 0087).
  const outbox = useSignInSubmit(lastResult);
  const busy = navigation.state === "submitting" || outbox.preparing;
  return (
    <AuthCard title={t("accounts.loginTitle")} intro={<p>{t("accounts.loginText")}</p>}>
      <Form method="post" {...form.props} onSubmit={outbox.onSubmit} className="space-y-4">
        <input type="hidden" name="redirectTo" value={params.get("redirectTo") ?? ""} />
        <FormError id={form.errorId} errors={form.errors} />
        <EmailOrMobileField meta={fields.email} />
        <PasswordField
          meta={fields.password}
          label={t("accounts.password")}
          autoComplete="current-password"
        />
        <div className="text-right">
          <Link to="/forgot-password" className="link text-sm">
            {t("accounts.forgotPasswordLink")}
          </Link>
        </div>
        <button type="submit" className="btn-primary w-full" disabled={busy}>
          {busy ? t("accounts.signingIn") : t("accounts.signIn")}
        </button>
        <p className="text-center">
          <Link
            to={`/login-code${params.get("redirectTo") ? `?redirectTo=${encodeURIComponent(params.get("redirectTo")!)}` : ""}`}
            className="link"
          >
            {t("accounts.loginWithCode")}
          </Link>
        </p>
        <p className="text-center text-sm">
          {t("accounts.noAccount")}{" "}
          <Link to="/signup" className="link">
            {t("accounts.createOne")}
          </Link>
        </p>
      </Form>
    </AuthCard>
  );
}
