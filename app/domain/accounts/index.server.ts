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
 * - two-factor, two-factor-setup, two-factor-login: TOTP, recovery codes and re-authentication;
 *   setting it up and turning it off; the second-step challenge of a login.
 * - passwords: hashing (argon2id, bcrypt read), the common-password list.
 * - users: finding and creating users, the admin's user list, suspension, avatars, `ApiUser`.
 * - experts, expert-details, specialties, specialty-column: expert approval, their specialties and
 *   registration, and which specialties read which report type (specialties.ts is also safe in
 *   the browser).
 *
 * Routes, utils, scripts, tests and the other contexts import from here; the modules of this
 * context import each other directly, never this index. Two exceptions, kept so the indexes form
 * no import circle: platform/audit.server.ts and messaging/sms.server.ts take the `Actor` type
 * from sessions.server.ts, because this context's modules import them.
 */
export { accountDeletionSteps, personNumbers } from "./account-deletion.server";
export {
  approveLogin,
  consumeCodesStartedBy,
  createProfileLogin,
  declineLogin,
  holdLogin,
  retireLogin,
} from "./logins.server";
export {
  checkCode,
  checkedPhone,
  issueCode,
  latestCode,
  limitSmsCode,
  phoneDigits,
  pruneAccountsTables,
  smsPhone,
} from "./codes.server";
export {
  expertDetailsFor,
  expertDetailsSteps,
  expertsWithSpecialties,
  specialtiesOf,
  type ApiExpertDetails,
} from "./expert-details.server";
export {
  approveExpert,
  expertRecipientsFor,
  expertUser,
  listApprovedExperts,
  listPendingExperts,
  rejectExpert,
  updateExpertDetails,
} from "./experts.server";
export { login, loginSecondStep, loginWithCode, logout, requestLoginCode } from "./login.server";
export {
  changePassword,
  isResetTokenLive,
  requestPasswordReset,
  resetPassword,
  resetPasswordWithCode,
} from "./password-reset.server";
export { assertPasswordNotCommon, hashPassword, verifyPassword } from "./passwords.server";
export {
  DISPLAY_PICTURE_MAX_BYTES,
  getProfile,
  setNotifyChannel,
  updateDisplayPicture,
  updateProfile,
} from "./profile.server";
export { endedSessionOf, ENDED_SESSION_KEEP_MS } from "./ended-sessions.server";
export {
  createSession,
  knownDeviceMark,
  listSessions,
  pruneExpiredSessions,
  resolveToken,
  revokeAllSessions,
  revokeOwnSession,
  revokeSession,
  WEB_SESSION_TTL_MS,
  type Actor,
} from "./sessions.server";
export {
  completeSignup,
  getPendingSignup,
  resendSignupCode,
  sendSignupOtp,
  signupWithOtp,
  startSignup,
} from "./signup.server";
export {
  reportTypesFor,
  SPECIALTIES,
  SPECIALTY_KEYS,
  specialtiesFor,
  type Specialty,
} from "~/schemas/specialties";
export { specialtiesColumn, specialtiesFromColumn } from "./specialty-column.server";
export {
  CHALLENGE_TTL_MS,
  hasTwoFactor,
  reauthenticate,
  twoFactorStatus,
  twoFactorUserIds,
} from "./two-factor.server";
export { challengeSetup, challengeState } from "./two-factor-login.server";
export {
  beginSetup,
  cancelSetup,
  confirmSetup,
  pendingSetup,
  regenerateRecoveryCodes,
  resetTwoFactor,
  turnOffTwoFactor,
} from "./two-factor-setup.server";
export {
  avatarUrl,
  ensureAdmin,
  findUserByEmail,
  findUserById,
  findUserByPhone,
  insertUser,
  isUserImageKey,
  listUsers,
  setSuspended,
  setUserLocale,
  toApiUser,
  type ApiUser,
} from "./users.server";
