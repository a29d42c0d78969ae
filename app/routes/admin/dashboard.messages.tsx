import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { EmptyState } from "~/components/reports/EmptyState";
import { LocalDate } from "~/components/reports/LocalDate";
import { screenMeta } from "~/components/reports/meta";
import { PageHeader } from "~/components/reports/PageHeader";
import { Pager } from "~/components/reports/Pager";
import { CallList } from "~/components/messages/CallList";
import { PhoneLinePanel } from "~/components/messages/PhoneLinePanel";
import { listPhoneCalls, phoneLine } from "~/domain/calls/index.server";
import { pageInfo, screenPage } from "~/web/screen.server";
import {
  listCallbackRequests,
  listContactMessages,
  countSmsByStatus,
  listSmsMessages,
  type ApiSmsMessage,
  type SmsPurpose,
  type SmsStatus,
} from "~/domain/messaging/index.server";
import { tFor } from "~/i18n/i18n.server";
import { requireRole } from "~/web/auth.server";

type Kind = "contact" | "callback" | "sms" | "calls";

/** The SMS status filter, failed first (what an admin comes here for), and each status's words. */
const SMS_FILTERS: { status: SmsStatus; label: string }[] = [
  { status: "failed", label: "messages.smsStatusFailed" },
  { status: "queued", label: "messages.smsStatusQueued" },
  { status: "sending", label: "messages.smsStatusSending" },
  { status: "sent", label: "messages.smsStatusSent" },
];
const SMS_STATUS_LABEL = Object.fromEntries(SMS_FILTERS.map((f) => [f.status, f.label])) as Record<
  SmsStatus,
  string
>;

/** Every purpose has its label (the type says so): an admin never sees a raw word. */
const SMS_PURPOSE_LABELS: Record<SmsPurpose, string> = {
  "signup-code": "messages.smsPurposeSignupCode",
  "login-code": "messages.smsPurposeLoginCode",
  "reset-code": "messages.smsPurposeResetCode",
  "takeover-code": "family.smsPurposeTakeOverCode",
  "proof-code": "calls.smsPurposeProofCode",
  "opinion-ready": "messages.smsPurposeOpinionReady",
  "followup-answered": "messages.smsPurposeFollowupAnswered",
  notice: "messages.smsPurposeNotice",
  "step-reminder": "reminders.smsPurpose",
  erased: "messages.smsPurposeErased",
};

function kindOf(value: string | null): Kind {
  return value === "callback" || value === "sms" || value === "calls" ? value : "contact";
}

/**
 * Admin: the Contact Us messages, the home page's callback requests and the outgoing SMS (masked
 * number, purpose, status, attempts, last error — never the text), one list at a time.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireRole(request, "Admin");
  const params = new URL(request.url).searchParams;
  const kind = kindOf(params.get("kind"));
  const page = screenPage(request);
  const { t } = await tFor(request);
  if (kind === "calls") {
    // Phone calls (decision 0080): masked numbers, what for and what happened, never content.
    const list = await listPhoneCalls(actor, page);
    return {
      title: t("messages.title"),
      kind,
      rows: [],
      sms: null,
      calls: list.items,
      // Whether a line is set up and registered (decision 0093): "no line" is not "no calls yet".
      line: await phoneLine(actor),
      pagination: pageInfo(list),
    };
  }
  if (kind === "sms") {
    const wanted = params.get("status");
    const status = SMS_FILTERS.find((f) => f.status === wanted)?.status ?? null;
    const list = await listSmsMessages(actor, { ...page, status });
    return {
      title: t("messages.title"),
      kind,
      rows: [],
      sms: { status, counts: await countSmsByStatus(actor), items: list.items },
      calls: null,
      line: null,
      pagination: pageInfo(list),
    };
  }
  const items =
    kind === "callback" ? await listCallbackRequests(actor, page) : await listContactMessages(actor, page);
  const rows = items.items.map((m) => ({
    id: m._id,
    name: m.name,
    email: "email" in m ? m.email : null,
    phone: "phoneNumber" in m ? `${m.countryCode} ${m.phoneNumber}` : null,
    message: m.message,
    signedIn: !!m.userId,
    createdAt: m.createdAt,
  }));
  return {
    title: t("messages.title"),
    kind,
    rows,
    sms: null,
    calls: null,
    line: null,
    pagination: pageInfo(items),
  };
}

export const meta: MetaFunction<typeof loader> = screenMeta;

export default function Messages() {
  const { t } = useTranslation();
  const { kind, rows, sms, calls, line, pagination } = useLoaderData<typeof loader>();
  const tabs: { kind: Kind; label: string; to: string }[] = [
    { kind: "contact", label: t("messages.contactTab"), to: "/dashboard/messages" },
    { kind: "callback", label: t("messages.callbackTab"), to: "/dashboard/messages?kind=callback" },
    { kind: "sms", label: t("messages.smsTab"), to: "/dashboard/messages?kind=sms" },
    { kind: "calls", label: t("calls.tab"), to: "/dashboard/messages?kind=calls" },
  ];
  return (
    <section>
      <PageHeader
        title={t("messages.title")}
        intro={t(kind === "calls" ? "calls.intro" : kind === "sms" ? "messages.smsIntro" : "messages.intro")}
      />
      <nav aria-label={t("messages.title")} className="mb-4 flex flex-wrap gap-2">
        {tabs.map((tab) => (
          <Link
            key={tab.kind}
            to={tab.to}
            aria-current={tab.kind === kind ? "page" : undefined}
            className={tab.kind === kind ? "btn-primary" : "btn-secondary"}
          >
            {tab.label}
          </Link>
        ))}
      </nav>
      {calls ? (
        <>
          {line && <PhoneLinePanel line={line} />}
          <CallList items={calls} />
        </>
      ) : sms ? (
        <SmsList status={sms.status} counts={sms.counts} items={sms.items} />
      ) : rows.length === 0 ? (
        <EmptyState message={t(kind === "callback" ? "messages.noCallback" : "messages.noContact")} />
      ) : (
        <ul className="space-y-3" data-testid="message-list">
          {rows.map((m) => (
            <li key={m.id} className="card">
              <dl className="grid gap-1 text-sm sm:grid-cols-[8rem_1fr]">
                <dt className="font-semibold text-slate-600">{t("messages.name")}</dt>
                <dd className="break-words">{m.name}</dd>
                {m.email !== null && (
                  <>
                    <dt className="font-semibold text-slate-600">{t("messages.email")}</dt>
                    <dd className="break-all">
                      <a href={`mailto:${m.email}`} className="text-slate-800 hover:underline">
                        {m.email}
                      </a>
                    </dd>
                  </>
                )}
                {m.phone !== null && (
                  <>
                    <dt className="font-semibold text-slate-600">{t("messages.phone")}</dt>
                    <dd className="tabular-nums">{m.phone}</dd>
                  </>
                )}
                <dt className="font-semibold text-slate-600">{t("messages.message")}</dt>
                <dd className="break-words whitespace-pre-wrap">{m.message || t("messages.noMessage")}</dd>
                <dt className="font-semibold text-slate-600">{t("messages.received")}</dt>
                <dd>
                  <LocalDate iso={m.createdAt} withTime />
                  {m.signedIn && <span className="ml-2 text-slate-600">· {t("messages.signedIn")}</span>}
                </dd>
              </dl>
            </li>
          ))}
        </ul>
      )}
      <Pager pagination={pagination} />
    </section>
  );
}

const STATUS_LOOK: Record<SmsStatus, string> = {
  failed: "border-red-300 bg-red-100 text-red-900",
  queued: "border-amber-300 bg-amber-100 text-amber-900",
  sending: "border-sky-300 bg-sky-100 text-sky-900",
  sent: "border-green-300 bg-green-100 text-green-800",
};

/** The SMS tab: a status filter (links, so it works without JavaScript) and one card per message. */
function SmsList({
  status,
  counts,
  items,
}: {
  status: SmsStatus | null;
  counts: Record<SmsStatus, number>;
  items: ApiSmsMessage[];
}) {
  const { t } = useTranslation();
  const filters = [
    { status: null, label: t("messages.smsAll"), to: "/dashboard/messages?kind=sms" },
    ...SMS_FILTERS.map((f) => ({
      status: f.status,
      label: `${t(f.label)} (${counts[f.status]})`,
      to: `/dashboard/messages?kind=sms&status=${f.status}`,
    })),
  ];
  return (
    <>
      <nav aria-label={t("messages.smsStatus")} className="mb-4 flex flex-wrap items-center gap-2">
        <span className="text-sm font-semibold text-slate-700">{t("messages.smsStatus")}:</span>
        {filters.map((f) => (
          <Link
            key={f.status ?? "all"}
            to={f.to}
            aria-current={f.status === status ? "page" : undefined}
            data-sms-filter={f.status ?? "all"}
            className={`min-h-11 content-center rounded-full border px-3 text-sm font-semibold ${
              f.status === status
                ? "border-slate-800 bg-slate-800 text-white"
                : f.status === "failed" && counts.failed > 0
                  ? "border-red-300 bg-red-50 text-red-900 hover:bg-red-100"
                  : "border-slate-300 bg-white text-slate-800 hover:bg-slate-50"
            }`}
          >
            {f.label}
          </Link>
        ))}
      </nav>
      {items.length === 0 ? (
        <EmptyState message={t(status ? "messages.noSmsWithStatus" : "messages.noSms")} />
      ) : (
        <ul className="space-y-3" data-testid="sms-list">
          {items.map((m) => (
            <li key={m._id} className="card" data-sms-status={m.status}>
              <dl className="grid gap-1 text-sm sm:grid-cols-[8rem_1fr]">
                <dt className="font-semibold text-slate-600">{t("messages.smsStatus")}</dt>
                <dd>
                  <span
                    className={`inline-flex rounded-full border px-2.5 py-0.5 text-sm font-semibold ${STATUS_LOOK[m.status]}`}
                  >
                    {t(SMS_STATUS_LABEL[m.status])}
                  </span>
                </dd>
                <dt className="font-semibold text-slate-600">{t("messages.smsTo")}</dt>
                <dd className="tabular-nums">{m.to}</dd>
                <dt className="font-semibold text-slate-600">{t("messages.smsPurpose")}</dt>
                <dd>
                  {m.purpose in SMS_PURPOSE_LABELS
                    ? t(SMS_PURPOSE_LABELS[m.purpose as SmsPurpose])
                    : m.purpose}
                </dd>
                <dt className="font-semibold text-slate-600">{t("messages.smsAttempts")}</dt>
                <dd className="tabular-nums">{m.attempts}</dd>
                {m.lastError && (
                  <>
                    <dt className="font-semibold text-slate-600">{t("messages.smsLastError")}</dt>
                    <dd className="break-words">
                      <code className="text-xs">{m.lastError}</code>
                    </dd>
                  </>
                )}
                <dt className="font-semibold text-slate-600">{t("messages.smsQueuedAt")}</dt>
                <dd>
                  <LocalDate iso={m.createdAt} withTime />
                </dd>
                {m.sentAt && (
                  <>
                    <dt className="font-semibold text-slate-600">{t("messages.smsSentAt")}</dt>
                    <dd>
                      <LocalDate iso={m.sentAt} withTime />
                    </dd>
                  </>
                )}
              </dl>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
