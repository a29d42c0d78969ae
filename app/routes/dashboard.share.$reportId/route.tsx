import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseFormData } from "~/schemas/strict";
import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useLocation, useNavigation } from "@remix-run/react";
import { useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { useDateText } from "~/components/reports/LocalDate";
import { screenMeta } from "~/components/reports/meta";
import { NotAllowed } from "~/components/reports/NotAllowed";
import { PageHeader } from "~/components/reports/PageHeader";
import { useReportTypeLabel } from "~/components/reports/ReportTypeSelect";
import { pageError } from "~/utils/screen.server";
import { StatusBadge } from "~/components/reports/StatusBadge";
import { useHydrated } from "~/components/reports/useHydrated";
import { FieldError, TextField } from "~/components/ui/Field";
import { FormError } from "~/components/ui/FormError";
import { HTTP_STATUS, isDomainError } from "~/domain/platform/errors";
import {
  createShareLink,
  revokeShareLink,
  shareScreen,
  type ApiShareLink,
} from "~/domain/sharing/index.server";
import { tFor } from "~/i18n/i18n.server";
import {
  createShareLinkFormSchema,
  SHARE_DAYS_DEFAULT,
  SHARE_DAYS_MAX,
  SHARE_LABEL_MAX,
  SHARE_MAX_OPENS_MAX,
  SHARE_PASSCODE_MAX,
  shareFormClientSchema,
} from "~/schemas/share-links";
import { requireActor } from "~/utils/auth.server";
import { readForm } from "~/utils/forms.server";
import { guardForm } from "~/utils/guard.server";
import { clientOf } from "~/utils/request.server";
import { redirectWithError, redirectWithSuccess } from "~/utils/toast.server";

/**
 * "Share with a doctor" (issue 14): the patient makes a private link to one of their reports for
 * a doctor without an account, sees it once, and keeps the list of the report's links with their
 * state, opens and a Revoke button. Works without JavaScript (the copy button is an extra).
 */

export async function loader({ request, params }: LoaderFunctionArgs) {
  const actor = await requireActor(request);
  const { t } = await tFor(request);
  const title = t("share.title");
  if (actor.accountType !== "Patient") {
    return data({ title, notAllowed: t("share.patientsOnly") }, { status: 403 });
  }
  let screen: Awaited<ReturnType<typeof shareScreen>>;
  try {
    screen = await shareScreen(actor, params.reportId ?? "");
  } catch (err) {
    pageError(err); // someone else's report and an unknown id look the same: not found
  }
  return {
    title,
    notAllowed: null,
    ...screen,
    reportsPath: `/dashboard/previous-report/${encodeURIComponent(actor.id)}`,
  };
}

export const meta: MetaFunction<typeof loader> = screenMeta;

type Created = { url: string; expiresAt: string; passcode: boolean; label: string };
type ActionData = { result: SubmissionResult<string[]>; created?: Created };

export async function action({ request, params, context }: ActionFunctionArgs) {
  await guardForm(request);
  const actor = await requireActor(request);
  const { t } = await tFor(request);
  const reportId = params.reportId ?? "";
  const here = `/dashboard/share/${encodeURIComponent(reportId)}`;
  const form = await readForm(request);

  if (form.get("intent") === "revoke") {
    try {
      await revokeShareLink(actor, String(form.get("linkId") ?? ""), { ip: clientOf(context).ip });
    } catch (err) {
      if (!isDomainError(err)) throw err;
      return redirectWithError(`${here}#links`, t(err.message));
    }
    return redirectWithSuccess(`${here}#links`, t("share.revoked"));
  }

  form.set("reportId", reportId);
  const submission = parseFormData(form, { schema: createShareLinkFormSchema });
  // The passcode is never sent back into the page.
  const hide = { hideFields: ["passcode"] };
  if (submission.status !== "success") {
    return data<ActionData>(
      { result: submission.reply({ ...hide, formErrors: [t("share.createFailed")] }) },
      { status: 400 },
    );
  }
  try {
    const link = await createShareLink(actor, Object.fromEntries(form), {
      form: true,
      client: clientOf(context),
    });
    return data<ActionData>(
      {
        result: submission.reply({ resetForm: true }),
        created: { url: link.url, expiresAt: link.expiresAt, passcode: link.passcode, label: link.label },
      },
      { status: 201 },
    );
  } catch (err) {
    if (!isDomainError(err)) throw err;
    return data<ActionData>(
      {
        result: submission.reply({
          ...hide,
          formErrors: [t(err.message, err.extra.values ?? {})],
          fieldErrors: err.extra.fieldErrors,
        }),
      },
      { status: HTTP_STATUS[err.code] },
    );
  }
}

type Loaded = Exclude<ReturnType<typeof useLoaderData<typeof loader>>, { notAllowed: string }>;

export default function ShareReport() {
  const { t } = useTranslation();
  const loaded = useLoaderData<typeof loader>();
  if (loaded.notAllowed !== null) return <NotAllowed title={t("share.title")} message={loaded.notAllowed} />;
  return <ShareScreen {...(loaded as Loaded)} />;
}

function ShareScreen({ report, links, reportsPath }: Loaded) {
  const { t } = useTranslation();
  const dates = useDateText();
  const typeLabel = useReportTypeLabel();
  const actionData = useActionData<typeof action>() as ActionData | undefined;
  return (
    <section>
      <PageHeader title={t("share.title")} intro={t("share.intro")}>
        <Link to={reportsPath} className="btn-secondary">
          {t("share.backToReports")}
        </Link>
      </PageHeader>
      <p className="mb-5 flex flex-wrap items-center gap-x-3 gap-y-1" data-testid="share-report">
        <span className="text-lg font-bold text-slate-900">{typeLabel(report.reportType)}</span>
        <span className="text-slate-600">
          <time dateTime={report.createdAt}>
            {t("reports.submittedOn", { date: dates.day(report.createdAt) })}
          </time>
        </span>
        <StatusBadge status={report.status} forPatient />
      </p>
      <div className="grid gap-5 lg:grid-cols-[minmax(0,1fr)_minmax(0,1fr)]">
        <div className="min-w-0 space-y-5">
          {actionData?.created && <NewLink created={actionData.created} />}
          <CreateForm reviewed={report.status === "Reviewed"} lastResult={actionData?.result} />
        </div>
        <LinkList links={links} />
      </div>
    </section>
  );
}

/** The new link, shown this once: selectable text without JavaScript, a copy (and send) button with it. */
function NewLink({ created }: { created: Created }) {
  const { t } = useTranslation();
  const dates = useDateText();
  const hydrated = useHydrated();
  const input = useRef<HTMLTextAreaElement>(null);
  const [state, setState] = useState<"" | "copied" | "failed">("");
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(created.url);
      setState("copied");
    } catch {
      input.current?.select();
      let ok = false;
      try {
        ok = document.execCommand("copy");
      } catch {
        ok = false;
      }
      setState(ok ? "copied" : "failed");
    }
  };
  const canSend = hydrated && typeof navigator !== "undefined" && typeof navigator.share === "function";
  return (
    <section
      aria-labelledby="new-link-title"
      className="rounded-xl border-2 border-green-600 bg-green-50 p-5"
      data-testid="new-link"
    >
      <h2 id="new-link-title" className="text-lg font-bold text-green-900">
        {t("share.created")}
      </h2>
      <p className="mt-1 text-green-950">{t("share.createdHint")}</p>
      <label htmlFor="new-link-url" className="field-label mt-3">
        {t("share.linkLabel")}
      </label>
      {/* The whole link, wrapped and selectable (a long press selects it on a phone without JavaScript). */}
      <textarea
        ref={input}
        id="new-link-url"
        readOnly
        rows={2}
        value={created.url}
        onFocus={(e) => e.currentTarget.select()}
        className="field-input resize-none font-mono text-sm break-all"
        data-testid="new-link-url"
      />
      <p className="mt-2 text-sm text-green-950">
        {t("share.worksUntil", { date: dates.dateTime(created.expiresAt) })}
      </p>
      {created.passcode && <p className="mt-1 font-semibold text-green-950">{t("share.createdPasscode")}</p>}
      {hydrated && (
        <div className="mt-3 flex flex-wrap gap-3">
          <button type="button" className="btn-primary" onClick={copy}>
            {t("share.copy")}
          </button>
          {canSend && (
            <button
              type="button"
              className="btn-secondary"
              onClick={() => navigator.share({ url: created.url }).catch(() => {})}
            >
              {t("share.send")}
            </button>
          )}
        </div>
      )}
      <p role="status" className="mt-2 text-sm font-semibold text-green-900">
        {state === "copied" ? t("share.copied") : state === "failed" ? t("share.copyFailed") : ""}
      </p>
    </section>
  );
}

function CreateForm({
  reviewed,
  lastResult,
}: {
  reviewed: boolean;
  lastResult?: SubmissionResult<string[]>;
}) {
  const { t } = useTranslation();
  const navigation = useNavigation();
  const { pathname } = useLocation();
  const busy = navigation.state === "submitting" && navigation.formData?.get("intent") === "create";
  const [form, fields] = useForm({
    id: "share-form",
    lastResult,
    defaultValue: {
      includeFile: "on",
      includeOpinion: reviewed ? "on" : "",
      includeLetter: reviewed ? "on" : "",
      expiresInDays: String(SHARE_DAYS_DEFAULT),
    },
    onValidate: ({ formData }) => parseFormData(formData, { schema: shareFormClientSchema }),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
  });
  void form.allErrors; // keep Conform's subscription to every field's errors (see Settings)
  const parts = [
    { meta: fields.includeFile, label: t("share.partFile") },
    { meta: fields.includeOpinion, label: t("share.partOpinion") },
    { meta: fields.includeLetter, label: t("share.partLetter") },
  ];
  const partsError = fields.includeFile.errors?.length ? fields.includeFile : null;
  return (
    <section aria-labelledby="share-form-title" className="card">
      <h2 id="share-form-title" className="text-lg font-bold text-slate-900">
        {t("share.formTitle")}
      </h2>
      <Form
        method="post"
        action={pathname}
        {...getFormProps(form)}
        className="mt-4 space-y-5"
        aria-labelledby="share-form-title"
      >
        <input type="hidden" name="intent" value="create" />
        <FormError id={form.errorId} errors={form.errors} />
        <TextField
          meta={fields.label}
          label={`${t("share.labelLabel")} ${t("common.optional")}`}
          hint={t("share.labelHint")}
          maxLength={SHARE_LABEL_MAX}
          autoComplete="off"
        />
        <fieldset aria-describedby={reviewed ? undefined : "share-parts-hint"}>
          <legend className="field-label">{t("share.partsLegend")}</legend>
          <div className="space-y-1">
            {parts.map(({ meta, label }) => (
              <label key={meta.name} className="flex min-h-11 cursor-pointer items-center gap-3">
                <input
                  type="checkbox"
                  name={meta.name}
                  id={meta.id}
                  defaultChecked={meta.initialValue === "on"}
                  aria-invalid={partsError ? true : undefined}
                  aria-describedby={partsError ? partsError.errorId : undefined}
                  className="h-5 w-5 shrink-0 accent-brand-700"
                />
                <span>{label}</span>
              </label>
            ))}
          </div>
          {!reviewed && (
            <p id="share-parts-hint" className="mt-1 text-sm text-slate-600">
              {t("share.partsPendingHint")}
            </p>
          )}
          <FieldError meta={fields.includeFile} />
        </fieldset>
        <TextField
          meta={fields.expiresInDays}
          label={t("share.daysLabel")}
          hint={t("share.daysHint")}
          type="number"
          inputMode="numeric"
          min={1}
          max={SHARE_DAYS_MAX}
          required
          className="field-input max-w-40"
        />
        <TextField
          meta={fields.maxOpens}
          label={`${t("share.maxOpensLabel")} ${t("common.optional")}`}
          hint={t("share.maxOpensHint")}
          type="number"
          inputMode="numeric"
          min={1}
          max={SHARE_MAX_OPENS_MAX}
          className="field-input max-w-40"
        />
        <TextField
          meta={fields.passcode}
          label={`${t("share.passcodeLabel")} ${t("common.optional")}`}
          hint={t("share.passcodeHint")}
          maxLength={SHARE_PASSCODE_MAX}
          autoComplete="off"
          autoCapitalize="none"
          spellCheck={false}
        />
        <button type="submit" className="btn-primary w-full sm:w-auto" disabled={busy}>
          {busy ? t("share.creating") : t("share.create")}
        </button>
      </Form>
    </section>
  );
}

const STATUS_LOOK: Record<ApiShareLink["status"], { key: string; look: string }> = {
  active: { key: "share.statusActive", look: "border-green-300 bg-green-100 text-green-800" },
  expired: { key: "share.statusExpired", look: "border-slate-300 bg-slate-100 text-slate-800" },
  revoked: { key: "share.statusRevoked", look: "border-slate-300 bg-slate-100 text-slate-800" },
  used_up: { key: "share.statusUsedUp", look: "border-amber-300 bg-amber-100 text-amber-900" },
  locked: { key: "share.statusLocked", look: "border-red-300 bg-red-100 text-red-900" },
};

function LinkList({ links }: { links: ApiShareLink[] }) {
  const { t } = useTranslation();
  return (
    <section aria-labelledby="links" className="card min-w-0 scroll-mt-4 self-start">
      <h2 id="links" className="text-lg font-bold text-slate-900">
        {t("share.listTitle")}
      </h2>
      {links.length === 0 ? (
        <p className="mt-3 text-slate-600">{t("share.empty")}</p>
      ) : (
        <ul className="mt-3 space-y-3">
          {links.map((l) => (
            <LinkItem key={l._id} link={l} />
          ))}
        </ul>
      )}
    </section>
  );
}

function LinkItem({ link }: { link: ApiShareLink }) {
  const { t } = useTranslation();
  const dates = useDateText();
  const location = useLocation();
  const navigation = useNavigation();
  const confirming = new URLSearchParams(location.search).get("revoke") === link._id;
  const busy = navigation.state !== "idle" && navigation.formData?.get("linkId") === link._id;
  const status = STATUS_LOOK[link.status];
  const parts = [
    link.includeFile && t("share.partFile"),
    link.includeOpinion && t("share.partOpinion"),
    link.includeLetter && t("share.partLetter"),
  ]
    .filter(Boolean)
    .join(", ");
  const name = link.label || t("share.noLabel");
  return (
    <li
      id={`link-${link._id}`}
      className="scroll-mt-4 rounded-lg border border-slate-200 p-3"
      data-testid="share-link"
      data-status={link.status}
    >
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p
          className={`min-w-0 font-bold break-words ${link.label ? "text-slate-900" : "text-slate-600 italic"}`}
        >
          {name}
        </p>
        <span
          className={`inline-flex items-center rounded-full border px-2.5 py-0.5 text-sm font-semibold ${status.look}`}
        >
          {t(status.key)}
        </span>
      </div>
      <ul className="mt-1 space-y-0.5 text-sm text-slate-700">
        <li>{t("share.shares", { parts })}</li>
        <li>{t("share.createdOn", { date: dates.day(link.createdAt) })}</li>
        <li>
          {link.revokedAt
            ? t("share.revokedOn", { date: dates.dateTime(link.revokedAt) })
            : link.status === "expired"
              ? t("share.expiredOn", { date: dates.dateTime(link.expiresAt) })
              : t("share.worksUntil", { date: dates.dateTime(link.expiresAt) })}
        </li>
        <li data-testid="share-link-opens">
          {link.maxOpens !== null
            ? t("share.opensOf", { count: link.opens, max: link.maxOpens })
            : t("share.opens", { count: link.opens })}
          {" · "}
          {link.lastOpenedAt
            ? t("share.lastOpened", { date: dates.dateTime(link.lastOpenedAt) })
            : t("share.neverOpened")}
        </li>
        {link.passcode && <li>{t("share.withPasscode")}</li>}
      </ul>
      {link.status !== "revoked" &&
        (confirming ? (
          <div
            role="alertdialog"
            aria-labelledby={`revoke-title-${link._id}`}
            aria-describedby={`revoke-text-${link._id}`}
            className="mt-3 rounded-lg border border-red-300 bg-red-50 p-3"
          >
            <p id={`revoke-title-${link._id}`} className="font-bold text-red-900">
              {t("share.revokeConfirmTitle")}
            </p>
            <p id={`revoke-text-${link._id}`} className="mt-1 text-sm text-red-900">
              {t("share.revokeConfirmText")}
            </p>
            <Form method="post" action={location.pathname} className="mt-3 flex flex-wrap justify-end gap-3">
              <input type="hidden" name="intent" value="revoke" />
              <input type="hidden" name="linkId" value={link._id} />
              <Link to={`${location.pathname}#link-${link._id}`} className="btn-secondary">
                {t("common.cancel")}
              </Link>
              <button type="submit" className="btn-danger" disabled={busy}>
                {busy ? t("share.revoking") : t("share.revokeConfirm")}
              </button>
            </Form>
          </div>
        ) : (
          <div className="mt-3">
            <Link
              to={`${location.pathname}?revoke=${encodeURIComponent(link._id)}#link-${link._id}`}
              className="btn-secondary"
              preventScrollReset
            >
              {t("share.revoke")}
              <span className="sr-only"> {name}</span>
            </Link>
          </div>
        ))}
    </li>
  );
}
