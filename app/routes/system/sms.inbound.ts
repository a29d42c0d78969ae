import type { LoaderFunctionArgs } from "@remix-run/node";
import { timingSafeEqual } from "node:crypto";
import { config } from "~/config.server";
import { answerReminder } from "~/domain/consultation/index.server";
import { getT } from "~/i18n/i18n.server";
import { isLocale } from "~/i18n/config";
import { smsE164 } from "~/lib/phone.server";

/**
 * A patient's SMS reply to a step reminder (decision 0114), as Kannel's sms-service passes it:
 * `get-url = "<APP_URL>/sms/inbound?key=<SMS_INBOUND_KEY>&from=%p&text=%a"`. The answer's text is
 * what Kannel sends back to her phone. Without the key (or with a wrong one): 403, nothing read.
 */
const same = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** What she reads back after each answer. */
const REPLY = {
  done: "reminders.reply.done",
  later: "reminders.reply.later",
  declined: "reminders.reply.declined",
} as const;

const text = (body: string, status = 200) =>
  new Response(body, {
    status,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
  });

export async function loader({ request }: LoaderFunctionArgs) {
  const key = config().reminders.inboundKey;
  const p = new URL(request.url).searchParams;
  if (!key || !same(p.get("key") ?? "", key)) return text("Forbidden", 403);
  const from = smsE164(p.get("from") ?? "", "+91");
  const said = (p.get("text") ?? "").slice(0, 200);
  if (!from) return text("", 200);
  const { answer, step, locale } = await answerReminder(from, said);
  const t = await getT(isLocale(locale) ? locale : "en");
  if (!step) return text(t("reminders.reply.none"));
  if (!answer) return text(t("reminders.reply.unknown"));
  return text(t(REPLY[answer]));
}
