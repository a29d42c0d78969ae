import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Secret, TOTP } from "otpauth";
import type { Actor } from "~/domain/accounts/sessions.server";
import type { Specialty } from "~/schemas/specialties";
import type { Client } from "~/domain/platform/client";
import { seedSqlite } from "./templates";

/*
 * Domain tests without HTTP: `freshDomain()` points the app at a fresh SQLite file and upload
 * folder (or, with TEST_BACKEND=pg-s3, a fresh PostgreSQL database and S3 bucket from the run's
 * shared servers) and only then imports the domain, because config() reads the environment once.
 * The builders below go through the domain's own functions, so a test's data is made the way the
 * app makes it; every call gets a unique e-mail, number and client address.
 *
 * One `freshDomain()` per test file: Vitest runs each file in its own process (pool "forks"), so
 * the module cache, the configuration and the database handle belong to that file alone.
 */

export const APP_URL = "http://carebridge.test";
export const PASSWORD = "Correct-horse-battery-9";

async function load() {
  return {
    accounts: await import("~/domain/accounts/index.server"),
    consultation: await import("~/domain/consultation/index.server"),
    care: await import("~/domain/care/index.server"),
    records: await import("~/domain/records/index.server"),
    sharing: await import("~/domain/sharing/index.server"),
    rights: await import("~/domain/rights/index.server"),
    messaging: await import("~/domain/messaging/index.server"),
    calls: await import("~/domain/calls/index.server"),
    platform: await import("~/domain/platform/index.server"),
    db: await import("~/db/client.server"),
    schema: await import("~/db/schema"),
    config: await import("~/config.server"),
  };
}

export type Domain = Awaited<ReturnType<typeof load>> & {
  /** The temporary folder holding the data folder (SQLite file, secrets, mail outbox) and uploads. */
  root: string;
  backend: "sqlite" | "pg-s3";
  /** Closes the database and removes the temporary folder. */
  close: () => Promise<void>;
};

let current: Domain | undefined;

/**
 * Sets the environment for a fresh app (extra variables in `env`, e.g. CLAIM_MAX) and imports the
 * domain. Rate limits stay on, as in production; the factories give each person their own address.
 */
export async function freshDomain(env: Record<string, string> = {}): Promise<Domain> {
  if (current) throw new Error("freshDomain() once per test file: config() reads the environment once");
  const root = mkdtempSync(path.join(os.tmpdir(), "cb-domain-"));
  for (const k of [
    "DATABASE_URL",
    "STORAGE_URL",
    "SMTP_URL",
    "SMS_URL",
    "ENCRYPTION_KEY",
    "SESSION_SECRET",
    "ADMIN_EMAIL",
    "ADMIN_PASSWORD",
    "RATE_LIMITS",
    "RATE_LIMIT_DISABLED",
  ]) {
    delete process.env[k];
  }
  const { backendEnv, onPostgres } = await import("./backends");
  Object.assign(process.env, {
    DATA_DIR: path.join(root, "data"),
    UPLOADS_DIR: path.join(root, "uploads"),
    LOG_LEVEL: "silent",
    APP_URL,
    ARGON2_MEMORY_KIB: "1024",
    ARGON2_TIME_COST: "1",
    MFA_REQUIRED_FOR_ADMINS: "false",
    // PostgreSQL database and bucket of its own (shared servers of the run); nothing on SQLite.
    ...(await backendEnv()),
    ...env,
  });
  // SQLite starts from the run's migrated template (tests/helpers/templates.ts), PostgreSQL too (backendEnv).
  if (!process.env.DATABASE_URL) seedSqlite(path.join(root, "data"));
  const mods = await load();
  // SQLite migrates when it opens; PostgreSQL under its advisory lock.
  mods.db.db();
  await mods.db.migrateDatabase();
  current = {
    ...mods,
    root,
    backend: onPostgres ? "pg-s3" : "sqlite",
    async close() {
      await mods.messaging.flushMail();
      await mods.db.closeDatabase();
      rmSync(root, { recursive: true, force: true });
      current = undefined;
    },
  };
  return current;
}

function domain(): Domain {
  if (!current) throw new Error("call freshDomain() first (in beforeAll)");
  return current;
}

// ---------------------------------------------------------------------------------------------
// Unique values

let seq = 0;
/** A short unique suffix: a counter and random hex (unique across parallel test files too). */
export function unique(prefix = "u") {
  seq++;
  return `${prefix}${seq}-${randomBytes(3).toString("hex")}`;
}

/** A fresh client (its own address, so one test's rate-limit counters never touch another's). */
export function newClient(): Client {
  const b = randomBytes(3);
  return { ip: `10.${b[0]}.${b[1]}.${b[2] || 1}`, userAgent: "vitest domain test" };
}

/** A unique e-mail address. */
export function uniqueEmail(kind = "person") {
  return `${unique(kind)}@example.test`;
}

/** A unique Indian mobile number (E.164), valid for SMS. */
export function uniqueMobile() {
  return `+9198${String(randomBytes(4).readUInt32BE(0) % 100_000_000).padStart(8, "0")}`;
}

// ---------------------------------------------------------------------------------------------
// People

/** A person as the tests use them: the domain's Actor (with a real session), plus how to act as them. */
export type Person = Actor & {
  password: string;
  /** The bearer of their session (web). */
  token: string;
  /** The address they act from. */
  client: Client;
};

type PersonOpts = {
  firstName?: string;
  lastName?: string;
  email?: string;
  phone?: string | null;
  /** The contact number's national digits (the dial code is +91). */
  contactNumber?: string;
  locale?: string;
  password?: string;
};

async function makePerson(
  accountType: "Patient" | "Expert" | "Admin",
  opts: PersonOpts & {
    approved?: boolean;
    specialties?: Specialty[];
    registrationNumber?: string | null;
  } = {},
): Promise<Person> {
  const d = domain();
  const password = opts.password ?? PASSWORD;
  const row = await d.accounts.insertUser({
    email: opts.email ?? uniqueEmail(accountType.toLowerCase()),
    phone: opts.phone ?? null,
    contactNumber: opts.contactNumber,
    password,
    firstName: opts.firstName ?? accountType,
    lastName: opts.lastName ?? unique("Tester"),
    accountType,
    approved: opts.approved,
    locale: opts.locale,
    expert:
      accountType === "Expert"
        ? {
            specialties: opts.specialties,
            registrationNumber:
              opts.registrationNumber === null ? undefined : (opts.registrationNumber ?? unique("REG-")),
          }
        : undefined,
  });
  const client = newClient();
  const session = await d.accounts.createSession(row.id, "web", client);
  return { ...actorOf(row, session.id), password, token: session.token, client };
}

/** Logs the person in again with their password (a new session elsewhere); fails when a second step is asked. */
export async function logIn(p: Pick<Person, "email" | "password">, kind: "web" | "api" = "web") {
  const r = await domain().accounts.login({ email: p.email, password: p.password }, newClient(), kind);
  if (!r.token) throw new Error("login asked for a second step");
  return { token: r.token, sessionId: r.sessionId };
}

/** The Actor of a user row, as a request with that session would see them. */
export function actorOf(
  u: {
    id: string;
    email: string;
    firstName: string;
    lastName: string;
    accountType: Actor["accountType"];
    approved: boolean;
    image: string | null;
    locale: string;
  },
  sessionId = "test",
): Actor {
  return {
    id: u.id,
    email: u.email,
    firstName: u.firstName,
    lastName: u.lastName,
    accountType: u.accountType,
    approved: u.approved,
    image: u.image,
    locale: u.locale,
    sessionId,
  };
}

export function makePatient(opts: PersonOpts = {}) {
  return makePerson("Patient", opts);
}

/** An expert; approved with a registration number unless told otherwise. */
export function makeExpert(
  opts: PersonOpts & {
    approved?: boolean;
    specialties?: Specialty[];
    registrationNumber?: string | null;
  } = {},
) {
  return makePerson("Expert", { approved: true, ...opts });
}

export function makeAdmin(opts: PersonOpts = {}) {
  return makePerson("Admin", opts);
}

// ---------------------------------------------------------------------------------------------
// Centres and their health workers (their signup belongs elsewhere: made straight in the tables)

/** A centre (a Health & Wellness Centre unless told otherwise). */
export async function makeCentre(
  opts: { name?: string; kind?: "hwc" | "phc" | "chc" | "clinic" | "csc" } = {},
) {
  const d = domain();
  const [row] = await d.db
    .db()
    .insert(d.schema.centres)
    .values({
      id: randomBytes(12).toString("hex"),
      name: opts.name ?? unique("Centre "),
      kind: opts.kind ?? "hwc",
      district: "Sitapur",
      state: "Uttar Pradesh",
      pinCode: "261001",
    })
    .returning();
  return row;
}

/** A health worker of `centre` with a session: an approved account unless told otherwise. */
export async function makeHealthWorker(
  centre: { id: string },
  opts: PersonOpts & { approved?: boolean; suspended?: boolean } = {},
): Promise<Person> {
  const d = domain();
  const { eq } = await import("drizzle-orm");
  const password = opts.password ?? PASSWORD;
  const row = await d.accounts.insertUser({
    email: opts.email ?? uniqueEmail("worker"),
    phone: opts.phone ?? null,
    contactNumber: opts.contactNumber,
    password,
    firstName: opts.firstName ?? "Worker",
    lastName: opts.lastName ?? unique("Tester"),
    accountType: "HealthWorker",
    locale: opts.locale,
  });
  const approved = opts.approved ?? true;
  await d.db
    .db()
    .update(d.schema.users)
    .set({ approved, suspendedAt: opts.suspended ? new Date() : null })
    .where(eq(d.schema.users.id, row.id));
  await d.db.db().insert(d.schema.healthWorkers).values({ userId: row.id, centreId: centre.id, role: "cho" });
  const client = newClient();
  const session = await d.accounts.createSession(row.id, "web", client);
  return { ...actorOf({ ...row, approved }, session.id), password, token: session.token, client };
}

// ---------------------------------------------------------------------------------------------
// Reports, claims, reviews, links

/** A small PDF-looking file (the type is sniffed from its first bytes). */
export function pdfBytes(size = 4_000) {
  const b = randomBytes(size);
  Buffer.from("%PDF-1.7\n").copy(b);
  return b;
}

async function* chunksOf(buf: Buffer, size = 8192) {
  for (let i = 0; i < buf.length; i += size) yield new Uint8Array(buf.subarray(i, i + size));
}

export type ReportOpts = {
  type?: string;
  urgency?: "routine" | "urgent";
  description?: string;
  /** Tick the consent box (records review consent with the upload). Default: ticked. */
  consent?: boolean;
  bytes?: Buffer;
};

/** A patient's report: an encrypted file stored, then the report filed, as an upload does. */
export async function makeReport(patient: Person | Actor, opts: ReportOpts = {}) {
  const d = domain();
  const file = await d.records.storeUpload(chunksOf(opts.bytes ?? pdfBytes()), {
    maxBytes: 10 * 1024 * 1024,
    allowed: "report",
    fileName: "report.pdf",
  });
  const urgent = opts.urgency === "urgent";
  return d.consultation.createReport(
    patient,
    {
      reportType: opts.type ?? "Blood Test",
      description: opts.description ?? "Please have a look",
      phoneNumber: "98765 43210",
      countryCode: "+91",
      ...(opts.consent === false ? {} : { consent: "on" }),
      ...(urgent ? { urgent: "true", urgentReason: "Chest pain" } : {}),
    },
    file,
  );
}

type ReportRef = { _id: string };

/** The expert starts reviewing the report ("Start review"); a second call renews the claim. */
export function claim(expert: Person | Actor, report: ReportRef) {
  return domain().consultation.claimReport(expert, report._id);
}

/** The expert writes the opinion. */
export function review(expert: Person | Actor, report: ReportRef, text = "Looks normal; repeat in 3 months") {
  return domain().consultation.addReview(expert, report._id, { review: text });
}

/** A patient's sharing link to one report; `token` is the last part of its URL. */
export async function makeShareLink(patient: Person, report: ReportRef, input: Record<string, unknown> = {}) {
  const link = await domain().sharing.createShareLink(
    patient,
    { reportId: report._id, ...input },
    { client: patient.client },
  );
  return { ...link, token: link.url.split("/s/")[1] };
}

// ---------------------------------------------------------------------------------------------
// Profiles others act for (decision 0030): rows written straight into the tables, small on purpose

/**
 * A family member without a login of their own, managed by `manager` (described as
 * `relationship`), with the consent given for them (a guardian's by default). Returns the profile id.
 */
export async function makeDependant(
  manager: Person | Actor,
  opts: {
    firstName?: string;
    relationship?: string;
    consent?: "guardian" | "family";
    birthYear?: number;
  } = {},
): Promise<string> {
  const d = domain();
  const { newId } = await import("~/lib/ids.server");
  const id = newId();
  const now = new Date();
  await d.db
    .db()
    .insert(d.schema.patients)
    .values({
      id,
      firstName: opts.firstName ?? "Anu",
      lastName: unique("Kumari"),
      sex: "female",
      birthYear: opts.birthYear ?? 2016,
      locality: "Sinnar",
      locale: "hi",
      createdAt: now,
      updatedAt: now,
    });
  await d.db
    .db()
    .insert(d.schema.patientManagers)
    .values({
      patientId: id,
      managerId: manager.id,
      relationship: opts.relationship ?? "daughter",
      createdAt: now,
    });
  await d.db
    .db()
    .insert(d.schema.patientConsents)
    .values({
      id: newId(),
      patientId: id,
      kind: opts.consent ?? "guardian",
      textVersion: "family-2026-11",
      locale: "hi",
      method: "online",
      recordedBy: manager.id,
      recordedByName: `${manager.firstName} ${manager.lastName}`,
      relationship: "father",
      createdAt: now,
    });
  return id;
}

/**
 * A centre with an approved health worker, and a patient the worker registered there (witnessed
 * verbal consent). `patient` makes an existing profile (e.g. a patient account's own) the centre's.
 */
export async function makeCentrePatient(opts: { patient?: string; centreName?: string } = {}) {
  const d = domain();
  const { newId } = await import("~/lib/ids.server");
  const now = new Date();
  const centre = await makeCentre({ name: opts.centreName ?? unique("Ayushman Arogya Mandir ") });
  const centreId = centre.id;
  const worker = await makeHealthWorker(centre, { firstName: "Sunita", lastName: unique("Pawar") });
  let patientId = opts.patient;
  if (patientId) {
    const { eq } = await import("drizzle-orm");
    await d.db
      .db()
      .update(d.schema.patients)
      .set({ centreId, registeredBy: worker.id })
      .where(eq(d.schema.patients.id, patientId));
  } else {
    patientId = newId();
    await d.db
      .db()
      .insert(d.schema.patients)
      .values({
        id: patientId,
        firstName: "Kamla",
        lastName: unique("Bai"),
        sex: "female",
        birthYear: 1950,
        birthYearEstimated: true,
        locality: "Sinnar",
        locale: "hi",
        centreId,
        registeredBy: worker.id,
        createdAt: now,
        updatedAt: now,
      });
  }
  await d.db
    .db()
    .insert(d.schema.patientConsents)
    .values({
      id: newId(),
      patientId,
      kind: "facilitated",
      textVersion: "facilitated-2026-11",
      locale: "hi",
      method: "witnessed",
      witnessName: "Gita Bai",
      recordedBy: worker.id,
      recordedByName: `${worker.firstName} ${worker.lastName}`,
      centreId,
      createdAt: now,
    });
  return { patientId, centreId, worker };
}

// ---------------------------------------------------------------------------------------------
// An authenticator app

const STEP_MS = 30_000;

/**
 * Codes computed from the secret the app shows, as an authenticator app does. The domain reads
 * the clock with Date.now(), so a test moves between 30-second steps with vi.setSystemTime.
 */
export function authenticator(secret: string) {
  const totp = new TOTP({ secret: Secret.fromBase32(secret.replace(/\s/g, "")) });
  return {
    /** The code of the step `offset` steps from now. */
    code(offset = 0) {
      return totp.generate({ timestamp: Date.now() + offset * STEP_MS });
    },
    /** Six digits that no step near now has. */
    wrong() {
      const near = new Set([-2, -1, 0, 1, 2].map((o) => this.code(o)));
      for (let i = 0; ; i++) {
        const c = String((123457 * (i + 7)) % 1_000_000).padStart(6, "0");
        if (!near.has(c)) return c;
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The mail outbox (no SMTP_URL: every message is an .eml file in data/outbox)

export type Mail = { file: string; to: string; subject: string; body: string };

function decodeQp(s: string) {
  return Buffer.from(
    s.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/gi, (_, h) => String.fromCharCode(parseInt(h, 16))),
    "latin1",
  ).toString("utf8");
}

function decodeWords(s: string) {
  return s.replace(/=\?utf-8\?([bq])\?([^?]*)\?=\s*/gi, (_, enc: string, text: string) =>
    enc.toLowerCase() === "b"
      ? Buffer.from(text, "base64").toString("utf8")
      : decodeQp(text.replace(/_/g, " ")),
  );
}

export function parseEml(file: string): Mail {
  const raw = readFileSync(file, "utf8");
  const split = (chunk: string) => {
    const at = chunk.indexOf("\n\n");
    return at < 0 ? [chunk, ""] : [chunk.slice(0, at), chunk.slice(at + 2)];
  };
  const [head] = split(raw);
  const headers = head.replace(/\n[ \t]+/g, " ");
  const header = (name: string) => new RegExp(`^${name}: (.*)$`, "mi").exec(headers)?.[1] ?? "";
  const bodies: string[] = [];
  for (const seg of raw.split(/\n--[^\n]*\n/)) {
    const [h, b] = split(seg);
    if (!/content-type: text\//i.test(h)) continue;
    const enc = /content-transfer-encoding: ([\w-]+)/i.exec(h)?.[1]?.toLowerCase();
    const body = b.replace(/\n--[^\n]*--\s*$/, "");
    bodies.push(
      enc === "base64"
        ? Buffer.from(body, "base64").toString("utf8")
        : enc === "quoted-printable"
          ? decodeQp(body)
          : body,
    );
  }
  return { file, to: header("To"), subject: decodeWords(header("Subject")), body: bodies.join("\n") };
}

/** Every message in the outbox, oldest first. */
export function outbox(): Mail[] {
  const dir = domain().config.config().outboxDir;
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => n.endsWith(".eml"))
    .sort()
    .map((n) => parseEml(path.join(dir, n)));
}

/**
 * Messages to `to` matching `subject`, waiting up to `timeoutMs` for at least one (notices are
 * sent in the background). The newest last.
 */
export async function mailsTo(to: string, subject: RegExp = /./, timeoutMs = 3000): Promise<Mail[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await domain().messaging.flushMail();
    const found = outbox().filter((m) => m.to.includes(to) && subject.test(m.subject));
    if (found.length || Date.now() > deadline) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The 6-digit code of the newest code mail to `to`. */
export async function codeMailedTo(to: string, timeoutMs = 3000): Promise<string> {
  const mails = await mailsTo(to, /\b\d{6}\b/, timeoutMs);
  const m = /\b(\d{6})\b/.exec(mails.at(-1)?.subject ?? "");
  if (!m) throw new Error(`no code mailed to ${to}`);
  return m[1];
}

/** The last path segment after `prefix` in the newest mail to `to` that has one (reset or cancel links). */
export async function linkTokenMailedTo(to: string, prefix: string, timeoutMs = 3000): Promise<string> {
  const re = new RegExp(`${prefix.replace(/[/.]/g, "\\$&")}/([A-Za-z0-9_-]+)`);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const mails = (await mailsTo(to, /./, 0)).filter((m) => re.test(m.body));
    if (mails.length) return re.exec(mails.at(-1)!.body)![1];
    if (Date.now() > deadline) throw new Error(`no ${prefix} link mailed to ${to}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// ---------------------------------------------------------------------------------------------
// Errors

/** The DomainError a call throws (fails the test when it does not throw). */
export async function refusal(fn: () => unknown): Promise<{ code: string; message: string; extra?: any }> {
  try {
    await fn();
  } catch (err) {
    if (err && typeof err === "object" && "code" in err) return err as { code: string; message: string };
    throw err;
  }
  throw new Error("expected the domain to refuse");
}
