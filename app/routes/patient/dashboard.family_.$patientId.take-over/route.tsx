import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { screenMeta } from "~/components/reports/meta";
import { PageHeader } from "~/components/reports/PageHeader";
import { TextField } from "~/components/ui/Field";
import { FormError } from "~/components/ui/FormError";
import { config } from "~/config.server";
import { startTakeOver, takeOverTarget } from "~/domain/care/index.server";
import { tFor } from "~/i18n/i18n.server";
import { startTakeOverSchema } from "~/schemas/family";
import { parseFormData } from "~/schemas/strict";
import { requireActor } from "~/web/auth.server";
import { readForm } from "~/web/forms.server";
import { guardForm } from "~/web/guard.server";
import { clientOf } from "~/web/request.server";
import { formFailure, pageError } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";

/**
 * Starting a take-over (decisions 0030, 0055): the family manager — or a health worker of the
 * profile's centre — sends the code to the person's own number on the profile, or, where it has
 * none, enters the person's own mobile number with the take-over code on their slip (a centre's
 * patient, decision 0073) or the slip ID and year of birth; the code goes there, and the page says what the
 * person does next (/take-over on their phone). Someone who may not act for the profile gets the
 * not-found page.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const actor = await requireActor(request);
  const { t } = await tFor(request);
  let target: Awaited<ReturnType<typeof takeOverTarget>>;
  try {
    target = await takeOverTarget(actor, params.patientId ?? "");
  } catch (err) {
    pageError(err);
  }
  const sent = new URL(request.url).searchParams.get("sent");
  return {
    title: t("family.takeOverTitle", { name: target.name }),
    target,
    sent: sent && /^\+[\d*]{6,18}$/.test(sent) ? sent : null,
    completeUrl: `${config().appUrl}/take-over`,
    back: target.by === "centre" ? "/dashboard/centre" : "/dashboard/family",
  };
}

export const meta: MetaFunction<typeof loader> = screenMeta;

type ActionData = { result: SubmissionResult<string[]> };

export async function action({ request, params, context }: ActionFunctionArgs) {
  await guardForm(request);
  const actor = await requireActor(request);
  const { t } = await tFor(request);
  const form = await readForm(request);
  const submission = parseFormData(form, { schema: startTakeOverSchema });
  if (submission.status !== "success") {
    return data<ActionData>(
      { result: submission.reply({ formErrors: [t("family.takeOverFailed")] }) },
      { status: 400 },
    );
  }
  const id = params.patientId ?? "";
  try {
    const sent = await startTakeOver(actor, id, submission.value, clientOf(context));
    return redirectWithSuccess(
      `/dashboard/family/${encodeURIComponent(id)}/take-over?sent=${encodeURIComponent(sent.phone)}`,
      t("family.takeOverSent", { phone: sent.phone }),
    );
  } catch (err) {
    return formFailure(err, t, (o) => submission.reply(o), { wrap: (result): ActionData => ({ result }) });
  }
}

export default function StartTakeOver() {
  const { t } = useTranslation();
  const { target, sent, completeUrl, back } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>() as ActionData | undefined;
  const navigation = useNavigation();
  const busy = navigation.state === "submitting";
  const [form, fields] = useForm({
    id: "take-over-start",
    lastResult: actionData?.result,
    onValidate: ({ formData }) => parseFormData(formData, { schema: startTakeOverSchema }),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
  });
  void form.allErrors;
  return (
    <section className="max-w-2xl">
      <PageHeader
        title={t("family.takeOverTitle", { name: target.name })}
        intro={t("family.takeOverIntro", { name: target.name })}
      />
      {sent && (
        <div
          className="mb-5 rounded-lg border border-green-300 bg-green-50 px-4 py-3 text-green-900"
          role="status"
        >
          <p className="font-semibold">{t("family.takeOverSent", { phone: sent })}</p>
          <p className="mt-1">{t("family.takeOverNext", { link: completeUrl })}</p>
        </div>
      )}
      {target.blocked ? (
        <p
          className="rounded-lg border border-amber-300 bg-amber-50 px-4 py-3 font-semibold text-amber-900"
          data-testid="take-over-blocked"
        >
          {t(target.blocked)}
        </p>
      ) : (
        <Form method="post" {...getFormProps(form)} className="card space-y-5">
          <FormError id={form.errorId} errors={form.errors} />
          {target.ownPhone ? (
            <p data-testid="take-over-own-number">
              {t("family.takeOverOwnNumber", { name: target.name, phone: target.ownPhone })}
            </p>
          ) : (
            <>
              <TextField
                meta={fields.phone}
                label={t("family.takeOverPhone", { name: target.name })}
                hint={t("family.takeOverPhoneHint")}
                type="tel"
                inputMode="tel"
                autoComplete="off"
                required
              />
              {target.proof === "slip" ? (
                <>
                  <p>{t("slip.takeOverIntro", { name: target.name })}</p>
                  <TextField
                    meta={fields.slipCode}
                    label={t("slip.takeOverCode", { name: target.name })}
                    hint={t("slip.takeOverCodeHint")}
                    autoComplete="off"
                    required
                  />
                </>
              ) : (
                <>
                  <p>{t("family.takeOverProofIntro", { name: target.name })}</p>
                  <TextField
                    meta={fields.shortId}
                    label={t("family.takeOverShortId", { name: target.name })}
                    hint={t("family.takeOverShortIdHint")}
                    autoComplete="off"
                    required
                  />
                  <TextField
                    meta={fields.birthYear}
                    label={t("family.takeOverBirthYear", { name: target.name })}
                    inputMode="numeric"
                    autoComplete="off"
                    required
                  />
                </>
              )}
            </>
          )}
          <button type="submit" className="btn-primary w-full sm:w-auto" disabled={busy}>
            {busy ? t("family.takeOverSending") : t("family.takeOverSend")}
          </button>
        </Form>
      )}
      <p className="mt-6">
        <Link to={back} className="link">
          {t(back === "/dashboard/family" ? "family.takeOverBack" : "care.navCentre")}
        </Link>
      </p>
    </section>
  );
}
