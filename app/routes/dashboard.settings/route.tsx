import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseFormData } from "~/schemas/strict";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useLocation, useNavigation } from "@remix-run/react";
import type { TFunction } from "i18next";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { NameFields, SecondFactorField } from "~/components/AccountFields";
import { Avatar } from "~/components/Avatar";
import { TextAreaField, TextField } from "~/components/ui/Field";
import { FormError } from "~/components/ui/FormError";
import { PasswordField } from "~/components/ui/PasswordField";
import { SelectField } from "~/components/ui/Select";
import {
  changePassword,
  getProfile,
  setNotifyChannel,
  updateDisplayPicture,
  updateProfile,
  listSessions,
  revokeAllSessions,
  revokeOwnSession,
  type Actor,
  avatarUrl,
  expertUser,
  updateExpertDetails,
  twoFactorStatus,
} from "~/domain/accounts/index.server";
import { HTTP_STATUS, isDomainError, type DomainError } from "~/domain/platform/errors";
import type { Client } from "~/domain/platform/client";
import { limit } from "~/domain/platform/index.server";
import { tFor } from "~/i18n/i18n.server";
import {
  changePasswordSchema,
  DISPLAY_PICTURE_MAX_BYTES,
  GENDERS,
  notifySchema,
  profileSchema,
} from "~/schemas/auth";
import { smsNumberOf } from "~/domain/messaging/index.server";
import { maskPhone } from "~/utils/phone.server";
import { site } from "~/site";
import { formatDateTime } from "~/utils/format";
import { clearSessionHeaders, requireActor } from "~/utils/auth.server";
import { readForm } from "~/utils/forms.server";
import { guardForm } from "~/utils/guard.server";
import { parseUpload } from "~/utils/multipart.server";
import { clientOf } from "~/utils/request.server";
import { ExpertDetailsFields } from "~/components/ExpertDetailsFields";
import { expertDetailsFormSchema } from "~/schemas/experts";
import { redirectWithError, redirectWithSuccess } from "~/utils/toast.server";
import { TwoStepSection } from "~/components/TwoFactor";
import { eraseAccount } from "~/domain/rights/index.server";
import { deleteAccountFormSchema } from "~/schemas/rights";
import { proofFromText } from "~/schemas/two-factor";
import { formatPeriod } from "~/components/rights/format";
import { config } from "~/config.server";
import { DEFAULT_TIME_ZONE } from "~/utils/format";
import { useRouteLoaderData } from "@remix-run/react";
import { DownloadMyData } from "~/components/DownloadMyData";
import type { loader as dashboardLoader } from "../dashboard";

/** What the picker offers; the server decides the real type from the bytes (files.server). */
const PICTURE_ACCEPT = "image/png,image/gif,image/jpeg,image/webp,.png,.gif,.jpeg,.jpg,.webp";
const PICTURE_TYPES = ["image/png", "image/gif", "image/jpeg", "image/webp"];
const PASSWORD_FIELDS = ["oldPassword", "newPassword", "confirmNewPassword"];
const SETTINGS = "/dashboard/settings";

export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireActor(request);
  const { user, profile } = await getProfile(actor.id);
  const { t, locale } = await tFor(request);
  return {
    title: t("profile.settings"),
    firstName: user.firstName,
    lastName: user.lastName,
    image: avatarUrl(user.image),
    profile: {
      firstName: user.firstName,
      lastName: user.lastName,
      dateOfBirth: profile?.dateOfBirth ?? "",
      gender: profile?.gender ?? "",
      contactNumber: profile?.contactNumber || user.contactNumber || "",
      about: profile?.about ?? "",
    },
    // The schema's "not in the future" rule uses the UTC date, so the picker's limit does too.
    today: new Date().toISOString().slice(0, 10),
    // Experts: their verification details (issue 12).
    expert: actor.accountType === "Expert" ? ((await expertUser(actor.id)).expertDetails ?? null) : null,
    // Experts and admins choose how notifications reach them (issue 13); patients do not.
    notify:
      actor.accountType === "Patient"
        ? null
        : { channel: user.notify, mobile: maskPhone(smsNumberOf(user)) || null },
    sessions: await listSessions(actor),
    // Two-step login (issue 14): set up and managed at /dashboard/two-step.
    twoStep: await twoFactorStatus(actor),
    // Issue 19: "Delete account" is the erasure, after this notice unless the person asks for now.
    erasureNotice: formatPeriod(config().erasureNoticeMs, locale),
  };
}

export const meta: MetaFunction<typeof loader> = ({ data, matches }) => [
  ...(matches.find((m) => m.id === "root")?.meta ?? []).filter((m) => !("title" in m)),
  { title: data ? `${data.title} | ${site.productName}` : site.productName },
];

/** A DomainError's message key, translated, falling back to a screen-specific message. */
function domainMessage(err: DomainError, t: TFunction, fallbackKey: string) {
  return t([err.message, fallbackKey], err.extra.values ?? {});
}

/** A rate limit as a screen answer: 429, Retry-After, and the translated message as the form's error. */
function rateLimitedReply<I extends string>(
  intent: I,
  err: DomainError,
  t: TFunction,
  reply: (o: { formErrors: string[] }) => SubmissionResult<string[]>,
) {
  const seconds = err.extra.retryAfterSeconds;
  return data(
    { intent, result: reply({ formErrors: [t(err.message, err.extra.values ?? {})] }) },
    { status: 429, headers: seconds ? { "Retry-After": String(seconds) } : {} },
  );
}

/** The picture upload's error as an i18n key of this screen (the file store's codes mapped). */
function pictureErrorKey(err: DomainError) {
  switch (err.code) {
    case "too_large":
      return "profile.pictureTooLarge";
    case "unsupported_type":
      return "profile.pictureBadType";
    case "rate_limited":
      return err.message;
    case "invalid":
      return err.message === "files.empty" ? "profile.pictureRequired" : "profile.pictureFailed";
    default:
      return "profile.pictureFailed";
  }
}

/** Display picture: multipart, the file streamed straight into the encrypted store. */
async function pictureAction(request: Request, actor: Actor, client: Client) {
  const fail = (key: string, status = 400, e?: DomainError) => {
    const seconds = e?.extra.retryAfterSeconds;
    const headers: Record<string, string> = seconds ? { "Retry-After": String(seconds) } : {};
    return data({ intent: "picture" as const, error: key, values: e?.extra.values }, { status, headers });
  };
  try {
    await limit("upload", actor.id, client); // before a single byte of the file is read
    const { file } = await parseUpload(request, {
      fileField: "displayPicture",
      kind: "image",
      maxBytes: DISPLAY_PICTURE_MAX_BYTES,
    });
    await updateDisplayPicture(actor, file);
  } catch (err) {
    if (isDomainError(err)) return fail(pictureErrorKey(err), HTTP_STATUS[err.code], err);
    throw err;
  }
  const { t } = await tFor(request);
  return redirectWithSuccess(SETTINGS, t("profile.pictureUpdated"));
}

export async function action({ request, context }: ActionFunctionArgs) {
  await guardForm(request);
  const actor = await requireActor(request);
  const { t, locale } = await tFor(request);
  if ((request.headers.get("Content-Type") ?? "").startsWith("multipart/form-data")) {
    return pictureAction(request, actor, clientOf(context));
  }
  const formData = await readForm(request);
  const intent = formData.get("intent");

  if (intent === "profile") {
    const submission = parseFormData(formData, { schema: profileSchema });
    if (submission.status !== "success") {
      return data({ intent: "profile" as const, result: submission.reply() }, { status: 400 });
    }
    try {
      await updateProfile(actor, submission.value);
    } catch (err) {
      if (!isDomainError(err)) throw err;
      if (err.extra.fieldErrors) {
        return data(
          { intent: "profile" as const, result: submission.reply({ fieldErrors: err.extra.fieldErrors }) },
          { status: 400 },
        );
      }
      return redirectWithError(SETTINGS, domainMessage(err, t, "profile.profileFailed"));
    }
    return redirectWithSuccess("/dashboard/my-profile", t("profile.profileUpdated"));
  }

  if (intent === "expert-details") {
    const submission = parseFormData(formData, { schema: expertDetailsFormSchema });
    if (submission.status !== "success") {
      return data({ intent: "expert-details" as const, result: submission.reply() }, { status: 400 });
    }
    let backToReview = false;
    try {
      ({ backToReview } = await updateExpertDetails(actor, submission.value, clientOf(context).ip));
    } catch (err) {
      if (!isDomainError(err)) throw err;
      return redirectWithError(SETTINGS, domainMessage(err, t, "experts.onlyExperts"));
    }
    return redirectWithSuccess(
      SETTINGS,
      t(backToReview ? "experts.detailsUpdatedReview" : "experts.detailsUpdated"),
    );
  }

  if (intent === "notify") {
    const submission = parseFormData(formData, { schema: notifySchema });
    if (submission.status !== "success") {
      return data({ intent: "notify" as const, result: submission.reply() }, { status: 400 });
    }
    try {
      await setNotifyChannel(actor, submission.value.notify);
    } catch (err) {
      if (!isDomainError(err)) throw err;
      return data(
        {
          intent: "notify" as const,
          result: submission.reply({ formErrors: [domainMessage(err, t, "profile.notifyInvalid")] }),
        },
        { status: HTTP_STATUS[err.code] },
      );
    }
    return redirectWithSuccess(SETTINGS, t("profile.notifySaved"));
  }

  if (intent === "password") {
    const submission = parseFormData(formData, { schema: changePasswordSchema });
    if (submission.status !== "success") {
      return data(
        { intent: "password" as const, result: submission.reply({ hideFields: PASSWORD_FIELDS }) },
        { status: 400 },
      );
    }
    try {
      await changePassword(actor, submission.value, clientOf(context));
    } catch (err) {
      if (!isDomainError(err)) throw err;
      if (err.code === "rate_limited") {
        return rateLimitedReply("password", err, t, (o) =>
          submission.reply({ ...o, hideFields: PASSWORD_FIELDS }),
        );
      }
      if (err.extra.fieldErrors) {
        return data(
          {
            intent: "password" as const,
            result: submission.reply({ fieldErrors: err.extra.fieldErrors, hideFields: PASSWORD_FIELDS }),
          },
          { status: 400 },
        );
      }
      return redirectWithError(SETTINGS, domainMessage(err, t, "accounts.passwordChangeFailed"));
    }
    return redirectWithSuccess(SETTINGS, t("accounts.passwordChanged"));
  }

  if (intent === "revoke-session") {
    await revokeOwnSession(actor, String(formData.get("sessionId") ?? ""));
    return redirectWithSuccess(SETTINGS, t("profile.sessionRevoked"));
  }

  if (intent === "revoke-others") {
    await revokeAllSessions(actor.id, actor.sessionId);
    return redirectWithSuccess(SETTINGS, t("profile.sessionsRevoked"));
  }

  if (intent === "delete") {
    // Step one (needed without JavaScript): show the confirmation.
    return data({ intent: "delete" as const, result: undefined as SubmissionResult<string[]> | undefined });
  }

  if (intent === "delete-confirm") {
    // The password is asked again: a session left open on a shared phone cannot delete the account.
    const submission = parseFormData(formData, { schema: deleteAccountFormSchema });
    if (submission.status !== "success") {
      return data(
        { intent: "delete" as const, result: submission.reply({ hideFields: ["password"] }) },
        { status: 400 },
      );
    }
    let erased: boolean;
    let dueAt: string | null;
    try {
      const { password, proof, immediate } = submission.value;
      const outcome = await eraseAccount(
        actor,
        { password, ...proofFromText(proof ?? ""), immediate: !!immediate },
        clientOf(context),
      );
      erased = outcome.erased;
      dueAt = outcome.request.dueAt;
    } catch (err) {
      if (!isDomainError(err)) throw err;
      if (err.code === "rate_limited") {
        return rateLimitedReply("delete", err, t, (o) =>
          submission.reply({ ...o, hideFields: ["password", "proof"] }),
        );
      }
      const fieldErrors = err.extra.fieldErrors;
      if (fieldErrors) {
        // The second factor is one field here (a code or a recovery code).
        const { code, recoveryCode, ...rest } = fieldErrors;
        const proof = code ?? recoveryCode;
        return data(
          {
            intent: "delete" as const,
            result: submission.reply({
              fieldErrors: proof ? { ...rest, proof } : rest,
              hideFields: ["password", "proof"],
            }),
          },
          { status: 400 },
        );
      }
      return redirectWithError(SETTINGS, domainMessage(err, t, "profile.deleteFailedLater"));
    }
    if (!erased) {
      return redirectWithSuccess(
        "/dashboard/my-data#erasure",
        t("rights.erasureRequested", { date: formatDateTime(dueAt!, locale, DEFAULT_TIME_ZONE) }),
      );
    }
    return redirectWithSuccess("/", t("profile.deleted"), { headers: await clearSessionHeaders(true) });
  }

  return data({ intent: "unknown" as const }, { status: 400 });
}

const GENDER_KEYS: Record<(typeof GENDERS)[number], string> = {
  Male: "profile.genderMale",
  Female: "profile.genderFemale",
  "Non-Binary": "profile.genderNonBinary",
  "Prefer not to say": "profile.genderPreferNot",
  Other: "profile.genderOther",
};

function useHydrated() {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return hydrated;
}

/**
 * Conform re-renders a form only for the state its last render read. When React calls the
 * form's component again but bails out before its children (which read each field's errors),
 * that subscription is lost and the first submit shows no errors. Reading every error here,
 * in the component that owns useForm, keeps it.
 */
function subscribeToErrors(form: { allErrors: unknown }) {
  void form.allErrors;
}

/** Which form (by its intent) the current submission belongs to, if any. */
function useBusyIntent() {
  const navigation = useNavigation();
  return navigation.state === "submitting" && navigation.formAction?.startsWith(SETTINGS)
    ? String(navigation.formData?.get("intent") ?? "")
    : null;
}

function Section({
  id,
  title,
  children,
  danger,
}: {
  id: string;
  title: string;
  children: React.ReactNode;
  danger?: boolean;
}) {
  return (
    <section aria-labelledby={id} className={`card ${danger ? "border-red-300" : ""}`}>
      <h2 id={id} className={`text-lg font-bold ${danger ? "text-red-800" : "text-slate-900"}`}>
        {title}
      </h2>
      <div className="mt-4">{children}</div>
    </section>
  );
}

function PictureSection({
  serverError,
  serverValues,
}: {
  serverError?: string;
  serverValues?: Record<string, string | number>;
}) {
  const { t, i18n } = useTranslation();
  const { firstName, lastName, image } = useLoaderData<typeof loader>();
  const hydrated = useHydrated();
  const busy = useBusyIntent() === "picture";
  const inputRef = useRef<HTMLInputElement>(null);
  const [chosen, setChosen] = useState<{ name: string; size: number; url: string } | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(
    () => () => {
      if (chosen) URL.revokeObjectURL(chosen.url);
    },
    [chosen],
  );
  // A new saved picture (after the redirect) clears the picker.
  useEffect(() => {
    setChosen(null);
    setError(null);
    if (inputRef.current) inputRef.current.value = "";
  }, [image]);
  useEffect(() => setError(null), [serverError]);

  const onChange = (e: React.ChangeEvent<HTMLInputElement>) => {
    const file = e.currentTarget.files?.[0];
    if (!file) {
      setChosen(null);
      return;
    }
    if (!PICTURE_TYPES.includes(file.type)) {
      setError("profile.pictureBadType");
      setChosen(null);
      return;
    }
    if (file.size > DISPLAY_PICTURE_MAX_BYTES) {
      setError("profile.pictureTooLarge");
      setChosen(null);
      return;
    }
    setError(null);
    setChosen({ name: file.name, size: file.size, url: URL.createObjectURL(file) });
  };
  const onSubmit = (e: React.FormEvent<HTMLFormElement>) => {
    const file = inputRef.current?.files?.[0];
    if (!file) {
      e.preventDefault();
      setError("profile.pictureRequired");
      inputRef.current?.focus();
    } else if (error) {
      e.preventDefault();
    }
  };

  const shownError = error ?? serverError ?? null;
  const size = chosen
    ? new Intl.NumberFormat(i18n.language, {
        style: "unit",
        unit: "kilobyte",
        maximumFractionDigits: 0,
      }).format(Math.max(1, Math.round(chosen.size / 1024)))
    : "";
  return (
    <Section id="picture-heading" title={t("profile.displayPicture")}>
      <div className="flex flex-col gap-4 sm:flex-row sm:items-center">
        {chosen ? (
          <img
            src={chosen.url}
            alt=""
            width={78}
            height={78}
            className="h-[78px] w-[78px] shrink-0 rounded-full object-cover"
          />
        ) : (
          <Avatar firstName={firstName} lastName={lastName} image={image} size={78} />
        )}
        <Form
          method="post"
          encType="multipart/form-data"
          id="picture-form"
          onSubmit={onSubmit}
          className="min-w-0 flex-1"
          aria-labelledby="picture-heading"
        >
          <input type="hidden" name="intent" value="picture" />
          {!hydrated && (
            <label htmlFor="displayPicture" className="field-label">
              {t("profile.select")}
            </label>
          )}
          <div className="flex flex-wrap items-center gap-3">
            <input
              ref={inputRef}
              id="displayPicture"
              name="displayPicture"
              type="file"
              accept={PICTURE_ACCEPT}
              onChange={onChange}
              aria-invalid={shownError ? true : undefined}
              aria-describedby={`picture-hint${shownError ? " picture-error" : ""}`}
              className={hydrated ? "peer sr-only" : "block max-w-full text-sm"}
            />
            {hydrated && (
              <label
                htmlFor="displayPicture"
                className="btn-secondary cursor-pointer peer-focus-visible:outline-3 peer-focus-visible:outline-offset-2 peer-focus-visible:outline-brand-600"
              >
                {t("profile.select")}
              </label>
            )}
            <button type="submit" className="btn-primary" disabled={busy}>
              {busy ? t("profile.uploading") : t("profile.upload")}
            </button>
          </div>
          {hydrated && (
            <p className="mt-2 text-sm break-all text-slate-800" aria-live="polite">
              {chosen ? `${chosen.name} (${size})` : t("profile.noFileChosen")}
            </p>
          )}
          <p id="picture-hint" className="mt-1 text-sm text-slate-600">
            {t("profile.pictureHint")}
          </p>
          {shownError && (
            <p id="picture-error" className="field-error" role="alert">
              {t(shownError, error ? {} : (serverValues ?? {}))}
            </p>
          )}
        </Form>
      </div>
    </Section>
  );
}

function ProfileSection({ lastResult }: { lastResult?: SubmissionResult<string[]> }) {
  const { t } = useTranslation();
  const { profile, today } = useLoaderData<typeof loader>();
  const busy = useBusyIntent() === "profile";
  const [form, fields] = useForm({
    id: "profile-form",
    lastResult,
    defaultValue: profile,
    onValidate: ({ formData }) => parseFormData(formData, { schema: profileSchema }),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
  });
  subscribeToErrors(form);
  const genderOptions = [
    { value: "", label: t("profile.genderSelect") },
    ...GENDERS.map((g) => ({ value: g, label: t(GENDER_KEYS[g]) })),
  ];
  return (
    <Section id="profile-heading" title={t("profile.profileInfo")}>
      <Form method="post" {...getFormProps(form)} aria-labelledby="profile-heading">
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
            type="tel"
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

/** Experts: registration, council, years of practice and specialties; a rejected application is resubmitted by saving. */
function ExpertSection({ lastResult }: { lastResult?: SubmissionResult<string[]> }) {
  const { t } = useTranslation();
  const { expert } = useLoaderData<typeof loader>();
  const busy = useBusyIntent() === "expert-details";
  const [form, fields] = useForm({
    id: "expert-details-form",
    lastResult,
    defaultValue: expert
      ? ({
          specialties: expert.specialties,
          registrationNumber: expert.registrationNumber,
          registrationCouncil: expert.registrationCouncil,
          yearsOfPractice: expert.yearsOfPractice === null ? "" : String(expert.yearsOfPractice),
        } as any) // a checkbox group's default is a list; Conform types it from the schema's input
      : undefined,
    onValidate: ({ formData }) => parseFormData(formData, { schema: expertDetailsFormSchema }),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
  });
  subscribeToErrors(form);
  return (
    <Section id="expert-details-heading" title={t("experts.detailsTitle")}>
      {expert?.rejectedAt && (
        <p role="status" className="mb-4 rounded-lg border border-amber-300 bg-amber-50 p-3 text-amber-950">
          {t("dashboard.rejectedNotice", { reason: expert.rejectionReason ?? "" })}
        </p>
      )}
      <p className="mb-4 text-slate-700">{t("experts.detailsIntro")}</p>
      {expert?.approvedAt && <p className="mb-4 text-slate-700">{t("experts.changeNeedsReview")}</p>}
      <Form method="post" {...getFormProps(form)} aria-labelledby="expert-details-heading">
        <input type="hidden" name="intent" value="expert-details" />
        <FormError id={form.errorId} errors={form.errors} />
        <ExpertDetailsFields
          fields={fields as unknown as Parameters<typeof ExpertDetailsFields>[0]["fields"]}
        />
        <div className="mt-5 flex justify-end">
          <button type="submit" className="btn-primary" disabled={busy}>
            {busy ? t("profile.saving") : t("experts.saveDetails")}
          </button>
        </div>
      </Form>
    </Section>
  );
}

function PasswordSection({ lastResult }: { lastResult?: SubmissionResult<string[]> }) {
  const { t } = useTranslation();
  const busy = useBusyIntent() === "password";
  const [form, fields] = useForm({
    id: "password-form",
    lastResult,
    onValidate: ({ formData }) => parseFormData(formData, { schema: changePasswordSchema }),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
  });
  subscribeToErrors(form);
  return (
    <Section id="password-heading" title={t("profile.passwordTitle")}>
      <Form method="post" {...getFormProps(form)} aria-labelledby="password-heading">
        <input type="hidden" name="intent" value="password" />
        {/* Only an error of the whole form (e.g. too many tries); field errors sit at their fields. */}
        <FormError id={form.errorId} errors={form.errors} />
        <div className="grid gap-4 sm:grid-cols-2">
          <div className="sm:col-span-2 sm:max-w-[calc(50%-0.5rem)]">
            <PasswordField
              meta={fields.oldPassword}
              label={t("profile.currentPassword")}
              autoComplete="current-password"
            />
          </div>
          <PasswordField
            meta={fields.newPassword}
            label={t("profile.newPassword")}
            autoComplete="new-password"
          />
          <PasswordField
            meta={fields.confirmNewPassword}
            label={t("profile.confirmNewPassword")}
            autoComplete="new-password"
          />
        </div>
        <div className="mt-5 flex justify-end">
          <button type="submit" className="btn-primary" disabled={busy}>
            {busy ? t("profile.saving") : t("profile.changePassword")}
          </button>
        </div>
      </Form>
    </Section>
  );
}

function DeleteSection({
  confirmFromServer,
  lastResult,
}: {
  confirmFromServer: boolean;
  lastResult?: SubmissionResult<string[]>;
}) {
  const { t } = useTranslation();
  const { twoStep, erasureNotice } = useLoaderData<typeof loader>();
  const [form, fields] = useForm({
    id: "delete-form",
    lastResult,
    onValidate: ({ formData }) => parseFormData(formData, { schema: deleteAccountFormSchema }),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
  });
  subscribeToErrors(form);
  const hydrated = useHydrated();
  const busyIntent = useBusyIntent();
  const [confirming, setConfirming] = useState(false);
  const confirmRef = useRef<HTMLDivElement>(null);
  const startRef = useRef<HTMLButtonElement>(null);
  const showConfirm = confirming || confirmFromServer;
  const wasShown = useRef(showConfirm);

  useEffect(() => setConfirming(confirmFromServer), [confirmFromServer]);
  useEffect(() => {
    if (showConfirm && !wasShown.current) confirmRef.current?.focus();
    if (!showConfirm && wasShown.current) startRef.current?.focus();
    wasShown.current = showConfirm;
  }, [showConfirm]);

  return (
    <Section id="delete-heading" title={t("profile.deleteTitle")} danger>
      {showConfirm ? (
        <div
          ref={confirmRef}
          tabIndex={-1}
          role="group"
          aria-labelledby="delete-confirm-title"
          aria-describedby="delete-confirm-text"
          className="rounded-lg border border-red-300 bg-red-50 p-4"
        >
          <h3 id="delete-confirm-title" className="font-bold text-red-900">
            {t("profile.deleteConfirmTitle")}
          </h3>
          <p id="delete-confirm-text" className="mt-1 text-red-900">
            {t("profile.deleteConfirmText")} {t("profile.deleteNoticeText", { notice: erasureNotice })}
          </p>
          <Form method="post" {...getFormProps(form)} className="mt-4">
            <input type="hidden" name="intent" value="delete-confirm" />
            <FormError id={form.errorId} errors={form.errors} />
            <div className="mt-2 max-w-sm">
              <PasswordField
                meta={fields.password}
                label={t("profile.deletePasswordLabel")}
                autoComplete="current-password"
              />
            </div>
            {twoStep.enabled && (
              <div className="mt-2 max-w-sm">
                <SecondFactorField meta={fields.proof} />
              </div>
            )}
            <div className="mt-3 flex items-start gap-2">
              <input
                id={fields.immediate.id}
                name={fields.immediate.name}
                type="checkbox"
                className="mt-1 h-4 w-4"
                defaultChecked={fields.immediate.initialValue === "on"}
              />
              <label htmlFor={fields.immediate.id} className="text-red-900">
                {t("profile.deleteNowLabel", { notice: erasureNotice })}
              </label>
            </div>
            <div className="mt-4 flex flex-wrap gap-3">
              <button type="submit" className="btn-danger" disabled={busyIntent === "delete-confirm"}>
                {t("profile.deleteConfirmButton")}
              </button>
              {hydrated ? (
                <button type="button" className="btn-secondary" onClick={() => setConfirming(false)}>
                  {t("common.cancel")}
                </button>
              ) : (
                <Link to={SETTINGS} className="btn-secondary">
                  {t("common.cancel")}
                </Link>
              )}
            </div>
          </Form>
        </div>
      ) : (
        <Form
          method="post"
          onSubmit={(e) => {
            // With JavaScript the confirmation needs no round trip.
            e.preventDefault();
            setConfirming(true);
          }}
        >
          <input type="hidden" name="intent" value="delete" />
          <p className="max-w-prose text-slate-700">{t("profile.deleteText")}</p>
          <button ref={startRef} type="submit" className="btn-danger mt-4">
            {t("profile.deleteButton")}
          </button>
        </Form>
      )}
    </Section>
  );
}

/** The account's browser sessions and API tokens, each revocable (OWASP ASVS V3). */
function SessionsSection() {
  const { t, i18n } = useTranslation();
  const { sessions } = useLoaderData<typeof loader>();
  const others = sessions.filter((s) => !s.current).length;
  return (
    <Section id="sessions-title" title={t("profile.sessionsTitle")}>
      <p className="text-slate-700">{t("profile.sessionsIntro")}</p>
      <ul className="mt-4 divide-y divide-slate-200 rounded-lg border border-slate-200">
        {sessions.map((s) => (
          <li key={s.id} className="flex flex-wrap items-center gap-3 p-3">
            <div className="min-w-0 flex-1">
              <p className="font-semibold">
                {s.kind === "api" ? t("profile.sessionApi") : t("profile.sessionWeb")}
                {s.current && (
                  <span className="ml-2 rounded bg-green-100 px-2 py-0.5 text-xs font-bold text-green-800">
                    {t("profile.sessionCurrent")}
                  </span>
                )}
              </p>
              <p className="truncate text-sm text-slate-600" title={s.userAgent ?? undefined}>
                {s.userAgent || t("profile.unknownDevice")}
              </p>
              <p className="text-sm text-slate-600">
                {t("profile.sessionCreated", { date: formatDateTime(s.createdAt, i18n.language) })} ·{" "}
                {t("profile.sessionLastUsed", { date: formatDateTime(s.lastSeenAt, i18n.language) })}
              </p>
            </div>
            {!s.current && (
              <Form method="post">
                <input type="hidden" name="intent" value="revoke-session" />
                <input type="hidden" name="sessionId" value={s.id} />
                <button type="submit" className="btn-secondary text-sm">
                  {t("profile.revoke")}
                </button>
              </Form>
            )}
          </li>
        ))}
      </ul>
      {others > 0 && (
        <Form method="post" className="mt-4">
          <input type="hidden" name="intent" value="revoke-others" />
          <button type="submit" className="btn-secondary">
            {t("profile.revokeOthers")}
          </button>
        </Form>
      )}
    </Section>
  );
}

const NOTIFY_LABELS = {
  email: "profile.notifyEmail",
  sms: "profile.notifySms",
  both: "profile.notifyBoth",
} as const;

/** Experts and admins: notifications by e-mail, SMS or both (issue 13). */
function NotifySection({ lastResult }: { lastResult?: SubmissionResult<string[]> }) {
  const { t } = useTranslation();
  const { notify } = useLoaderData<typeof loader>();
  const busy = useBusyIntent() === "notify";
  const [form, fields] = useForm({
    id: "notify-form",
    lastResult,
    defaultValue: { notify: notify?.channel ?? "email" },
    onValidate: ({ formData }) => parseFormData(formData, { schema: notifySchema }),
    shouldValidate: "onSubmit",
  });
  subscribeToErrors(form);
  const chosen = (fields.notify.initialValue as string | undefined) ?? "email";
  return (
    <Section id="notify-heading" title={t("profile.notifyTitle")}>
      <Form method="post" {...getFormProps(form)} aria-labelledby="notify-heading">
        <input type="hidden" name="intent" value="notify" />
        <FormError id={form.errorId} errors={form.errors} />
        <fieldset aria-describedby="notify-hint">
          <legend className="field-label">{t("profile.notifyLegend")}</legend>
          <p id="notify-hint" className="mb-2 text-sm text-slate-600">
            {notify?.mobile
              ? t("profile.notifyHint", { mobile: notify.mobile })
              : t("profile.notifyNoMobile")}
          </p>
          <div className="flex flex-wrap gap-x-6 gap-y-1">
            {(["email", "sms", "both"] as const).map((c) => (
              <label key={c} className="flex min-h-11 items-center gap-2">
                <input
                  type="radio"
                  name={fields.notify.name}
                  value={c}
                  defaultChecked={chosen === c}
                  className="h-5 w-5"
                />
                {t(NOTIFY_LABELS[c])}
              </label>
            ))}
          </div>
        </fieldset>
        <div className="mt-5 flex justify-end">
          <button type="submit" className="btn-primary" disabled={busy}>
            {busy ? t("profile.saving") : t("profile.save")}
          </button>
        </div>
      </Form>
    </Section>
  );
}

/** Issue 14: consents, correction and erasure requests, nominee and grievance officer live on My data. */
function MyDataLink() {
  const { t } = useTranslation();
  return (
    <Section id="my-data-heading" title={t("rights.settingsTitle")}>
      <p className="max-w-prose text-slate-700">{t("rights.settingsText")}</p>
      <Link to="/dashboard/my-data" className="btn-secondary mt-4">
        {t("rights.settingsLink")}
      </Link>
    </Section>
  );
}

export default function Settings() {
  const { t } = useTranslation();
  const actionData = useActionData<typeof action>();
  const loaded = useLoaderData<typeof loader>();
  const expertShown = loaded.expert !== null;
  const notifyShown = loaded.notify !== null;
  const location = useLocation();
  const isPatient =
    useRouteLoaderData<typeof dashboardLoader>("routes/dashboard")?.user.accountType === "Patient";
  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-bold text-slate-900 sm:text-3xl">{t("profile.settings")}</h1>
      <PictureSection
        serverError={actionData?.intent === "picture" ? actionData.error : undefined}
        serverValues={actionData?.intent === "picture" ? actionData.values : undefined}
      />
      <ProfileSection lastResult={actionData?.intent === "profile" ? actionData.result : undefined} />
      {expertShown && (
        <ExpertSection lastResult={actionData?.intent === "expert-details" ? actionData.result : undefined} />
      )}
      {notifyShown && (
        <NotifySection lastResult={actionData?.intent === "notify" ? actionData.result : undefined} />
      )}
      {/* Remounted after each submission so a changed password never stays in the inputs. */}
      <PasswordSection
        key={location.key}
        lastResult={actionData?.intent === "password" ? actionData.result : undefined}
      />
      <TwoStepSection status={loaded.twoStep} />
      <SessionsSection />
      <MyDataLink />
      <DeleteSection
        confirmFromServer={actionData?.intent === "delete"}
        lastResult={actionData?.intent === "delete" ? actionData.result : undefined}
      />
      {/* Issue 14: patients download everything the service keeps about them (a plain link). */}
      {isPatient && <DownloadMyData />}
    </div>
  );
}
