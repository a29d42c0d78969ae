import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, useActionData, useNavigation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { AuthCard } from "~/components/AuthCard";
import { OtpInput } from "~/components/OtpInput";
import { screenMeta } from "~/components/reports/meta";
import { FieldError, TextField } from "~/components/ui/Field";
import { FormError } from "~/components/ui/FormError";
import { PasswordField } from "~/components/ui/PasswordField";
import { completeTakeOver } from "~/domain/care/index.server";
import { tFor } from "~/i18n/i18n.server";
import { completeTakeOverSchema } from "~/schemas/family";
import { parseFormData } from "~/schemas/strict";
import { codeFromForm, readForm } from "~/web/forms.server";
import { guardForm } from "~/web/guard.server";
import { clientOf } from "~/web/request.server";
import { formFailure } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";
import { messageText } from "~/i18n/message";

/**
 * Taking over one's own profile (decision 0030), on the person's phone, signed out and without
 * JavaScript: the number the code went to, the code, a password of their own, and whether whoever
 * kept their reports may go on doing so. Then they log in like any phone account.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const { t } = await tFor(request);
  return { title: t("family.completeTitle") };
}

export const meta: MetaFunction<typeof loader> = screenMeta;

type ActionData = { result: SubmissionResult<string[]> };
const HIDDEN = ["password", "confirmPassword", "code"];

export async function action({ request, context }: ActionFunctionArgs) {
  await guardForm(request);
  const { t } = await tFor(request);
  const form = await readForm(request);
  // The six boxes of the code become one field (the schema allows no others).
  form.set("code", codeFromForm(form));
  for (let i = 1; i <= 6; i++) form.delete(`d${i}`);
  const submission = parseFormData(form, { schema: completeTakeOverSchema });
  if (submission.status !== "success") {
    return data<ActionData>(
      { result: submission.reply({ formErrors: [t("family.takeOverFailed")], hideFields: HIDDEN }) },
      { status: 400 },
    );
  }
  try {
    const user = await completeTakeOver(submission.value, clientOf(context));
    return redirectWithSuccess("/login", t("family.completed", { name: user.firstName }));
  } catch (err) {
    return formFailure(err, t, (o) => submission.reply({ ...o, hideFields: HIDDEN }), {
      hideFields: HIDDEN,
      wrap: (result): ActionData => ({ result }),
      // The code's refusal carries values ("{{left}} tries left"): translated here with them.
      onField: { field: "code", when: (e) => !!e.extra.fieldErrors?.code, formKey: "family.takeOverFailed" },
    });
  }
}

export default function TakeOver() {
  const { t } = useTranslation();
  const actionData = useActionData<typeof action>() as ActionData | undefined;
  const navigation = useNavigation();
  const busy = navigation.state === "submitting";
  const [form, fields] = useForm({
    id: "take-over",
    lastResult: actionData?.result,
    shouldValidate: "onSubmit",
  });
  void form.allErrors;
  const codeErrors = fields.code.errors?.map((e) => messageText(t, e)) ?? null;
  const keepInvalid = !!fields.keepAccess.errors?.length;
  return (
    <AuthCard title={t("family.completeTitle")} intro={<p>{t("family.completeIntro")}</p>}>
      <Form method="post" {...getFormProps(form)} className="space-y-5">
        <FormError id={form.errorId} errors={form.errors} />
        <TextField
          meta={fields.phone}
          label={t("family.phone")}
          type="tel"
          inputMode="tel"
          autoComplete="tel"
          required
        />
        <FormError id="take-over-code-error" errors={codeErrors} />
        <OtpInput errorId="take-over-code-error" invalid={!!codeErrors} />
        <PasswordField meta={fields.password} label={t("family.password")} autoComplete="new-password" />
        <PasswordField
          meta={fields.confirmPassword}
          label={t("family.confirmPassword")}
          autoComplete="new-password"
        />
        <fieldset aria-describedby={keepInvalid ? fields.keepAccess.errorId : undefined}>
          <legend className="field-label">{t("family.keepLegend")}</legend>
          <div className="space-y-1">
            {[
              { value: "true", label: t("family.keepYes") },
              { value: "false", label: t("family.keepNo") },
            ].map((o) => (
              <label key={o.value} className="flex min-h-11 cursor-pointer items-center gap-3">
                <input
                  type="radio"
                  name={fields.keepAccess.name}
                  value={o.value}
                  defaultChecked={fields.keepAccess.initialValue === o.value}
                  aria-invalid={keepInvalid || undefined}
                  className="h-5 w-5 shrink-0 accent-brand-700"
                />
                <span>{o.label}</span>
              </label>
            ))}
          </div>
          <FieldError meta={fields.keepAccess} />
        </fieldset>
        <button type="submit" className="btn-primary w-full" disabled={busy}>
          {busy ? t("family.completing") : t("family.complete")}
        </button>
      </Form>
    </AuthCard>
  );
}
