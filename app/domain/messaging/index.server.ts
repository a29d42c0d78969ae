/**
 * Messaging: everything that leaves the platform as a message.
 *
 * - notify: the one way to tell a person something (mail and/or SMS by their channel, in their
 *   language), sign-in codes and account notices.
 * - mail: nodemailer transport, sending in the background.
 * - sms: the SMS outbox (queue, sender loop with back-off, segments, pruning, the admin list).
 * - contact: the public contact form and callback requests.
 */
export * from "./notify.server";
export * from "./mail.server";
export * from "./sms.server";
export * from "./contact.server";
