import type { ActionFunctionArgs } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useLocation, useNavigation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { TextAreaField, TextField } from "~/components/ui/Field";
import { FormError } from "~/components/ui/FormError";
import { useServerForm } from "~/components/ui/useServerForm";
import { saveContactMessage } from "~/domain/messaging/index.server";
import { grievanceContact } from "~/domain/rights/index.server";
import { actorFromCookie } from "~/web/session-cookie.server";
import { tFor } from "~/i18n/i18n.server";
import { contactSchema } from "~/schemas/public";
import { site } from "~/site";
import { parseForm } from "~/web/forms.server";
import { guardForm } from "~/web/guard.server";
import { clientOf } from "~/web/request.server";
import { formFailure } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";

export async function action({ request, context }: ActionFunctionArgs) {
  await guardForm(request);
  const submission = await parseForm(request, contactSchema);
  if (submission.status !== "success") {
    return Response.json(submission.reply(), { status: 400 });
  }
  const { t } = await tFor(request);
  try {
    await saveContactMessage(await actorFromCookie(request), submission.value, clientOf(context));
  } catch (err) {
    return formFailure(err, t, (o) => submission.reply(o));
  }
  return redirectWithSuccess("/contact-us", t("contact.thanks"));
}

export default function ContactUs() {
  const { t } = useTranslation();
  // A successful post redirects back here; the new location remounts (clears) the form.
  const location = useLocation();
  return (
    <main id="main" className="mx-auto w-full max-w-5xl flex-1 px-4 py-10">
      {/* Tamil's title is one long word: smaller on a phone, and broken rather than past the screen. */}
      <h1 className="text-2xl font-bold break-words sm:text-3xl">{t("contact.title")}</h1>
      <p className="mt-2 text-lg text-slate-700">{t("contact.intro")}</p>
      <div className="mt-8 grid gap-8 md:grid-cols-[3fr_2fr]">
        <ContactForm key={location.key} />
        <ContactDetails />
      </div>
    </main>
  );
}

function ContactForm() {
  const { t } = useTranslation();
  const lastResult = useActionData<typeof action>();
  const navigation = useNavigation();
  // Checked by the server alone: a public page loads no zod (decisions 0036, 0094).
  const [form, fields] = useServerForm(lastResult, ["name", "email", "message"], { id: "contact" });
  const busy = navigation.state === "submitting";
  return (
    <Form method="post" {...form.props} noValidate className="card space-y-4">
      <FormError id={form.errorId} errors={form.errors} />
      <TextField meta={fields.name} label={t("contact.name")} required autoComplete="name" maxLength={100} />
      <TextField
        meta={fields.email}
        label={t("contact.email")}
        type="email"
        required
        autoComplete="email"
        maxLength={254}
      />
      <TextAreaField meta={fields.message} label={t("contact.message")} required maxLength={5000} />
      <button type="submit" className="btn-primary w-full" disabled={busy}>
        {busy ? t("contact.sending") : t("contact.send")}
      </button>
    </Form>
  );
}

/** The grievance officer (site configuration, GRIEVANCE_* override it). */
export async function loader() {
  return { grievance: grievanceContact() };
}

function GrievanceOfficer() {
  const { t } = useTranslation();
  const { grievance } = useLoaderData<typeof loader>();
  return (
    <div id="grievance" className="scroll-mt-4">
      <h2 className="font-bold">{t("rights.grievanceTitle")}</h2>
      <p>{grievance.name}</p>
      <p>
        <a className="link break-all" href={`mailto:${grievance.email}`}>
          {grievance.email}
        </a>
      </p>
      <p>
        <a className="link" href={`tel:${grievance.phone.replace(/[^\d+]/g, "")}`}>
          {grievance.phone}
        </a>
      </p>
    </div>
  );
}

function ContactDetails() {
  const { t } = useTranslation();
  return (
    <aside className="card space-y-3">
      <div>
        <h2 className="font-bold">{t("contact.officeAddress")}</h2>
        <address className="not-italic">{site.corporateOffice}</address>
      </div>
      <div>
        <h2 className="font-bold">{t("contact.helpline")}</h2>
        <a className="link" href={`tel:${site.helpline.replace(/\s/g, "")}`}>
          {site.helpline}
        </a>
      </div>
      <div>
        <h2 className="font-bold">{t("contact.emailLabel")}</h2>
        <a className="link" href={`mailto:${site.supportEmail}`}>
          {site.supportEmail}
        </a>
      </div>
      <div>
        <h2 className="font-bold">{t("contact.hours")}</h2>
        <p>{site.hours}</p>
      </div>
      <GrievanceOfficer />
    </aside>
  );
}
