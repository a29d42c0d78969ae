import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { config } from "~/config.server";
import type { Client } from "./client";
import { DomainError } from "./errors";

/**
 * Rate limits with rate-limiter-flexible (in memory: one process serves a clinic).
 * Each action is limited per account (e-mail) and per client address.
 */
const rules = {
  login: { account: { points: 10, duration: 15 * 60 }, client: { points: 100, duration: 15 * 60 } },
  sendCode: { account: { points: 5, duration: 60 * 60 }, client: { points: 30, duration: 60 * 60 } },
  verifyCode: { account: { points: 20, duration: 60 * 60 }, client: { points: 100, duration: 60 * 60 } },
  reset: { account: { points: 5, duration: 60 * 60 }, client: { points: 30, duration: 60 * 60 } },
} as const;

export type LimitedAction = keyof typeof rules;

const limiters = new Map<string, RateLimiterMemory>();
function limiter(action: LimitedAction, scope: "account" | "client") {
  const key = `${action}:${scope}`;
  let l = limiters.get(key);
  if (!l) {
    l = new RateLimiterMemory({ keyPrefix: key, ...rules[action][scope] });
    limiters.set(key, l);
  }
  return l;
}


/** Consumes one point for the account and the client; over either limit → rate_limited (429). */
export async function limit(action: LimitedAction, account: string, client: Client) {
  if (config().rateLimitDisabled) return;
  try {
    await Promise.all([
      limiter(action, "account").consume(account.toLowerCase()),
      limiter(action, "client").consume(client.ip),
    ]);
  } catch (res) {
    if (res instanceof RateLimiterRes) {
      const seconds = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
      throw new DomainError("rate_limited", "errors.tooManyRequests", {
        retryAfterSeconds: seconds,
        values: { seconds },
      });
    }
    throw res;
  }
}

/** Forgets an account's failures after a success (e.g. a correct login). */
export async function resetLimit(action: LimitedAction, account: string) {
  await limiter(action, "account").delete(account.toLowerCase());
}
