import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseFormData } from "~/schemas/strict";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useLocation, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { LocalDate, useDateText } from "~/components/reports/LocalDate";
import { PageHeader } from "~/components/reports/PageHeader";
import { formatPeriod } from "~/components/rights/format";
import {
  REQUEST_STATUS_KEYS,
  REQUEST_STATUS_TONES,
  REQUEST_TYPE_KEYS,
  StatusPill,
} from "~/components/rights/StatusPill";
import { TextAreaField, TextField } from "~/components/ui/Field";
import { FormError } from "~/components/ui/FormError";
import { SecondFactorField } from "~/components/AccountFields";
import { PasswordField } from "~/components/ui/PasswordField";
import { config } from "~/config.server";
import {
  changeConsent,
  consentOverview,
  type ConsentState,
  cancelErasure,
  getNominee,
  grievanceContact,
  listOwnRequests,
  openErasureOf,
  removeNominee,
  requestCorrection,
  requestErasure,
  setNominee,
} from "~/domain/rights/index.server";
import { HTTP_STATUS, isDomainError } from "~/domain/platform/errors";
import { tFor } from "~/i18n/i18n.server";
import {
  CONSENT_TEXTS,
  consentChangeSchema,
  CORRECTION_MAX,
  correctionSchema,
  erasureFormSchema,
  NOMINEE_CONTACT_MAX,
  NOMINEE_NAME_MAX,
  NOMINEE_RELATIONSHIP_MAX,
  nomineeSchema,
} from "~/schemas/rights";
import { formSchema } from "~/schemas/strict";
import { site } from "~/site";
import { MY_DATA_DOWNLOAD_PATH } from "~/components/DownloadMyData";
import { requireActor } from "~/utils/auth.server";
import { DEFAULT_TIME_ZONE, formatDateTime } from "~/utils/format";
import { readForm } from "~/utils/forms.server";
import { proofFromText } from "~/schemas/two-factor";
import { twoFactorStatus } from "~/domain/accounts/index.server";
import { guardForm } from "~/utils/guard.server";
import { clientOf } from "~/utils/request.server";
import { redirectWithError, redirectWithSuccess } from "~/utils/toast.server";

/**
 * My data (issue 14): consents with the text shown and its version, correction requests and
 * their answers, erasure with notice and cancel, the nominee, the grievance officer, and the way to
 * the data download. Every form is a plain POST with an intent, so all of it works without
 * JavaScript; the rules are in the domain (consent.server.ts, rights.server.ts).
 */

const MY_DATA = "/dashboard/my-data";

export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireActor(request);
  const { t, locale } = await tFor(request);
  const patient = actor.accountType === "Patient";
  const c = config();
  return {
    title: t("rights.title"),
    patient,
    consents: patient ? await consentOverview(actor, locale) : null,
    requests: await listOwnRequests(actor),
    erasure: await openErasureOf(actor.id),
    // Issue 19: with two-step login on, the erasure asks for a code too.
    twoStep: (await twoFactorStatus(actor)).enabled,
    nominee: await getNominee(actor),
    grievance: grievanceContact(),
    notice: formatPeriod(c.erasureNoticeMs, locale),
    retention: formatPeriod(c.auditRetentionMs, locale),
    confirm: new URL(request.url).searchParams.get("confirm") === "review",
  };
}

export const meta: MetaFunction<typeof loader> = ({ data, matches }) => [
  ...(matches.find((m) => m.id === "root")?.meta ?? []).filter((m) => !("title" in m)),
  { title: data ? `${data.title} | ${site.productName}` : site.productName },
];

type Intent = "correction" | "erasure" | "nominee";

export async function action({ request, context }: ActionFunctionArgs) {
  await guardForm(request);
  const actor = await requireActor(request);
  const { t, locale } = await tFor(request);
  const client = clientOf(context);
  const formData = await readForm(request);
  const intent = String(formData.get("intent") ?? "");
  const fail = (err: unknown, hash: string) => {
    if (!isDomainError(err)) throw err;
    return redirectWithError(`${MY_DATA}#${hash}`, t(err.message, err.extra.values ?? {}));
  };
  /** A form's answer with its errors (400, or the domain error's status). */
  const reply = (i: Intent, result: SubmissionResult<string[]>, status = 400) =>
    data({ intent: i, result }, { status });

  if (intent === "consent") {
    const parsed = formSchema(consentChangeSchema).safeParse({
      purpose: formData.get("purpose"),
      granted: formData.get("granted"),
    });
    if (!parsed.success) return redirectWithError(`${MY_DATA}#consents`, t("rights.purposeInvalid"));
    try {
      const after = await changeConsent(actor, parsed.data, { via: "settings", locale, ip: client.ip });
      const key = parsed.data.granted
        ? "rights.consentGiven"
        : after.withdrawnReports
          ? "rights.consentWithdrawnReports"
          : "rights.consentWithdrawn";
      return redirectWithSuccess(
        `${MY_DATA}#consent-${parsed.data.purpose}`,
        t(key, { reports: after.withdrawnReports ?? 0 }),
      );
    } catch (err) {
      return fail(err, "consents");
    }
  }

  if (intent === "correction") {
    const submission = parseFormData(formData, { schema: correctionSchema });
    if (submission.status !== "success") return reply("correction", submission.reply());
    try {
      await requestCorrection(actor, submission.value, { ip: client.ip });
    } catch (err) {
      if (!isDomainError(err)) throw err;
      return reply(
        "correction",
        submission.reply({ formErrors: [t(err.message, err.extra.values ?? {})] }),
        HTTP_STATUS[err.code],
      );
    }
    return redirectWithSuccess(`${MY_DATA}#requests`, t("rights.correctionSent"));
  }

  if (intent === "erasure") {
    const submission = parseFormData(formData, { schema: erasureFormSchema });
    if (submission.status !== "success")
      return reply("erasure", submission.reply({ hideFields: ["password", "proof"] }));
    try {
      const { password, proof } = submission.value;
      const req = await requestErasure(actor, { password, ...proofFromText(proof ?? "") }, client);
      return redirectWithSuccess(
        `${MY_DATA}#erasure`,
        t("rights.erasureRequested", { date: formatDateTime(req.dueAt!, locale, DEFAULT_TIME_ZONE) }),
      );
    } catch (err) {
      if (!isDomainError(err)) throw err;
      const status = HTTP_STATUS[err.code];
      // The second factor is one field here (a code or a recovery code).
      const { code, recoveryCode, ...rest } = err.extra.fieldErrors ?? {};
      const proofErrors = code ?? recoveryCode;
      const result = err.extra.fieldErrors
        ? submission.reply({
            fieldErrors: proofErrors ? { ...rest, proof: proofErrors } : rest,
            hideFields: ["password", "proof"],
          })
        : submission.reply({
            formErrors: [t(err.message, err.extra.values ?? {})],
            hideFields: ["password", "proof"],
          });
      const headers: Record<string, string> = err.extra.retryAfterSeconds
        ? { "Retry-After": String(err.extra.retryAfterSeconds) }
        : {};
      return data({ intent: "erasure" as Intent, result }, { status, headers });
    }
  }

  if (intent === "cancel-erasure") {
    try {
      await cancelErasure(actor, {}, { ip: client.ip });
    } catch (err) {
      return fail(err, "erasure");
    }
    return redirectWithSuccess(`${MY_DATA}#erasure`, t("rights.erasureCancelled"));
  }

  if (intent === "nominee") {
    const submission = parseFormData(formData, { schema: nomineeSchema });
    if (submission.status !== "success") return reply("nominee", submission.reply());
    await setNominee(actor, submission.value, { ip: client.ip });
    return redirectWithSuccess(`${MY_DATA}#nominee`, t("rights.nomineeSaved"));
  }

  if (intent === "remove-nominee") {
    try {
      await removeNominee(actor, { ip: client.ip });
    } catch (err) {
      return fail(err, "nominee");
    }
    return redirectWithSuccess(`${MY_DATA}#nominee`, t("rights.nomineeRemoved"));
  }

  return redirectWithError(MY_DATA, t("rights.unknownAction"));
}

type LoaderData = ReturnType<typeof useLoaderData<typeof loader>>;

function useBusy(intent: string) {
  const navigation = useNavigation();
  return (
    navigation.state === "submitting" &&
    !!navigation.formAction?.startsWith(MY_DATA) &&
    navigation.formData?.get("intent") === intent
  );
}

/**
 * Conform re-renders a form only for the state its last render read; reading every error in the
 * component that owns useForm keeps the first submit's errors showing (see dashboard.settings).
 */
function subscribeToErrors(form: { allErrors: unknown }) {
  void form.allErrors;
}

function Section({
  id,
  title,
  intro,
  danger,
  children,
}: {
  id: string;
  title: string;
  intro?: string;
  danger?: boolean;
  children: React.ReactNode;
}) {
  return (
    <section
      id={id}
      aria-labelledby={`${id}-title`}
      className={`card scroll-mt-4 ${danger ? "border-red-300" : ""}`}
    >
      <h2 id={`${id}-title`} className={`text-xl font-bold ${danger ? "text-red-800" : "text-slate-900"}`}>
        {title}
      </h2>
      {intro && <p className="mt-1 max-w-prose text-slate-700">{intro}</p>}
      <div className="mt-4">{children}</div>
    </section>
  );
}

const VIA_KEYS: Record<string, string> = {
  upload: "rights.viaUpload",
  settings: "rights.viaSettings",
  api: "rights.viaApi",
};

function ConsentCard({ state, effect }: { state: ConsentState; effect: LoaderData["consents"] }) {
  const { t } = useTranslation();
  const { confirm } = useLoaderData<typeof loader>();
  const location = useLocation();
  const busy = useBusy("consent");
  const { dateTime } = useDateText();
  const purpose = state.purpose;
  const pending = effect?.withdrawEffect.pendingReports ?? 0;
  const reviewed = effect?.withdrawEffect.reviewedReports ?? 0;
  const id = `consent-${purpose}`;
  const via = state.via ? t(VIA_KEYS[state.via] ?? "rights.viaSettings") : "";
  let status: { tone: "green" | "amber" | "grey"; label: string };
  if (state.granted) status = { tone: "green", label: t("rights.statusGiven") };
  else if (state.recorded) status = { tone: "amber", label: t("rights.statusWithdrawn") };
  else status = { tone: "grey", label: t("rights.statusNotGiven") };

  let since: string;
  if (state.recorded && state.at)
    since = t(state.granted ? "rights.givenOn" : "rights.withdrawnOn", { date: dateTime(state.at), via });
  else if (purpose === "review" && state.granted && state.at)
    since = t("rights.givenOn", { date: dateTime(state.at), via });
  else
    since = t(
      purpose === "contact"
        ? "rights.defaultContact"
        : purpose === "statistics"
          ? "rights.defaultStatistics"
          : "rights.defaultReview",
    );

  const effectText =
    purpose === "review"
      ? pending > 0
        ? t("rights.effectReview", { pending, reviewed })
        : t("rights.effectReviewNone")
      : purpose === "contact"
        ? t("rights.effectContact")
        : t("rights.effectStatistics");

  // Withdrawing review consent deletes waiting reports: that step asks once more (?confirm=review).
  const needsConfirm = purpose === "review" && state.granted && pending > 0;
  const confirming = needsConfirm && confirm;
  const confirmHref = `${location.pathname}?confirm=review#${id}`;

  return (
    <article
      id={id}
      aria-labelledby={`${id}-title`}
      className="scroll-mt-4 rounded-lg border border-slate-200 p-3 sm:p-4"
    >
      <div className="flex flex-wrap items-start justify-between gap-2">
        <h3 id={`${id}-title`} className="min-w-0 text-lg font-bold text-slate-900">
          {t(CONSENT_TEXTS[purpose].titleKey)}
        </h3>
        <StatusPill tone={status.tone}>{status.label}</StatusPill>
      </div>
      <blockquote className="mt-2 border-l-4 border-slate-300 pl-3 text-slate-800">{state.text}</blockquote>
      <p className="mt-1 text-sm text-slate-600">
        {t("rights.textVersion", { version: state.currentTextVersion })}
      </p>
      <p className="mt-2 text-sm text-slate-700">{since}</p>
      {state.outdated && <p className="mt-2 text-sm font-semibold text-amber-900">{t("rights.outdated")}</p>}
      <p id={`${id}-effect`} className="mt-3 rounded-lg bg-slate-50 p-3 text-sm text-slate-800">
        {effectText}
      </p>
      {confirming ? (
        <div
          role="alertdialog"
          aria-labelledby={`${id}-confirm-title`}
          aria-describedby={`${id}-effect`}
          className="mt-3 rounded-lg border border-red-300 bg-red-50 p-4"
        >
          <p id={`${id}-confirm-title`} className="font-bold text-red-900">
            {t("rights.confirmWithdrawTitle")}
          </p>
          <Form method="post" action={MY_DATA} className="mt-3 flex flex-wrap gap-3">
            <input type="hidden" name="intent" value="consent" />
            <input type="hidden" name="purpose" value={purpose} />
            <input type="hidden" name="granted" value="false" />
            <button type="submit" className="btn-danger" disabled={busy}>
              {t("rights.confirmWithdrawButton", { pending })}
            </button>
            <Link to={`${MY_DATA}#${id}`} className="btn-secondary">
              {t("common.cancel")}
            </Link>
          </Form>
        </div>
      ) : needsConfirm ? (
        <Link to={confirmHref} className="btn-secondary mt-3" aria-describedby={`${id}-effect`}>
          {t("rights.withdraw")}
        </Link>
      ) : (
        <Form method="post" action={MY_DATA} className="mt-3">
          <input type="hidden" name="intent" value="consent" />
          <input type="hidden" name="purpose" value={purpose} />
          <input type="hidden" name="granted" value={state.granted && !state.outdated ? "false" : "true"} />
          <button
            type="submit"
            className={state.granted && !state.outdated ? "btn-secondary" : "btn-primary"}
            aria-describedby={`${id}-effect`}
            disabled={busy}
          >
            {state.granted
              ? state.outdated
                ? t("rights.giveAgain")
                : t("rights.withdraw")
              : t("rights.give")}
          </button>
        </Form>
      )}
    </article>
  );
}

function ConsentsSection() {
  const { t } = useTranslation();
  const { consents } = useLoaderData<typeof loader>();
  const { dateTime } = useDateText();
  if (!consents) return null;
  return (
    <Section id="consents" title={t("rights.consentsTitle")} intro={t("rights.consentsIntro")}>
      <div className="space-y-4">
        {consents.consents.map((c) => (
          <ConsentCard key={c.purpose} state={c} effect={consents} />
        ))}
      </div>
      {consents.history.length > 0 && (
        <details className="mt-4">
          <summary className="min-h-11 cursor-pointer py-2 font-semibold text-brand-800">
            {t("rights.historyTitle")}
          </summary>
          <ul className="mt-2 space-y-1 text-sm text-slate-700">
            {consents.history.map((h) => (
              <li key={h._id}>
                {t("rights.historyLine", {
                  date: dateTime(h.createdAt),
                  purpose: t(CONSENT_TEXTS[h.purpose].titleKey),
                  choice: t(h.granted ? "rights.statusGiven" : "rights.statusWithdrawn"),
                  version: h.textVersion,
                  via: t(VIA_KEYS[h.via] ?? "rights.viaSettings"),
                })}
              </li>
            ))}
          </ul>
        </details>
      )}
    </Section>
  );
}

function CorrectionForm({ lastResult }: { lastResult?: SubmissionResult<string[]> }) {
  const { t } = useTranslation();
  const busy = useBusy("correction");
  const [form, fields] = useForm({
    id: "correction-form",
    lastResult,
    onValidate: ({ formData }) => parseFormData(formData, { schema: correctionSchema }),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
  });
  subscribeToErrors(form);
  return (
    <Form method="post" action={MY_DATA} {...getFormProps(form)} aria-labelledby="correction-title">
      <h3 id="correction-title" className="text-lg font-bold text-slate-900">
        {t("rights.correctionTitle")}
      </h3>
      <p className="mt-1 mb-3 max-w-prose text-slate-700">{t("rights.correctionIntro")}</p>
      <input type="hidden" name="intent" value="correction" />
      <FormError id={form.errorId} errors={form.errors} />
      <TextAreaField
        meta={fields.details}
        label={t("rights.correctionLabel")}
        required
        maxLength={CORRECTION_MAX}
      />
      <p className="mt-1 text-sm text-slate-600">{t("rights.correctionHint", { max: CORRECTION_MAX })}</p>
      <div className="mt-3 flex justify-end">
        <button type="submit" className="btn-primary" disabled={busy}>
          {busy ? t("rights.sending") : t("rights.correctionSubmit")}
        </button>
      </div>
    </Form>
  );
}

function RequestsSection({ lastResult }: { lastResult?: SubmissionResult<string[]> }) {
  const { t } = useTranslation();
  const { requests } = useLoaderData<typeof loader>();
  const location = useLocation();
  const { dateTime } = useDateText();
  return (
    <Section id="requests" title={t("rights.requestsTitle")}>
      <CorrectionForm key={location.key} lastResult={lastResult} />
      <h3 className="mt-6 text-lg font-bold text-slate-900">{t("rights.yourRequests")}</h3>
      {requests.length === 0 ? (
        <p className="mt-2 text-slate-700">{t("rights.noRequests")}</p>
      ) : (
        <ul className="mt-2 space-y-3">
          {requests.map((r) => (
            <li key={r._id} className="rounded-lg border border-slate-200 p-3" data-request={r._id}>
              <div className="flex flex-wrap items-center justify-between gap-2">
                <p className="font-semibold">{t(REQUEST_TYPE_KEYS[r.type])}</p>
                <StatusPill tone={REQUEST_STATUS_TONES[r.status]}>
                  {t(REQUEST_STATUS_KEYS[r.status])}
                </StatusPill>
              </div>
              <p className="text-sm text-slate-600">
                {t("rights.askedOn", { date: dateTime(r.createdAt) })}
                {r.type === "erasure" && r.status === "open" && r.dueAt
                  ? ` · ${t("rights.dueOn", { date: dateTime(r.dueAt) })}`
                  : ""}
              </p>
              {r.details && (
                <p className="mt-2 break-words whitespace-pre-line text-slate-800">{r.details}</p>
              )}
              {r.response && (
                <div className="mt-2 rounded-lg bg-brand-50 p-3">
                  <p className="text-sm font-semibold text-brand-800">
                    {t("rights.answerLabel")}
                    {r.resolvedAt && (
                      <>
                        {" · "}
                        <LocalDate iso={r.resolvedAt} withTime />
                      </>
                    )}
                  </p>
                  <p className="mt-1 break-words whitespace-pre-line text-slate-900">{r.response}</p>
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}

function ErasureSection({ lastResult }: { lastResult?: SubmissionResult<string[]> }) {
  const { t } = useTranslation();
  const { erasure, notice, retention, twoStep } = useLoaderData<typeof loader>();
  const busy = useBusy("erasure");
  const cancelling = useBusy("cancel-erasure");
  const { dateTime } = useDateText();
  const [form, fields] = useForm({
    id: "erasure-form",
    lastResult,
    onValidate: ({ formData }) => parseFormData(formData, { schema: erasureFormSchema }),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
  });
  subscribeToErrors(form);
  return (
    <Section id="erasure" title={t("rights.erasureTitle")} danger>
      {erasure ? (
        <div role="status" className="rounded-lg border border-red-300 bg-red-50 p-4 text-red-950">
          <p className="font-bold">{t("rights.erasurePending", { date: dateTime(erasure.dueAt!) })}</p>
          <p className="mt-1">{t("rights.erasurePendingText")}</p>
          <Form method="post" action={MY_DATA} className="mt-3">
            <input type="hidden" name="intent" value="cancel-erasure" />
            <button type="submit" className="btn-primary" disabled={cancelling}>
              {t("rights.erasureCancelButton")}
            </button>
          </Form>
        </div>
      ) : (
        <Form method="post" action={MY_DATA} {...getFormProps(form)} aria-labelledby="erasure-title">
          <p className="max-w-prose text-slate-700">{t("rights.erasureText", { notice })}</p>
          <p className="mt-2 max-w-prose text-sm text-slate-600">{t("rights.erasureKept", { retention })}</p>
          <input type="hidden" name="intent" value="erasure" />
          <div className="mt-3">
            <FormError id={form.errorId} errors={form.errors} />
          </div>
          <div className="mt-2 max-w-sm">
            <PasswordField meta={fields.password} label={t("rights.erasurePassword")} />
          </div>
          {twoStep && (
            <div className="mt-2 max-w-sm">
              <SecondFactorField meta={fields.proof} />
            </div>
          )}
          <button type="submit" className="btn-danger mt-4" disabled={busy}>
            {t("rights.erasureButton", { notice })}
          </button>
        </Form>
      )}
    </Section>
  );
}

function NomineeSection({ lastResult }: { lastResult?: SubmissionResult<string[]> }) {
  const { t } = useTranslation();
  const { nominee } = useLoaderData<typeof loader>();
  const busy = useBusy("nominee");
  const [form, fields] = useForm({
    id: "nominee-form",
    lastResult,
    defaultValue: nominee
      ? { name: nominee.name, relationship: nominee.relationship, contact: nominee.contact }
      : undefined,
    onValidate: ({ formData }) => parseFormData(formData, { schema: nomineeSchema }),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
  });
  subscribeToErrors(form);
  return (
    <Section id="nominee" title={t("rights.nomineeTitle")} intro={t("rights.nomineeIntro")}>
      {!nominee && <p className="mb-3 text-slate-700">{t("rights.noNomineeYet")}</p>}
      <Form method="post" action={MY_DATA} {...getFormProps(form)} aria-labelledby="nominee-title">
        <input type="hidden" name="intent" value="nominee" />
        <FormError id={form.errorId} errors={form.errors} />
        <div className="grid gap-4 sm:grid-cols-2">
          <TextField
            meta={fields.name}
            label={t("rights.nomineeName")}
            required
            autoComplete="off"
            maxLength={NOMINEE_NAME_MAX}
          />
          <TextField
            meta={fields.relationship}
            label={t("rights.nomineeRelationship")}
            autoComplete="off"
            maxLength={NOMINEE_RELATIONSHIP_MAX}
          />
          <div className="sm:col-span-2">
            <TextField
              meta={fields.contact}
              label={t("rights.nomineeContact")}
              required
              autoComplete="off"
              inputMode="email"
              maxLength={NOMINEE_CONTACT_MAX}
            />
          </div>
        </div>
        <div className="mt-4 flex flex-wrap justify-end gap-3">
          <button type="submit" className="btn-primary" disabled={busy}>
            {busy ? t("rights.sending") : t("rights.nomineeSave")}
          </button>
        </div>
      </Form>
      {nominee && (
        <Form method="post" action={MY_DATA} className="mt-3 flex justify-end">
          <input type="hidden" name="intent" value="remove-nominee" />
          <button type="submit" className="btn-secondary">
            {t("rights.nomineeRemove")}
          </button>
        </Form>
      )}
    </Section>
  );
}

function GrievanceSection() {
  const { t } = useTranslation();
  const { grievance } = useLoaderData<typeof loader>();
  return (
    <Section id="grievance" title={t("rights.grievanceTitle")} intro={t("rights.grievanceText")}>
      <dl className="grid gap-x-4 gap-y-1 sm:grid-cols-[auto_1fr]">
        <dt className="font-semibold text-slate-700">{t("rights.grievanceName")}</dt>
        <dd className="break-words">{grievance.name}</dd>
        <dt className="font-semibold text-slate-700">{t("rights.grievanceEmail")}</dt>
        <dd className="break-all">
          <a className="link" href={`mailto:${grievance.email}`}>
            {grievance.email}
          </a>
        </dd>
        <dt className="font-semibold text-slate-700">{t("rights.grievancePhone")}</dt>
        <dd>
          <a className="link" href={`tel:${grievance.phone.replace(/[^\d+]/g, "")}`}>
            {grievance.phone}
          </a>
        </dd>
      </dl>
      <p className="mt-3 max-w-prose text-sm text-slate-600">{t("rights.grievanceBoard")}</p>
    </Section>
  );
}

export default function MyData() {
  const { t } = useTranslation();
  const { patient } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const location = useLocation();
  const resultFor = (i: Intent) => (actionData?.intent === i ? actionData.result : undefined);
  const jumps = [
    ...(patient ? [["consents", t("rights.consentsTitle")]] : []),
    ["requests", t("rights.requestsTitle")],
    ["nominee", t("rights.nomineeTitle")],
    ["grievance", t("rights.grievanceTitle")],
    ["erasure", t("rights.erasureTitle")],
  ];
  return (
    <div className="space-y-6">
      <PageHeader title={t("rights.title")} intro={t("rights.intro")} />
      <nav aria-label={t("rights.jumpTo")}>
        <ul className="flex flex-wrap gap-2">
          {jumps.map(([id, label]) => (
            <li key={id}>
              <a
                href={`#${id}`}
                className="inline-flex min-h-11 items-center rounded-full border border-slate-300 bg-white px-3 text-sm font-semibold text-slate-800 hover:bg-slate-100"
              >
                {label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {/* The data download (FHIR bundle and files in a ZIP): a patient's own data only. */}
      {patient && (
        <section
          aria-labelledby="download-title"
          className="card flex flex-wrap items-center justify-between gap-3"
        >
          <div className="min-w-0">
            <h2 id="download-title" className="text-xl font-bold text-slate-900">
              {t("rights.downloadTitle")}
            </h2>
            <p className="mt-1 max-w-prose text-slate-700">{t("rights.downloadText")}</p>
          </div>
          <a href={MY_DATA_DOWNLOAD_PATH} className="btn-secondary" data-download-my-data>
            {t("rights.downloadButton")}
          </a>
        </section>
      )}
      {patient && <ConsentsSection />}
      <RequestsSection lastResult={resultFor("correction")} />
      <NomineeSection lastResult={resultFor("nominee")} />
      <GrievanceSection />
      <ErasureSection key={`erasure-${location.key}`} lastResult={resultFor("erasure")} />
    </div>
  );
}
