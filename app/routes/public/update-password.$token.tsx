import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { useServerForm } from "~/components/ui/useServerForm";
import { AuthCard } from "~/components/AuthCard";
import { FormError } from "~/components/ui/FormError";
import { PasswordField } from "~/components/ui/PasswordField";
import { isResetTokenLive, resetPassword } from "~/domain/accounts/index.server";
import { tFor } from "~/i18n/i18n.server";
import { resetPasswordFormSchema } from "~/schemas/auth";
import { redirectIfSignedIn } from "~/web/auth.server";
import { parseForm } from "~/web/forms.server";
import { guardForm } from "~/web/guard.server";
import { formFailure } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";

export async function loader({ request, params }: LoaderFunctionArgs) {
  await redirectIfSignedIn(request);
  return { valid: await isResetTokenLive(params.token ?? "") };
}

export async function action({ request, params }: ActionFunctionArgs) {
  await guardForm(request);
  const submission = await parseForm(request, resetPasswordFormSchema);
  if (submission.status !== "success") {
    return Response.json(submission.reply({ hideFields: ["password", "confirmPassword"] }), { status: 400 });
  }
  const { t } = await tFor(request);
  try {
    await resetPassword(params.token ?? "", submission.value.password);
  } catch (err) {
    return formFailure(err, t, (o) =>
      submission.reply({ ...o, hideFields: ["password", "confirmPassword"] }),
    );
  }
  return redirectWithSuccess("/login", t("accounts.resetSuccess"));
}

export default function UpdatePassword() {
  const { t } = useTranslation();
  const { valid } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const navigation = useNavigation();
  // Checked by the server alone: the page loads no zod (decisions 0036, 0094).
  const [form, fields] = useServerForm(lastResult, ["password", "confirmPassword"], {
    id: "update-password",
  });
  const busy = navigation.state === "submitting";
  const back = (
    <p className="mt-4 text-center text-sm">
      <Link to="/login" className="link">
        ← {t("accounts.backToLogin")}
      </Link>
    </p>
  );
  if (!valid) {
    return (
      <AuthCard title={t("accounts.resetFailed")} intro={<p>{t("accounts.resetTokenInvalid")}</p>}>
        <Link to="/forgot-password" className="btn-primary w-full">
          {t("accounts.forgotPasswordLink")}
        </Link>
        {back}
      </AuthCard>
    );
  }
  return (
    <AuthCard title={t("accounts.resetTitle")}>
      <Form method="post" {...form.props} noValidate className="space-y-4">
        <FormError id={form.errorId} errors={form.errors} />
        <PasswordField meta={fields.password} label={t("profile.newPassword")} autoComplete="new-password" />
        <PasswordField
          meta={fields.confirmPassword}
          label={t("accounts.confirmPassword")}
          autoComplete="new-password"
        />
        <button type="submit" className="btn-primary w-full" disabled={busy}>
          {busy ? t("accounts.resetting") : t("accounts.resetButton")}
        </button>
      </Form>
      {back}
    </AuthCard>
  );
}
