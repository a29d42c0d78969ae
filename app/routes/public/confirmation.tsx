/** /confirmation shows the same e-mail verification screen as /verify-email (spec section 2). */
export { action, loader, default } from "./verify-email";
