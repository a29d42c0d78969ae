/**
 * Messaging: everything that leaves the platform as a message. What the context offers to the
 * rest of the app is named below; everything else is internal to its modules.
 *
 * - notify: the one way to tell a person something (mail and/or SMS by their channel, in their
 *   language), sign-in codes and account notices.
 * - mail: the nodemailer transport (or .eml files); mail-outbox: the mail outbox's queue, its sender
 *   loop with back-off, the codes sent at once, what admins see, erasure and pruning (decision 0061).
 * - sms: the SMS outbox's queue and its sender loop with back-off; sms-segments (what a text
 *   costs), sms-delivery (the gateway and the outbox folder), sms-retention (erasure and pruning),
 *   sms-admin (the admin list).
 * - contact: the public contact form and callback requests.
 */
export {
  notify,
  recipientColumns,
  sendAccountExistsNotice,
  sendCode,
  sendFailedLoginsNotice,
  SHORT_LINKS,
  smsNumberOf,
  type CodePurpose,
  type Recipient,
  type ShortLink,
} from "./notify.server";
export { simpleHtml } from "./mail.server";
export {
  flushMail,
  mailErasureSteps,
  mailQueue,
  pruneMailMessages,
  queueMail,
  startMailSender,
  type MailPurpose,
} from "./mail-outbox.server";
export { queueSms, startSmsSender, stopSmsSender, type SmsPurpose, type SmsStatus } from "./sms.server";
export { deleteOutboxFilesTo, pruneSmsMessages, smsErasureSteps } from "./sms-retention.server";
export { countSmsByStatus, listSmsMessages, type ApiSmsMessage } from "./sms-admin.server";
export {
  contactErasureSteps,
  listCallbackRequests,
  listContactMessages,
  saveCallbackRequest,
  savePhoneCallbackRequest,
  saveContactMessage,
} from "./contact.server";
