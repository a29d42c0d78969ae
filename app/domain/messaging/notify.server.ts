import type { TFunction } from "i18next";
import { config } from "~/config.server";
import { users, type UserRow } from "~/db/schema";
import { isLocale, type Locale } from "~/i18n/config";
import { getT } from "~/i18n/i18n.server";
import { site } from "~/site";
import { log } from "~/lib/log.server";
import { smsE164, smsNumber } from "~/lib/phone.server";
import { queueMail, sendMailNow } from "./mail-outbox.server";
import { simpleHtml } from "./mail.server";
import { queueSms, type SmsPurpose } from "./sms.server";

/**
 * Every message CareBridge sends to a person — notification or code, mail or SMS — goes through
 * this module (decision 0020), which picks the channels:
 *
 * - Patients: a mail when the account has an e-mail address; an SMS when it has a mobile number
 *   as its identity (phone sign-up) and the message is one patients get by SMS (opinion ready,
 *   follow-up answered). SMS never carry medical content: the product name and a short link.
 * - Experts and admins: their choice in Settings — e-mail, SMS or both. SMS go to their mobile
 *   number (the contact number with its country code); without a usable number, mail is kept.
 * - Codes go where the person asked for them (the e-mail or the number they typed).
 */

export type Recipient = Pick<
  UserRow,
  "email" | "firstName" | "locale" | "phone" | "notify" | "accountType" | "countryCode" | "contactNumber"
>;

/** The columns `notify` needs, for `db().select(recipientColumns)`. */
export const recipientColumns = {
  email: users.email,
  firstName: users.firstName,
  locale: users.locale,
  phone: users.phone,
  notify: users.notify,
  accountType: users.accountType,
  countryCode: users.countryCode,
  contactNumber: users.contactNumber,
};

const loc = (l: string | null | undefined): Locale => (isLocale(l) ? l : "en");

/**
 * The mobile number SMS go to: the phone identity, or (experts, admins) the contact number — only
 * a mobile number of a country in SMS_COUNTRIES (decision 0021), never a premium-rate or fixed line.
 */
export function smsNumberOf(to: Pick<Recipient, "phone" | "countryCode" | "contactNumber">): string | null {
  if (to.phone) return smsNumber(to.phone).ok ? to.phone : null;
  return smsE164(to.contactNumber ?? "", to.countryCode || "+91");
}

/** Where a message goes: an e-mail address and/or a mobile number (E.164). */
export function channelsFor(
  to: Recipient,
  smsForPatients: boolean,
): { mail: string | null; sms: string | null } {
  const mail = to.email || null;
  if (to.accountType === "Patient")
    return { mail, sms: smsForPatients && to.phone && smsNumber(to.phone).ok ? to.phone : null };
  const number = to.notify === "email" ? null : smsNumberOf(to);
  // Someone who chose SMS only but has no usable number still hears by mail.
  return { mail: to.notify === "sms" && number ? null : mail, sms: number };
}

/**
 * Short links for SMS (`/m/<code>`, see routes/m.$code.tsx): an SMS has room for about 134
 * characters in Hindi, so the link is the app address and two characters.
 */
export const SHORT_LINKS = {
  o: "/dashboard/previous-report",
  f: "/dashboard/follow-ups",
  p: "/dashboard/pending-report",
  t: "/dashboard/turnaround",
  s: "/dashboard/settings",
  d: "/dashboard/my-data",
  // The family screen: a manager's notices never say whose report it is.
  y: "/dashboard/family",
  // A centre's queue: a health worker's notice about one of the centre's patients.
  c: "/dashboard/centre",
} as const;
export type ShortLink = keyof typeof SHORT_LINKS;

function shortLinkFor(path: string): string {
  // Whole path segments: /dashboard/centres (the admins') is not under /dashboard/centre.
  const bare = path.split(/[?#]/)[0];
  const hit = (Object.entries(SHORT_LINKS) as [ShortLink, string][]).find(
    ([, p]) => bare === p || bare.startsWith(`${p}/`),
  );
  return `${config().appUrl}/m/${hit ? hit[0] : "h"}`;
}

export type Message = {
  subject: string;
  body: string;
  action: string;
  path: string;
  /** More values for the message's placeholders (never medical content). */
  vars?: Record<string, string | number>;
  /** Further paragraphs after the body, written in the recipient's language. */
  lines?: (t: TFunction) => string[];
  /**
   * The SMS a patient with a mobile number gets for this message (a key under `sms.*`). Other
   * messages reach experts and admins who chose SMS as `sms.notice` (the subject and the link).
   */
  sms?: { key: string; purpose: SmsPurpose };
};

/**
 * Sends one short notification to a user in their language, in the background (a failure never
 * fails the action). Only ids-free, medical-content-free text.
 */
export function notify(to: Recipient, message: Message): void {
  deliver(to, message).catch((err) =>
    log("error", "notification failed", { error: String(err?.message ?? err) }),
  );
}

async function deliver(to: Recipient, message: Message) {
  const t = await getT(loc(to.locale));
  const vars = { product: site.productName, name: to.firstName || to.email || "", ...message.vars };
  const { mail, sms } = channelsFor(to, !!message.sms);
  if (mail) {
    const href = `${config().appUrl}${message.path}`;
    const greeting = t("mail.greeting", vars);
    const body = [t(message.body, vars), ...(message.lines?.(t) ?? [])];
    const footer = t("mail.footer", vars);
    await queueMail({
      to: mail,
      purpose: message.sms?.purpose === "erased" ? "erased" : "notice",
      subject: t(message.subject, vars),
      text: `${greeting}\n\n${body.join("\n\n")}\n\n${t("mail.openLink", { url: href })}\n\n${footer}`,
      html: simpleHtml([greeting, ...body, footer], { href, label: t(message.action, vars) }),
    });
  }
  if (sms) {
    const link = shortLinkFor(message.path);
    const text = message.sms
      ? t(message.sms.key, { ...vars, link })
      : t("sms.notice", { subject: t(message.subject, vars), link });
    await queueSms({ to: sms, text, purpose: message.sms?.purpose ?? "notice" });
  }
}

export type CodePurpose = "signup" | "login" | "reset" | "takeover" | "prove";

/**
 * Sends a 6-digit code to where the person asked for it: by mail (sent at once through the mail
 * outbox; a mail server that cannot take it is a 503 with Retry-After, decision 0061) or by SMS
 * (queued; the request never waits for the gateway).
 */
export async function sendCode(
  target: { email?: string; phone?: string },
  code: string,
  locale: string,
  purpose: CodePurpose,
) {
  const t = await getT(loc(locale));
  const vars = { code, product: site.productName, minutes: 10 };
  if (target.phone) {
    // A take-over code goes to someone without an account yet: it says what it is for and where to enter it.
    const takeover = purpose === "takeover";
    // A number proven before it is called (decision 0102): the text says what the code is for.
    if (purpose === "prove") {
      await queueSms({ to: target.phone, text: t("calls.smsProofCode", vars), purpose: "proof-code" });
      return;
    }
    await queueSms({
      to: target.phone,
      text: takeover
        ? t("family.smsTakeOverCode", { ...vars, link: `${config().appUrl}/take-over` })
        : t("sms.code", vars),
      purpose: takeover
        ? "takeover-code"
        : purpose === "signup"
          ? "signup-code"
          : purpose === "login"
            ? "login-code"
            : "reset-code",
    });
    return;
  }
  await sendMailNow({
    to: target.email!,
    purpose: "code",
    expiresAt: new Date(Date.now() + vars.minutes * 60_000),
    subject: t("authMail.codeSubject", vars),
    text: `${t("authMail.codeBody", vars)}\n\n${t("authMail.ignore")}`,
    html: simpleHtml([t("authMail.codeBody", vars), t("authMail.ignore")]),
  });
}

/**
 * Someone asked for a signup code for an e-mail or number that already has an account.
 * Instead of a code, the owner hears — in their language, by mail or SMS like the code would have
 * come, and with the same wait for SMTP — that they already have an account and can log in or
 * reset their password. The person who asked sees the same answer as for a new one.
 */
export async function sendAccountExistsNotice(target: { email?: string; phone?: string }, locale: string) {
  const t = await getT(loc(locale));
  const vars = { product: site.productName, link: `${config().appUrl}/login` };
  if (target.phone) {
    await queueSms({ to: target.phone, text: t("sms.accountExists", vars), purpose: "signup-code" });
    return;
  }
  const body = [t("authMail.accountExistsBody", vars), vars.link, t("authMail.ignore")];
  // Sent like the code would have been (at once, 503 when it cannot go), so both answers look alike.
  await sendMailNow({
    to: target.email!,
    purpose: "code",
    expiresAt: new Date(Date.now() + 10 * 60_000),
    subject: t("authMail.accountExistsSubject", vars),
    text: body.join("\n\n"),
    html: simpleHtml([t("authMail.accountExistsBody", vars), t("authMail.ignore")], {
      href: vars.link,
      label: t("nav.login"),
    }),
  });
}

/**
 * Tells an account's owner that it sees many wrong passwords (mail, or SMS for a phone-only
 * account). No secrets, no addresses: what happened and what they can do.
 */
export async function sendFailedLoginsNotice(to: Recipient) {
  const t = await getT(loc(to.locale));
  const vars = { product: site.productName };
  if (to.email) {
    await queueMail({
      to: to.email,
      purpose: "notice",
      subject: t("authMail.failedLoginsSubject", vars),
      text: `${t("authMail.failedLoginsBody", vars)}\n\n${t("authMail.failedLoginsAdvice", vars)}`,
      html: simpleHtml([t("authMail.failedLoginsBody", vars), t("authMail.failedLoginsAdvice", vars)]),
    });
  } else if (to.phone) {
    await queueSms({ to: to.phone, text: t("sms.failedLogins", vars), purpose: "notice" });
  }
}
