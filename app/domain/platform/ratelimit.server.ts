import { createHmac } from "node:crypto";
import { isIP } from "node:net";
import { and, isNotNull, lt } from "drizzle-orm";
import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { config } from "~/config.server";
import { affected, db } from "~/db/client.server";
import { databaseLimiter, rateLimitStoreHandle, type LimiterOptions } from "~/db/ratelimit-store.server";
import { rateLimits } from "~/db/schema";
import { BUDGETS, type Budget, type BudgetSet, type LimitedAction } from "~/budgets";
import type { Client } from "./client";
import { DomainError } from "./errors";

/**
 * Rate limits (decision 0008). Counters live in the database by default (table `rate_limits`),
 * so every worker process — and on PostgreSQL every node — counts together; each consume is one
 * atomic upsert. Budgets (app/budgets.ts, overridable with RATE_LIMITS) are per client address (an
 * IPv6 client counts by its /64; a coarse guard, since many people share one), per account or
 * recipient, and per account+address pair; one address exhausting its budget never touches
 * another address's budget.
 */

const MINUTE = 60;
const HOUR = 60 * MINUTE;

export { BUDGETS, type LimitedAction };

/** A budget as configured (the defaults in app/budgets.ts with RATE_LIMITS applied). */
const budgetOf = (action: LimitedAction): BudgetSet => config().budgets[action];

/**
 * Wrong passwords. No account is ever blocked for everyone: failures count per account+address;
 * after `freeFailures` from one address each further try from it waits a growing delay. Once the
 * account has seen `strictAfter` failures (from all addresses together) every failing address
 * waits from its first failure — but an address with no failures is still let through, so the
 * owner with the right password gets in. At `notifyAt` failures the owner is mailed (once a day).
 */
export const LOGIN = {
  window: HOUR,
  freeFailures: 5,
  baseDelay: 1,
  strictAfter: 20,
  strictBaseDelay: MINUTE,
  maxDelay: 15 * MINUTE,
  notifyAt: 10,
  notifyEvery: 24 * HOUR,
} as const;

let storeClient: unknown;
const limiters = new Map<string, RateLimiterAbstract>();

/**
 * "database": the app's database (counted by every worker and node; the store for the dialect is
 * built in app/db/ratelimit-store.server.ts). "memory": this process only.
 */
function createLimiter(opts: LimiterOptions): RateLimiterAbstract {
  return config().rateLimitStore === "memory" ? new RateLimiterMemory(opts) : databaseLimiter(opts);
}

function limiter(keyPrefix: string, budget: Budget): RateLimiterAbstract {
  if (config().rateLimitStore === "database") {
    const client = rateLimitStoreHandle();
    if (client !== storeClient) {
      // The database was reopened (tests, restarts inside one process): rebuild on the new handle.
      limiters.clear();
      storeClient = client;
    }
    prunePeriodically();
  }
  const id = `${keyPrefix}/${budget.points}/${budget.duration}`;
  let l = limiters.get(id);
  if (!l) {
    l = createLimiter({ keyPrefix, ...budget });
    limiters.set(id, l);
  }
  return l;
}

/** Stored keys are keyed hashes: the table never holds an e-mail address, a phone number or an IP address. */
function hashed(raw: string) {
  return createHmac("sha256", config().sessionSecret).update(raw).digest("base64url").slice(0, 22);
}

/** An IPv6 client usually holds a whole /64, so it counts as one address; IPv4 as is. */
export function addressKey(ip: string): string {
  const a = ip.trim().toLowerCase().split("%")[0];
  if (isIP(a) !== 6 || a.includes(".")) return a || "unknown";
  const [h, t] = a.includes("::") ? a.split("::") : [a, undefined];
  const head = h ? h.split(":") : [];
  const tail = t ? t.split(":") : [];
  const groups =
    t === undefined ? head : [...head, ...Array(8 - head.length - tail.length).fill("0"), ...tail];
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(":")}::/64`;
}

const accountKey = (account: string) => account.trim().toLowerCase();
const pairKey = (account: string, client: Client) => `${accountKey(account)}|${addressKey(client.ip)}`;

function tooMany(msBeforeNext: number) {
  const seconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new DomainError("rate_limited", "errors.tooManyRequests", {
    retryAfterSeconds: seconds,
    values: { seconds },
  });
}

async function consume(keyPrefix: string, budget: Budget, key: string) {
  try {
    await limiter(keyPrefix, budget).consume(hashed(key));
  } catch (res) {
    if (res instanceof RateLimiterRes) throw tooMany(res.msBeforeNext);
    throw res;
  }
}

const mailCeiling = (): Budget => ({ points: config().mailPerHour, duration: HOUR });

/**
 * Consumes one point of the action's budget for the client's address, then — when an account is
 * given — the account+address pair's and the account's (each only when the action counts it);
 * mails also count against the hourly ceiling for all senders (MAIL_PER_HOUR). Over any →
 * rate_limited (429 with Retry-After). The address is checked first, so a refused address spends
 * nothing of an account's or everyone's budget.
 */
export async function limit(action: LimitedAction, account: string | null, client: Client) {
  if (config().rateLimitDisabled) return;
  const budget = budgetOf(action);
  if (budget.address) await consume(`${action}:address`, budget.address, addressKey(client.ip));
  if (budget.pair && account) await consume(`${action}:pair`, budget.pair, pairKey(account, client));
  if (budget.account && account) await consume(`${action}:account`, budget.account, accountKey(account));
  if (action === "mail") await consume("mail:all", mailCeiling(), "all");
}

/**
 * Gives back the point `limit()` took (address, pair and account), for budgets that count only failures:
 * take the point before checking (parallel tries cannot slip through), return it when the check passed.
 * `accountOnly`: the account's and the pair's point come back, the address keeps counting it.
 */
export async function forgive(
  action: LimitedAction,
  account: string | null,
  client: Client,
  opts: { accountOnly?: boolean } = {},
) {
  if (config().rateLimitDisabled) return;
  const budget = budgetOf(action);
  if (budget.address && !opts.accountOnly)
    await limiter(`${action}:address`, budget.address).reward(hashed(addressKey(client.ip)));
  if (budget.pair && account)
    await limiter(`${action}:pair`, budget.pair).reward(hashed(pairKey(account, client)));
  if (budget.account && account)
    await limiter(`${action}:account`, budget.account).reward(hashed(accountKey(account)));
}

/**
 * Tries at a proof of who someone is (decision 0055: a take-over's slip ID and year of birth), per
 * subject: counted whatever RATE_LIMIT_DISABLED says — they bound guessing, they are not load
 * shedding. `take` before checking (parallel tries cannot slip through); `give back` when it passed.
 */
export const proofTries = {
  async take(action: LimitedAction, subject: string) {
    const budget = budgetOf(action).account;
    if (budget) await consume(`${action}:account`, budget, accountKey(subject));
  },
  async giveBack(action: LimitedAction, subject: string) {
    const budget = budgetOf(action).account;
    if (budget) await limiter(`${action}:account`, budget).reward(hashed(accountKey(subject)));
  },
};

/** What an SMS code is for: signup codes and account codes (login, reset) have separate ceilings. */
export type SmsCeiling = "signup" | "account";

const smsCeiling = (): Budget => ({ points: config().smsPerHour, duration: HOUR });

/** Whether a counter has points left, without taking one (so asking about nobody costs nobody). */
async function peek(keyPrefix: string, budget: Budget, key: string) {
  const res = await limiter(keyPrefix, budget).get(hashed(key));
  if (res && res.consumedPoints >= budget.points) throw tooMany(res.msBeforeNext);
}

/**
 * The budgets of an SMS code to `phone` (E.164) of the country `country` (decision 0021), after
 * `limit("sms", phone, client)` has counted the request per address and per number+address:
 *
 * - the number's budget (`smsNumber`), taken whether or not a message follows, so the answer
 *   never tells whether the number has an account; once it is spent, a login or reset code may
 *   still come from the reserve (`smsReserve`) when `fromOwner()` (the request carries the
 *   "known device" mark of the number's owner: a browser or app the owner logged in on);
 * - for signup codes, the country's and the number block's budgets (`smsCountry`, `smsRange`);
 * - the hourly ceiling of the purpose (SMS_PER_HOUR each for signup codes and for login and
 *   reset codes, so signup codes can never starve the others).
 *
 * The ceiling (and the country and range budgets) are taken only when `queued`, i.e. a message is
 * really sent; otherwise they are only checked, so asking for numbers without an account spends
 * nobody's budget but answers like a real one would.
 */
export async function limitSms(
  phone: string,
  country: string,
  ceiling: SmsCeiling,
  opts: { queued: boolean; fromOwner?: () => Promise<boolean> },
) {
  if (config().rateLimitDisabled) return;
  const b = config().budgets;
  try {
    await consume("smsNumber:account", b.smsNumber.account!, accountKey(phone));
  } catch (err) {
    if (!(ceiling === "account" && opts.fromOwner && (await opts.fromOwner()))) throw err;
    await consume("smsReserve:account", b.smsReserve.account!, accountKey(phone));
  }
  const take = opts.queued ? consume : peek;
  if (ceiling === "signup") {
    await take("smsCountry:account", b.smsCountry.account!, country);
    await take("smsRange:account", b.smsRange.account!, phone.slice(0, -3));
  }
  await take(`sms:all:${ceiling}`, smsCeiling(), "all");
}

/** One point of the hourly mail ceiling for a mail nobody asked for (e.g. a security notice); false when spent. */
export async function takeMailPoint(): Promise<boolean> {
  if (config().rateLimitDisabled) return true;
  try {
    await consume("mail:all", mailCeiling(), "all");
    return true;
  } catch (err) {
    if (err instanceof DomainError) return false;
    throw err;
  }
}

export type LoginAttempt = {
  /** The password was right: this address's failures for the account are forgotten. */
  succeeded(): Promise<void>;
  /** The password was wrong; `notifyOwner` is true once a day when the account sees many failures. */
  failed(): Promise<{ notifyOwner: boolean }>;
};

const NO_LIMITS: LoginAttempt = {
  succeeded: async () => {},
  failed: async () => ({ notifyOwner: false }),
};

const failureCounter = { points: 1_000_000, duration: LOGIN.window };

/**
 * Call before checking a password. Counts the attempt as a failure up front (so parallel guesses
 * cannot slip past the delay) and refuses it (rate_limited) when the address is over its login
 * budget or has to wait; settle the returned attempt once the password is checked.
 */
export async function beginLogin(account: string, client: Client): Promise<LoginAttempt> {
  if (config().rateLimitDisabled) return NO_LIMITS;
  await consume("login:address", budgetOf("login").address!, addressKey(client.ip));
  const pair = hashed(pairKey(account, client));
  const acct = hashed(accountKey(account));
  const pairFailures = limiter("login:fail:pair", failureCounter);
  const accountFailures = limiter("login:fail:account", failureCounter);
  const [p, a] = await Promise.all([pairFailures.penalty(pair), accountFailures.penalty(acct)]);
  const strict = a.consumedPoints > LOGIN.strictAfter;
  const free = strict ? 1 : LOGIN.freeFailures;
  if (p.consumedPoints >= free) {
    // This try is allowed only when the previous one's wait is over; it starts the next, longer wait.
    const steps = p.consumedPoints - free;
    const seconds = Math.min((strict ? LOGIN.strictBaseDelay : LOGIN.baseDelay) * 2 ** steps, LOGIN.maxDelay);
    try {
      await limiter("login:wait", { points: 1, duration: seconds }).consume(pair);
    } catch (res) {
      // Refused before any password was checked: not a failure.
      await Promise.all([pairFailures.reward(pair), accountFailures.reward(acct)]);
      if (res instanceof RateLimiterRes) throw tooMany(res.msBeforeNext);
      throw res;
    }
  }
  return {
    async succeeded() {
      await Promise.all([
        pairFailures.delete(pair),
        limiter("login:wait", { points: 1, duration: 1 }).delete(pair),
        accountFailures.reward(acct),
      ]);
    },
    async failed() {
      if (a.consumedPoints < LOGIN.notifyAt) return { notifyOwner: false };
      try {
        await limiter("login:notice", { points: 1, duration: LOGIN.notifyEvery }).consume(acct);
        return { notifyOwner: true };
      } catch (res) {
        if (res instanceof RateLimiterRes) return { notifyOwner: false };
        throw res;
      }
    },
  };
}

const PRUNE_EVERY_MS = 10 * 60 * 1000;
let lastPrune = 0;

/** Deletes counters whose window is over (any worker or node may run it; it is idempotent). */
export async function pruneRateLimits(now = Date.now()): Promise<number> {
  lastPrune = now;
  return affected(
    await db()
      .delete(rateLimits)
      .where(and(isNotNull(rateLimits.expire), lt(rateLimits.expire, now))),
  );
}

function prunePeriodically() {
  const now = Date.now();
  if (now - lastPrune < PRUNE_EVERY_MS) return;
  lastPrune = now;
  // In the background: a busy database just means the next period tries again.
  pruneRateLimits(now).catch(() => {});
}
