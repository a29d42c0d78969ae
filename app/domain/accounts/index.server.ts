/**
 * Accounts: who someone is and how they prove it.
 *
 * - signup: signup with a code by mail or SMS (on the screens, and by the API).
 * - login: login (password, SMS code, second step), logout.
 * - password-reset: password reset (link by mail, code by SMS) and change.
 * - profile: the profile, its notice channel and display picture.
 * - codes: the 6-digit codes of signup, login and reset (issue, check, SMS budgets, numbers).
 * - account-deletion: what goes with an account when it is erased, and the person's numbers.
 * - sessions: web sessions and API tokens (create, resolve, revoke, list) and the known-device mark.
 * - two-factor: TOTP, recovery codes, re-authentication; two-factor-setup: setting it up and
 *   turning it off; two-factor-login: the second-step challenge of a login.
 * - passwords: hashing (argon2id, bcrypt read), the common-password list.
 * - users: finding and creating users, the admin's user list, suspension, avatars, `ApiUser`.
 * - experts, expert-details, specialties: expert approval, their specialties and registration,
 *   and which specialties read which report type (specialties.ts is also safe in the browser).
 *
 * Other contexts and the adapters import from here; modules inside the domain import the module
 * they need directly, so the indexes never form an import circle.
 */
export * from "./signup.server";
export * from "./login.server";
export * from "./password-reset.server";
export * from "./profile.server";
export * from "./codes.server";
export * from "./account-deletion.server";
export * from "./sessions.server";
export * from "./two-factor.server";
export * from "./two-factor-setup.server";
export * from "./two-factor-login.server";
export * from "./passwords.server";
export * from "./users.server";
export * from "./experts.server";
export * from "./expert-details.server";
export * from "./specialties";
