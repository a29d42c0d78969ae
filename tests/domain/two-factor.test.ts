import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import {
  authenticator,
  freshDomain,
  makePatient,
  newClient,
  refusal,
  type Domain,
  type Person,
} from "../helpers/factories";

/*
 * Two-step login without HTTP: setting it up (the password first), confirming with a code
 * computed as an authenticator app computes it, a code accepted once per 30-second step,
 * recovery codes, turning it off. The cookies, the /login-2fa screen and the admin's reset over
 * HTTP stay in tests/integration/two-factor.test.ts.
 *
 * Only Date is faked (and keeps running): a test moves to the next time step with setSystemTime
 * instead of waiting up to 30 s for it, and never crosses into one it did not ask for.
 */

let d: Domain;
beforeAll(async () => {
  d = await freshDomain();
});
afterAll(() => d?.close());
const STEP_MS = 30_000;

// Each test begins just after a step starts, so its first codes fall in one step however slowly
// the machine hashes passwords: only nextStep() moves it to the next.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
  vi.setSystemTime(Math.ceil(Date.now() / STEP_MS) * STEP_MS + 1_000);
});
afterEach(() => {
  vi.useRealTimers();
});
function nextStep() {
  vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
  vi.setSystemTime(Date.now() + STEP_MS);
}

/** Sets up and confirms two-step login for a new patient; returns them, their app and recovery codes. */
async function withTwoFactor(): Promise<{
  p: Person;
  app: ReturnType<typeof authenticator>;
  codes: string[];
}> {
  const p = await makePatient();
  const setup = await d.accounts.beginSetup(p, { password: p.password }, p.client);
  const app = authenticator(setup.secret);
  const { recoveryCodes } = await d.accounts.confirmSetup(
    p,
    { password: p.password, code: app.code() },
    p.client,
  );
  return { p, app, codes: recoveryCodes };
}

async function challenge(p: Person) {
  const r = await d.accounts.login({ email: p.email, password: p.password }, newClient(), "web");
  expect(r.token).toBeUndefined();
  expect(r.mfa?.mode).toBe("code");
  return r.mfa!.token;
}

describe("setting it up", () => {
  it("needs the account's password: a session alone cannot enrol an authenticator", async () => {
    const p = await makePatient();
    expect(
      await refusal(() => d.accounts.beginSetup(p, { password: "Not-the-password-1" }, p.client)),
    ).toMatchObject({ code: "invalid", message: "accounts.currentPasswordWrong" });
    expect(await d.accounts.pendingSetup(p)).toBeNull();

    const setup = await d.accounts.beginSetup(p, { password: p.password }, p.client);
    expect(setup.otpauthUrl).toMatch(/^otpauth:\/\/totp\//);
    expect(setup.secret).toMatch(/^[A-Z2-7]+=*$/);
    expect(await d.accounts.twoFactorStatus(p)).toMatchObject({ enabled: false, pending: true });
    // Confirming asks the password again.
    const app = authenticator(setup.secret);
    expect(
      await refusal(() =>
        d.accounts.confirmSetup(p, { password: "Not-the-password-1", code: app.code() }, p.client),
      ),
    ).toMatchObject({ message: "accounts.currentPasswordWrong" });
  });

  it("a wrong code leaves it off; the right code turns it on with 10 recovery codes and ends the other sessions", async () => {
    const p = await makePatient();
    const other = await d.accounts.login({ email: p.email, password: p.password }, newClient(), "api");
    const setup = await d.accounts.beginSetup(p, { password: p.password }, p.client);
    const app = authenticator(setup.secret);

    expect(
      await refusal(() => d.accounts.confirmSetup(p, { password: p.password, code: app.wrong() }, p.client)),
    ).toMatchObject({ code: "invalid", message: "mfa.codeWrong" });
    expect(await d.accounts.hasTwoFactor(p.id)).toBe(false);

    const { recoveryCodes } = await d.accounts.confirmSetup(
      p,
      { password: p.password, code: app.code() },
      p.client,
    );
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    expect(await d.accounts.twoFactorStatus(p)).toMatchObject({ enabled: true, recoveryCodesLeft: 10 });
    expect(await d.accounts.resolveToken(other.token!, "api")).toBeNull();
    expect(await d.accounts.resolveToken(p.token, "web")).toMatchObject({ id: p.id });
    // On already: a second setup is refused.
    expect(await refusal(() => d.accounts.beginSetup(p, { password: p.password }, p.client))).toMatchObject({
      code: "conflict",
      message: "mfa.alreadyOn",
    });
  });
});

describe("logging in with it", () => {
  it("the password alone gives a challenge; a code works once per time step", async () => {
    const { p, app } = await withTwoFactor();
    // The step that confirmed the setup is spent.
    const first = await challenge(p);
    expect(
      await refusal(() => d.accounts.loginSecondStep(first, { code: app.code() }, newClient(), "web")),
    ).toMatchObject({ code: "invalid", message: "mfa.codeUsed" });

    nextStep();
    const code = app.code();
    const ok = await d.accounts.loginSecondStep(first, { code }, newClient(), "web");
    expect(await d.accounts.resolveToken(ok.token, "web")).toMatchObject({ id: p.id });
    // The challenge is gone once passed …
    expect(
      await refusal(() => d.accounts.loginSecondStep(first, { code }, newClient(), "web")),
    ).toMatchObject({ code: "not_authenticated" });
    // … and the same code (same step) does not pass a second login.
    const second = await challenge(p);
    expect(
      await refusal(() => d.accounts.loginSecondStep(second, { code }, newClient(), "web")),
    ).toMatchObject({ message: "mfa.codeUsed" });
    expect(
      await refusal(() => d.accounts.loginSecondStep(second, { code: app.wrong() }, newClient(), "web")),
      // Every try of a challenge counts: the used code was the first of its five.
    ).toMatchObject({ message: "mfa.codeWrongLeft", extra: { values: { left: 3 } } });
  });

  it("a recovery code works once, in any case and with or without its dash", async () => {
    const { p, codes } = await withTwoFactor();
    const typed = codes[0].toUpperCase().replace("-", " ");
    const ok = await d.accounts.loginSecondStep(
      await challenge(p),
      { recoveryCode: typed },
      newClient(),
      "web",
    );
    expect(ok.user.id).toBe(p.id);
    expect((await d.accounts.twoFactorStatus(p)).recoveryCodesLeft).toBe(9);
    expect(
      await refusal(async () =>
        d.accounts.loginSecondStep(await challenge(p), { recoveryCode: codes[0] }, newClient(), "web"),
      ),
    ).toMatchObject({ code: "invalid", message: "mfa.recoveryWrong" });
  });

  it("new recovery codes replace the old ones", async () => {
    const { p, app, codes } = await withTwoFactor();
    nextStep();
    const { recoveryCodes } = await d.accounts.regenerateRecoveryCodes(p, { code: app.code() }, p.client);
    expect(recoveryCodes.some((c) => codes.includes(c))).toBe(false);
    expect(
      await refusal(async () =>
        d.accounts.loginSecondStep(await challenge(p), { recoveryCode: codes[1] }, newClient(), "web"),
      ),
    ).toMatchObject({ message: "mfa.recoveryWrong" });
    const ok = await d.accounts.loginSecondStep(
      await challenge(p),
      { recoveryCode: recoveryCodes[1] },
      newClient(),
      "web",
    );
    expect(ok.user.id).toBe(p.id);
  });
});

describe("turning it off", () => {
  it("needs the password and then a code; afterwards the password alone logs in", async () => {
    const { p, app } = await withTwoFactor();
    nextStep();
    expect(
      await refusal(() =>
        d.accounts.turnOffTwoFactor(p, { password: "Not-the-password-1", code: app.code() }, p.client),
      ),
    ).toMatchObject({ code: "invalid", message: "accounts.currentPasswordWrong" });
    expect(
      await refusal(() =>
        d.accounts.turnOffTwoFactor(p, { password: p.password, code: app.wrong() }, p.client),
      ),
    ).toMatchObject({ message: "mfa.codeWrong" });
    expect(await d.accounts.hasTwoFactor(p.id)).toBe(true);

    await d.accounts.turnOffTwoFactor(p, { password: p.password, code: app.code() }, p.client);
    expect(await d.accounts.twoFactorStatus(p)).toMatchObject({ enabled: false, pending: false });
    const r = await d.accounts.login({ email: p.email, password: p.password }, newClient(), "web");
    expect(r.token).toBeTruthy();
    expect(
      await refusal(() =>
        d.accounts.turnOffTwoFactor(p, { password: p.password, code: app.code() }, p.client),
      ),
    ).toMatchObject({ code: "conflict", message: "mfa.notOn" });
  });
});
