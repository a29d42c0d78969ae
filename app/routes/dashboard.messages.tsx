import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { EmptyState } from "~/components/reports/EmptyState";
import { LocalDate } from "~/components/reports/LocalDate";
import { screenMeta } from "~/components/reports/meta";
import { PageHeader } from "~/components/reports/PageHeader";
import { Pager } from "~/components/reports/Pager";
import { pageInfo, screenPage } from "~/components/reports/screen.server";
import { listCallbackRequests, listContactMessages } from "~/domain/contact.server";
import { tFor } from "~/i18n/i18n.server";
import { requireRole } from "~/utils/auth.server";

type Kind = "contact" | "callback";

/** Admin: the Contact Us messages and the home page's callback requests, one list at a time. */
export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireRole(request, "Admin");
  const kind: Kind = new URL(request.url).searchParams.get("kind") === "callback" ? "callback" : "contact";
  const page = screenPage(request);
  const { t } = await tFor(request);
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
  return { title: t("messages.title"), kind, rows, pagination: pageInfo(items) };
}

export const meta: MetaFunction<typeof loader> = screenMeta;

export default function Messages() {
  const { t } = useTranslation();
  const { kind, rows, pagination } = useLoaderData<typeof loader>();
  const tabs: { kind: Kind; label: string; to: string }[] = [
    { kind: "contact", label: t("messages.contactTab"), to: "/dashboard/messages" },
    { kind: "callback", label: t("messages.callbackTab"), to: "/dashboard/messages?kind=callback" },
  ];
  return (
    <section>
      <PageHeader title={t("messages.title")} intro={t("messages.intro")} />
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
      {rows.length === 0 ? (
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
