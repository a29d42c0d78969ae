import { Secret, TOTP } from "otpauth";

export const STEP_MS = 30_000;
/** now−1 is handed out only while this much of the current step is left (the server reads it soon after). */
const MARGIN_MS = 3_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/**
 * An authenticator app for tests that talk to a running server, which takes each 30-second step
 * once (`totp_factors.last_step`) and accepts the steps now−1, now and now+1. The app hands each
 * step out once, in rising order, starting one step back: three codes come at once, and a fourth
 * waits for the clock (up to a step). Near the end of a step it starts at now instead, so a code is
 * never one the server's clock has already moved past.
 */
export class TestAuthenticator {
  private last = -Infinity;
  constructor(public secret: string) {}

  codeAt(step: number) {
    return new TOTP({ secret: Secret.fromBase32(this.secret.replace(/\s/g, "")) }).generate({
      timestamp: step * STEP_MS,
    });
  }

  /** The first step this app may hand out now. */
  private first() {
    const nowMs = Date.now();
    const now = Math.floor(nowMs / STEP_MS);
    const left = (now + 1) * STEP_MS - nowMs;
    return Math.max(left > MARGIN_MS ? now - 1 : now, this.last + 1);
  }

  /** A code for a step not handed out before, in rising order (the server refuses a used or older step). */
  async next(): Promise<string> {
    for (;;) {
      const now = Math.floor(Date.now() / STEP_MS);
      const step = this.first();
      if (step <= now + 1) {
        this.last = step;
        return this.codeAt(step);
      }
      await sleep(this.last * STEP_MS - Date.now() + 250);
    }
  }

  /** A right code that this app has not handed out (not marked used). */
  peek() {
    return this.codeAt(this.first());
  }

  /** The code handed out last (the server has seen it). */
  lastCode() {
    return this.codeAt(this.last);
  }

  /** Six digits that no step near now has. */
  wrong() {
    const now = Math.floor(Date.now() / STEP_MS);
    const near = new Set([-2, -1, 0, 1, 2, 3].map((d) => this.codeAt(now + d)));
    for (let i = 0; ; i++) {
      const c = String((123457 * (i + 7)) % 1_000_000).padStart(6, "0");
      if (!near.has(c)) return c;
    }
  }
}
