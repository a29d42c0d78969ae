import type { SubmissionResult } from "@conform-to/react";
import { useServerForm } from "~/components/ui/useServerForm";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { NameFields } from "~/components/AccountFields";
import { TextAreaField, TextField } from "~/components/ui/Field";
import { SelectField } from "~/components/ui/Select";
import { GENDER_LABEL_KEYS, GENDERS } from "~/schemas/limits";
import type { loader } from "./route";
import { Section, useBusyIntent } from "./Section";

export function ProfileSection({ lastResult }: { lastResult?: SubmissionResult<string[]> }) {
  const { t } = useTranslation();
  const { profile, today } = useLoaderData<typeof loader>();
  const busy = useBusyIntent() === "profile";
  // Checked by the server (the page loads no zod; decision 0036): errors come back with its answer.
  const [form, fields] = useServerForm(
    lastResult,
    ["firstName", "lastName", "dateOfBirth", "gender", "contactNumber", "about"],
    { id: "profile-form", defaultValue: profile },
  );
  const genderOptions = [
    { value: "", label: t("profile.genderSelect") },
    ...GENDERS.map((g) => ({ value: g, label: t(GENDER_LABEL_KEYS[g]) })),
  ];
  return (
    <Section id="profile-heading" title={t("profile.profileInfo")}>
      <Form method="post" {...form.props} noValidate aria-labelledby="profile-heading">
        <input type="hidden" name="intent" value="profile" />
        <div className="grid gap-4 sm:grid-cols-2">
          <NameFields firstName={fields.firstName} lastName={fields.lastName} />
          <TextField
            meta={fields.dateOfBirth}
            label={t("profile.dob")}
            type="date"
            required
            max={today}
            min="1900-01-01"
            autoComplete="bday"
          />
          <SelectField meta={fields.gender} label={t("profile.gender")} options={genderOptions} required />
          <TextField
            meta={fields.contactNumber}
            label={t("profile.phone")}
            type="text"
            inputMode="numeric"
            required
            autoComplete="tel-national"
            maxLength={12}
          />
          <div className="sm:col-span-2">
            <TextAreaField
              meta={fields.about}
              label={t("profile.about")}
              required
              maxLength={1000}
              placeholder={t("profile.aboutPlaceholder")}
            />
          </div>
        </div>
        <div className="mt-5 flex flex-wrap justify-end gap-3">
          <Link to="/dashboard/my-profile" className="btn-secondary">
            {t("common.cancel")}
          </Link>
          <button type="submit" className="btn-primary" disabled={busy}>
            {busy ? t("profile.saving") : t("profile.save")}
          </button>
        </div>
      </Form>
    </Section>
  );
}
