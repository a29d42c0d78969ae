/**
 * Every rate-limit budget and its default (decisions 0008 and 0021), as plain data: the config
 * reads it to check `RATE_LIMITS` at start-up, `domain/platform/ratelimit.server.ts` counts with
 * it. It sits beside the config, on the config's floor, so the config reads nothing above it
 * (decision 0078).
 *
 * A budget counts per client `address` (a coarse abuse guard: a clinic, a health camp or a
 * carrier-grade NAT puts many people behind one address), per `account` (the account, the
 * e-mail or the number a message goes to, or — for the SMS country and range budgets — the
 * country or the block of numbers) and per `pair` (one account or number asked for from one
 * address). The tight limits are per account and per recipient. `RATE_LIMITS` (JSON) overrides
 * any entry without code, e.g. `{"upload":{"address":{"points":600,"duration":3600}}}`.
 */

export type Budget = { points: number; duration: number };
export type BudgetSet = { address?: Budget; account?: Budget; pair?: Budget };

const MINUTE = 60;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const per = (points: number, duration: number): Budget => ({ points, duration });

export const BUDGETS = {
  /** Code and reset-link mails (send-otp, signup, resend, forgot-password): per address, per e-mail. */
  mail: { address: per(200, HOUR), account: per(5, HOUR) },
  /** Every request for an SMS code (signup, login, reset): per address, per number and address. */
  sms: { address: per(200, HOUR), pair: per(5, HOUR) },
  /** SMS codes to one number from all addresses together (counted whether or not it has an account). */
  smsNumber: { account: per(10, HOUR) },
  /** Login and reset codes to a number whose budget above is spent, asked from an address its owner signed in from. */
  smsReserve: { account: per(3, HOUR) },
  /** Signup SMS per country (dial code): one country's pumping cannot spend every country's ceiling. */
  smsCountry: { account: per(200, HOUR) },
  /** Signup SMS per block of 1,000 numbers (all but the last 3 digits): pumping uses number ranges. */
  smsRange: { account: per(10, HOUR) },
  /** Checking a code (on top of the 5 tries each code allows): per address, per account and address. */
  verifyCode: { address: per(300, HOUR), pair: per(20, HOUR) },
  /** Every login attempt from one address, whatever the account (failures are handled by beginLogin). */
  login: { address: per(300, 15 * MINUTE) },
  /** Report uploads and display pictures. */
  upload: { address: per(600, HOUR), account: per(30, HOUR) },
  /**
   * Patients registered at a centre (decision 0059), apart from uploads: a day at a health camp per
   * worker. A refusal for the form's answers (checks failed, consent refused) gives its account point
   * back; the address still counts it.
   */
  registration: { address: per(600, HOUR), account: per(100, DAY) },
  /** A signed-in account re-entering its password (change password, delete account): stops guessing with a stolen session. */
  passwordCheck: { address: per(200, 15 * MINUTE), account: per(5, 15 * MINUTE) },
  /** The public contact and callback forms. */
  publicForm: { address: per(60, HOUR) },
  /** Checking an opinion letter's code at /verify (codes have 60 random bits; this stops scanning). */
  verifyLetter: { address: per(300, HOUR) },
  /** Sharing links (decision 0016): unknown tokens tried from one address (a known token gives its point back). */
  shareMiss: { address: per(30, HOUR) },
  /** Wrong passcodes on sharing links from one address (each link also locks after its own 5). */
  sharePasscode: { address: per(20, HOUR) },
  /** Counted opens of sharing links from one address. */
  shareOpen: { address: per(300, HOUR) },
  /** New sharing links (each with a passcode costs an Argon2 hash). */
  shareCreate: { address: per(300, HOUR), account: per(30, HOUR) },
  /**
   * Wrong second-factor codes (authenticator or recovery codes, at login and in Settings),
   * on top of the 5 tries each login challenge allows. Only failures count (a right code gives its point back).
   */
  mfa: { address: per(200, 15 * MINUTE), account: per(10, 15 * MINUTE) },
  /**
   * Hearing voice notes (GET/HEAD of the audio, decision 0058), per account: a player's Range
   * requests while listening stay far below it, a loop asking for a note over and over does not.
   */
  voiceAudio: { account: per(600, 10 * MINUTE) },
  /** Data exports (decision 0018): the FHIR Bundle and the "Download my data" ZIP (every file decrypted, every letter drawn). */
  dataExport: { address: per(100, HOUR), account: per(10, HOUR) },
  /** Wrong slip IDs and years of birth when starting a take-over (decision 0055), per profile: 5 a day, counted always. */
  takeOverProof: { account: per(5, 24 * HOUR) },
  /** Codes typed to prove a number before it is called (decision 0102), per profile: 5 an hour, counted always (a right one gives its point back). */
  numberProof: { account: per(5, HOUR) },
  /**
   * Opening a referral at /referral/{code} (decision 0114): the code and the patient's year of
   * birth. Only wrong tries count (a right one gives its point back): per address, and per code —
   * a code is locked for the day after 5 wrong years (or guesses).
   */
  referralTry: { address: per(30, HOUR), account: per(5, DAY) },
  /** Unknown "this was not me" links tried from one address (decision 0055). */
  takeOverReport: { address: per(30, HOUR) },
} satisfies Record<string, BudgetSet>;

export type LimitedAction = keyof typeof BUDGETS;
export type Budgets = Record<LimitedAction, BudgetSet>;

const SCOPES = ["address", "account", "pair"] as const;

/**
 * The budgets with `RATE_LIMITS` (a JSON object of overrides) applied, or an error message.
 * Only known budgets and scopes; points and duration (seconds) are positive whole numbers; a
 * scope a budget does not count is refused (it would do nothing).
 */
export function applyRateLimits(json: string | undefined): { budgets: Budgets } | { error: string } {
  const budgets = structuredClone(BUDGETS) as Budgets;
  if (!json) return { budgets };
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return { error: 'not valid JSON (e.g. {"upload":{"address":{"points":600,"duration":3600}}})' };
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed))
    return { error: "must be a JSON object of budget names" };
  for (const [name, scopes] of Object.entries(parsed as Record<string, unknown>)) {
    if (!Object.hasOwn(BUDGETS, name))
      return { error: `unknown budget "${name}" (known: ${Object.keys(BUDGETS).join(", ")})` };
    const target = budgets[name as LimitedAction];
    if (!scopes || typeof scopes !== "object" || Array.isArray(scopes))
      return { error: `${name}: must be an object such as {"address":{"points":600,"duration":3600}}` };
    for (const [scope, value] of Object.entries(scopes as Record<string, unknown>)) {
      if (!(SCOPES as readonly string[]).includes(scope) || !target[scope as keyof BudgetSet])
        return {
          error: `${name}.${scope}: ${name} counts only ${Object.keys(target).join(", ")}`,
        };
      const v = value as Partial<Budget> | null;
      const points = v?.points ?? target[scope as keyof BudgetSet]!.points;
      const duration = v?.duration ?? target[scope as keyof BudgetSet]!.duration;
      if (
        !v ||
        typeof v !== "object" ||
        !Number.isInteger(points) ||
        points < 1 ||
        points > 1_000_000_000 ||
        !Number.isInteger(duration) ||
        duration < 1 ||
        duration > 31_536_000
      )
        return {
          error: `${name}.${scope}: points and duration (seconds) must be whole numbers from 1`,
        };
      target[scope as keyof BudgetSet] = { points, duration };
    }
  }
  return { budgets };
}
