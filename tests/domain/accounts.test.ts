import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  PASSWORD,
  codeMailedTo,
  freshDomain,
  linkTokenMailedTo,
  logIn,
  makeAdmin,
  makePatient,
  newClient,
  refusal,
  uniqueEmail,
  type Domain,
} from "../helpers/factories";

/*
 * Accounts without HTTP: signup with a mailed code, login, wrong passwords, password reset and
 * change, sessions. What HTTP adds (cookies, status codes, rate-limit answers) stays in
 * tests/integration/accounts-*.test.ts and sessions.test.ts.
 */

let d: Domain;
beforeAll(async () => {
  d = await freshDomain();
});
afterAll(() => d?.close());

async function signupForm(email: string, password = PASSWORD) {
  const { signupFormSchema } = await import("~/schemas/auth");
  return signupFormSchema.parse({
    accountType: "Patient",
    firstName: "Meera",
    lastName: "Iyer",
    email,
    contactNumber: "9876543210",
    password,
    confirmPassword: password,
  });
}

describe("signup with a code", () => {
  it("the mailed code creates the account once; a wrong code is counted and creates nothing", async () => {
    const email = uniqueEmail("signup");
    const client = newClient();
    const { pendingId } = await d.accounts.startSignup(await signupForm(email), client, "en");
    expect(await d.accounts.findUserByEmail(email)).toBeUndefined();
    expect(await d.accounts.getPendingSignup(pendingId)).toMatchObject({ email });

    const code = await codeMailedTo(email);
    const wrong = code === "000000" ? "111111" : "000000";
    expect(await refusal(() => d.accounts.completeSignup(pendingId, wrong, client))).toMatchObject({
      code: "invalid",
      message: "accounts.otpWrong",
      extra: { values: { left: 4 } },
    });
    expect(await d.accounts.findUserByEmail(email)).toBeUndefined();

    const user = await d.accounts.completeSignup(pendingId, code, client);
    expect(user).toMatchObject({ email, firstName: "Meera", accountType: "Patient" });
    // The password was hashed at step 1 and is the one that logs in.
    const login = await d.accounts.login({ email, password: PASSWORD }, newClient(), "web");
    expect(login.user.id).toBe(user.id);

    // The code is used up: a second completion is refused, no second account.
    expect(await refusal(() => d.accounts.completeSignup(pendingId, code, client))).toMatchObject({
      code: "invalid",
      message: "accounts.signupExpired",
    });
  });

  it("five wrong codes use up the code: even the right one no longer works", async () => {
    const email = uniqueEmail("signup");
    const client = newClient();
    const { pendingId } = await d.accounts.startSignup(await signupForm(email), client, "en");
    const code = await codeMailedTo(email);
    const wrong = code === "000000" ? "111111" : "000000";
    for (let i = 0; i < 5; i++) await refusal(() => d.accounts.completeSignup(pendingId, wrong, client));
    expect(await refusal(() => d.accounts.completeSignup(pendingId, code, client))).toMatchObject({
      message: "accounts.otpTooManyTries",
    });
    expect(await d.accounts.findUserByEmail(email)).toBeUndefined();
  });

  it("a taken e-mail gets the same answer, but its owner is told instead of getting a code", async () => {
    const owner = await makePatient();
    const { pendingId } = await d.accounts.startSignup(await signupForm(owner.email), newClient(), "en");
    expect(pendingId).toMatch(/^[a-f0-9]{24}$/);
    await expect(codeMailedTo(owner.email, 300)).rejects.toThrow(/no code/);
  });

  it("a common password is refused before anything is sent", async () => {
    const email = uniqueEmail("signup");
    const err = await refusal(async () =>
      d.accounts.startSignup(await signupForm(email, "password123"), newClient(), "en"),
    );
    expect(err).toMatchObject({ code: "invalid", message: "accounts.passwordCommon" });
  });
});

describe("login", () => {
  it("the right password opens a session whose token resolves to the person", async () => {
    const p = await makePatient();
    const r = await d.accounts.login(
      { email: p.email.toUpperCase(), password: p.password },
      newClient(),
      "api",
    );
    if (r.mfa) throw new Error("no second step was set up");
    const actor = await d.accounts.resolveToken(r.token, "api");
    expect(actor).toMatchObject({ id: p.id, sessionId: r.sessionId });
    // A web token is not an API token.
    expect(await d.accounts.resolveToken(r.token, "web")).toBeNull();
  });

  it("a wrong password and an unknown e-mail get the same refusal and no session", async () => {
    const p = await makePatient();
    const before = await d.accounts.listSessions(p);
    for (const input of [
      { email: p.email, password: "Wrong-password-123" },
      { email: uniqueEmail("nobody"), password: p.password },
    ]) {
      expect(await refusal(() => d.accounts.login(input, newClient(), "web"))).toMatchObject({
        code: "not_authenticated",
        message: "accounts.invalidCredentials",
      });
    }
    expect(await d.accounts.listSessions(p)).toHaveLength(before.length);
  });

  it("a suspended account cannot log in and its sessions stop resolving", async () => {
    const admin = await makeAdmin();
    const p = await makePatient();
    await d.accounts.setSuspended(admin, p.id, true);
    expect(await d.accounts.resolveToken(p.token, "web")).toBeNull();
    expect(
      await refusal(() => d.accounts.login({ email: p.email, password: p.password }, newClient(), "web")),
    ).toMatchObject({ code: "forbidden", message: "accounts.suspended" });
  });
});

describe("passwords", () => {
  it("reset by mail: the link sets the password once and ends every session", async () => {
    const p = await makePatient();
    const other = await logIn(p, "api");
    await d.accounts.requestPasswordReset(p.email, newClient());
    const token = await linkTokenMailedTo(p.email, "/update-password");
    expect(await d.accounts.isResetTokenLive(token)).toBe(true);

    await d.accounts.resetPassword(token, "Brand-new-secret-42");
    expect(await d.accounts.resolveToken(p.token, "web")).toBeNull();
    expect(await d.accounts.resolveToken(other.token, "api")).toBeNull();
    expect(await d.accounts.isResetTokenLive(token)).toBe(false);
    expect(await refusal(() => d.accounts.resetPassword(token, "Another-secret-43"))).toMatchObject({
      message: "accounts.resetTokenInvalid",
    });
    // The new password logs in, the old one no longer does.
    await d.accounts.login({ email: p.email, password: "Brand-new-secret-42" }, newClient(), "web");
    expect(
      await refusal(() => d.accounts.login({ email: p.email, password: p.password }, newClient(), "web")),
    ).toMatchObject({ message: "accounts.invalidCredentials" });
  });

  it("a reset for an unknown e-mail answers the same and sends nothing", async () => {
    const email = uniqueEmail("ghost");
    await expect(d.accounts.requestPasswordReset(email, newClient())).resolves.toBeUndefined();
    await expect(linkTokenMailedTo(email, "/update-password", 300)).rejects.toThrow(
      /no \/update-password link/,
    );
  });

  it("change: needs the current password; other sessions end, this one stays", async () => {
    const p = await makePatient();
    const other = await logIn(p, "web");
    expect(
      await refusal(() =>
        d.accounts.changePassword(
          p,
          { oldPassword: "Not-my-password-1", newPassword: "Fresh-secret-77" },
          p.client,
        ),
      ),
    ).toMatchObject({ code: "invalid", message: "accounts.currentPasswordWrong" });
    expect(await d.accounts.resolveToken(other.token, "web")).not.toBeNull();

    await d.accounts.changePassword(p, { oldPassword: p.password, newPassword: "Fresh-secret-77" }, p.client);
    expect(await d.accounts.resolveToken(p.token, "web")).toMatchObject({ id: p.id });
    expect(await d.accounts.resolveToken(other.token, "web")).toBeNull();
    await d.accounts.login({ email: p.email, password: "Fresh-secret-77" }, newClient(), "web");
  });

  it("a common new password is refused", async () => {
    const p = await makePatient();
    expect(
      await refusal(() =>
        d.accounts.changePassword(p, { oldPassword: p.password, newPassword: "password123" }, p.client),
      ),
    ).toMatchObject({
      message: "accounts.passwordCommon",
      extra: { fieldErrors: { newPassword: expect.any(Array) } },
    });
  });
});

describe("sessions", () => {
  it("lists the account's own sessions and revokes one; another person's id is not found", async () => {
    const p = await makePatient();
    const other = await makePatient();
    const second = await logIn(p, "web");
    const list = await d.accounts.listSessions(p);
    expect(list.map((s) => s.id).sort()).toEqual([p.sessionId, second.sessionId].sort());
    expect(list.find((s) => s.id === p.sessionId)?.current).toBe(true);

    expect(await d.accounts.revokeOwnSession(other, second.sessionId)).toBe(false);
    expect(await d.accounts.resolveToken(second.token, "web")).not.toBeNull();
    expect(await d.accounts.revokeOwnSession(p, second.sessionId)).toBe(true);
    expect(await d.accounts.resolveToken(second.token, "web")).toBeNull();
    expect((await d.accounts.listSessions(p)).map((s) => s.id)).toEqual([p.sessionId]);
  });

  it("logout ends only the current session", async () => {
    const p = await makePatient();
    const second = await logIn(p, "web");
    await d.accounts.logout(p);
    expect(await d.accounts.resolveToken(p.token, "web")).toBeNull();
    expect(await d.accounts.resolveToken(second.token, "web")).not.toBeNull();
  });
});
