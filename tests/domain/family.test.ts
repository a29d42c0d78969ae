import { and, desc, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  actorOf,
  freshDomain,
  mailsTo,
  makeAdmin,
  makeExpert,
  makePatient,
  newClient,
  pdfBytes,
  refusal,
  uniqueMobile,
  type Domain,
  type Person,
} from "../helpers/factories";

/*
 * Family under one phone without HTTP: adding dependants with the consent their age needs, who may
 * then act for them, taking a profile over with an SMS code to the person's own number (wrong,
 * expired and used codes, minors, taken numbers, keeping or ending the manager's access), and the
 * manager's notice that never names the member. The screens and the API are in
 * tests/integration/family.test.ts.
 */

let d: Domain;
let care: typeof import("~/domain/care/index.server");
beforeAll(async () => {
  d = await freshDomain();
  care = await import("~/domain/care/index.server");
});
afterAll(() => d?.close());
afterEach(() => {
  vi.useRealTimers();
});

const PASSWORD = "Daughter-owns-9-reports";
const thisYear = new Date().getUTCFullYear();

function adult(overrides: Record<string, unknown> = {}) {
  return {
    firstName: "Meena",
    lastName: "Kumari",
    sex: "female",
    birthYear: thisYear - 24,
    relationship: "daughter",
    preferredLanguage: "hi",
    memberConsent: true,
    ...overrides,
  };
}
function child(overrides: Record<string, unknown> = {}) {
  return {
    firstName: "Raju",
    sex: "male",
    age: 9,
    relationship: "son",
    preferredLanguage: "hi",
    guardianConsent: true,
    ...overrides,
  };
}

async function consentsOf(patientId: string) {
  return d.db
    .db()
    .select()
    .from(d.schema.patientConsents)
    .where(eq(d.schema.patientConsents.patientId, patientId));
}

async function profile(id: string) {
  const [row] = await d.db.db().select().from(d.schema.patients).where(eq(d.schema.patients.id, id));
  return row;
}

/** The newest take-over code texted to `phone`. */
async function takeOverSms(phone: string) {
  const [row] = await d.db
    .db()
    .select()
    .from(d.schema.smsMessages)
    .where(and(eq(d.schema.smsMessages.to, phone), eq(d.schema.smsMessages.purpose, "takeover-code")))
    .orderBy(desc(d.schema.smsMessages.createdAt))
    .limit(1);
  return row;
}
const codeIn = (text: string) => /\b(\d{6})\b/.exec(text)![1];

async function memberReport(manager: Person, patientId: string) {
  const file = await d.records.storeUpload(
    (async function* () {
      yield new Uint8Array(pdfBytes());
    })(),
    { maxBytes: 10 * 1024 * 1024, allowed: "report", fileName: "report.pdf" },
  );
  return d.consultation.createReport(
    manager,
    {
      reportType: "Blood Test",
      description: "",
      phoneNumber: "98765 43210",
      countryCode: "+91",
      consent: "on",
    },
    file,
    { patientId },
  );
}

describe("adding family members", () => {
  it("an adult with their own consent: a managed profile with a short ID, the family phone and the consent recorded", async () => {
    const phone = uniqueMobile();
    const father = await makePatient({ phone, firstName: "Ramesh" });
    const m = await care.addFamilyMember(father, adult());
    expect(m).toMatchObject({
      firstName: "Meena",
      relationship: "daughter",
      self: false,
      minor: false,
      canTakeOver: true,
      hasOwnAccount: false,
      phone,
      phoneOwner: "family",
      phoneRelationship: "parent",
      preferredLanguage: "hi",
      birthYearEstimated: false,
    });
    expect(m.shortId).toMatch(/^CB-[0-9A-Z]{4}-[0-9A-Z]{2}$/);
    const [consent] = await consentsOf(m._id);
    expect(consent).toMatchObject({
      kind: "family",
      method: "online",
      granted: true,
      recordedBy: father.id,
      textVersion: care.MEMBER_CONSENT_VERSION,
    });
    expect((await care.patientAccess(father, m._id))?.kind).toBe("manager");
    expect(await care.hasConsentFor(m._id)).toBe(true);
    const list = await care.listFamily(father);
    expect(list.map((x) => [x.self, x.firstName])).toEqual([
      [true, "Ramesh"],
      [false, "Meena"],
    ]);
  });

  it("a child needs the guardian's consent: without it nothing is saved; an age gives an estimated year", async () => {
    const mother = await makePatient();
    // No consent at all, and the adult's box instead of the guardian's: both refused on the guardian's field.
    for (const body of [
      child({ guardianConsent: undefined }),
      child({ guardianConsent: false, memberConsent: true }),
    ]) {
      expect(await refusal(() => care.addFamilyMember(mother, body))).toMatchObject({
        code: "invalid",
        message: "family.guardianConsentRequired",
        extra: { fieldErrors: { guardianConsent: ["family.guardianConsentRequired"] } },
      });
    }
    expect(await care.listFamily(mother)).toHaveLength(1);
    const m = await care.addFamilyMember(mother, child());
    expect(m).toMatchObject({
      minor: true,
      canTakeOver: false,
      birthYear: thisYear - 9,
      birthYearEstimated: true,
    });
    expect((await consentsOf(m._id))[0]).toMatchObject({ kind: "guardian", relationship: "parent" });
    // The mother has no phone of her own: none for the child either.
    expect(m).toMatchObject({ phone: null, phoneOwner: "none" });
  });

  it("an adult's consent must be confirmed; bad input names its field", async () => {
    const p = await makePatient();
    expect(await refusal(() => care.addFamilyMember(p, adult({ memberConsent: false })))).toMatchObject({
      message: "family.memberConsentRequired",
    });
    const bad = await refusal(() =>
      care.addFamilyMember(p, {
        firstName: "",
        sex: "x",
        relationship: "cousin",
        preferredLanguage: "fr",
        age: -1,
      }),
    );
    expect(bad.code).toBe("invalid");
    expect(Object.keys(bad.extra.fieldErrors).sort()).toEqual(
      ["age", "firstName", "preferredLanguage", "relationship", "sex"].sort(),
    );
    expect(await refusal(() => care.addFamilyMember(p, adult({ birthYear: undefined })))).toMatchObject({
      message: "family.ageRequired",
    });
    expect(await refusal(() => care.addFamilyMember(p, adult({ birthYear: thisYear + 1 })))).toMatchObject({
      message: "family.birthYearInvalid",
    });
    expect(await refusal(() => care.addFamilyMember(p, { ...adult(), extra: 1 }))).toMatchObject({
      code: "invalid",
    });
  });

  it("only a patient account has a family; nobody else acts for the members", async () => {
    const p = await makePatient();
    const m = await care.addFamilyMember(p, adult());
    const expert = await makeExpert();
    expect(await refusal(() => care.addFamilyMember(expert, adult()))).toMatchObject({
      code: "forbidden",
      message: "family.patientsOnly",
    });
    expect(await refusal(() => care.listFamily(expert))).toMatchObject({ code: "forbidden" });
    const stranger = await makePatient();
    expect(await care.patientAccess(stranger, m._id)).toBeNull();
    expect(
      await refusal(() => d.consultation.listPatientReports(stranger, m._id, { page: 1, pageSize: 10 })),
    ).toMatchObject({ code: "forbidden" });
    expect((await care.patientAccess(await makeAdmin(), m._id))?.kind).toBe("admin");
  });
});

describe("the manager acts for the member; notices never name them", () => {
  it("uploads for the member, lists their reports, and hears of the opinion without the member's name", async () => {
    const phone = uniqueMobile();
    const father = await makePatient({ phone, firstName: "Ramesh" });
    const m = await care.addFamilyMember(father, adult({ firstName: "Sunita" }));
    const report = await memberReport(father, m._id);
    const list = await d.consultation.listPatientReports(father, m._id, { page: 1, pageSize: 10 });
    expect(list.items.map((r) => r._id)).toEqual([report._id]);
    // The father's own list does not hold it.
    const own = await d.consultation.listPatientReports(father, father.id, { page: 1, pageSize: 10 });
    expect(own.items).toHaveLength(0);

    const expert = await makeExpert();
    await d.consultation.claimReport(expert, report._id);
    await d.consultation.addReview(expert, report._id, { review: "Normal values" });
    const mails = await mailsTo(father.email, /family/);
    expect(mails[0].body).not.toContain("Sunita");
    let sms: { text: string } | undefined;
    for (let i = 0; i < 60 && !sms; i++) {
      [sms] = await d.db
        .db()
        .select()
        .from(d.schema.smsMessages)
        .where(and(eq(d.schema.smsMessages.to, phone), eq(d.schema.smsMessages.purpose, "opinion-ready")));
      if (!sms) await new Promise((r) => setTimeout(r, 50));
    }
    expect(sms?.text).toMatch(/family/);
    expect(sms?.text).not.toContain("Sunita");
  });
});

describe("taking a profile over", () => {
  /** What only she holds (decision 0055): her slip's short ID and year of birth. */
  const proofOf = (p: { shortId: string | null; birthYear: number | null }) => ({
    shortId: p.shortId ?? "",
    birthYear: p.birthYear ?? 0,
  });
  async function family() {
    const father = await makePatient({ phone: uniqueMobile(), firstName: "Ramesh" });
    const daughter = await care.addFamilyMember(father, adult());
    return { father, daughter };
  }

  it("her own number gets the code; with it and a password she has her own account under the profile's id, and may end his access", async () => {
    const { father, daughter } = await family();
    const report = await memberReport(father, daughter._id);
    const mobile = uniqueMobile();
    const sent = await care.startTakeOver(
      father,
      daughter._id,
      { phone: mobile, ...proofOf(daughter) },
      newClient(),
    );
    expect(sent.phone).toMatch(/^\+91\*+\d{4}$/);
    const sms = await takeOverSms(mobile);
    expect(sms.text).toContain("/take-over");
    expect(sms.text).not.toContain("Meena");
    const code = codeIn(sms.text);

    // A wrong code first: refused, the code still good.
    const wrong = code === "000000" ? "111111" : "000000";
    expect(
      await refusal(() =>
        care.completeTakeOver(
          { phone: mobile, code: wrong, password: PASSWORD, confirmPassword: PASSWORD, keepAccess: false },
          newClient(),
        ),
      ),
    ).toMatchObject({ code: "invalid", message: "accounts.otpWrong" });

    const user = await care.completeTakeOver(
      { phone: mobile, code, password: PASSWORD, confirmPassword: PASSWORD, keepAccess: false },
      newClient(),
    );
    expect(user).toMatchObject({
      id: daughter._id,
      phone: mobile,
      accountType: "Patient",
      firstName: "Meena",
    });
    const row = await profile(daughter._id);
    expect(row).toMatchObject({ accountId: daughter._id, phone: mobile, phoneOwner: "self" });
    expect(row.takenOverAt).toBeInstanceOf(Date);

    // Her reports are hers; the father's access ended at once.
    const her = await d.accounts.login({ phone: mobile, password: PASSWORD }, newClient(), "web");
    if (!her.token) throw new Error("a second step was asked");
    const herActor = actorOf(user, her.sessionId);
    const list = await d.consultation.listPatientReports(herActor, daughter._id, { page: 1, pageSize: 10 });
    expect(list.items.map((r) => r._id)).toEqual([report._id]);
    expect(await care.patientAccess(father, daughter._id)).toBeNull();
    expect(
      await refusal(() => d.consultation.listPatientReports(father, daughter._id, { page: 1, pageSize: 10 })),
    ).toMatchObject({ code: "forbidden" });
    expect((await care.listFamily(father)).map((m) => m._id)).not.toContain(daughter._id);

    // The code was used once; the profile cannot be taken over twice.
    expect(
      await refusal(() =>
        care.completeTakeOver(
          { phone: mobile, code, password: PASSWORD, confirmPassword: PASSWORD, keepAccess: false },
          newClient(),
        ),
      ),
    ).toMatchObject({ code: "invalid" });
  });

  it("she may let the manager keep access", async () => {
    const { father, daughter } = await family();
    const mobile = uniqueMobile();
    await care.startTakeOver(father, daughter._id, { phone: mobile, ...proofOf(daughter) }, newClient());
    const code = codeIn((await takeOverSms(mobile)).text);
    await care.completeTakeOver(
      { phone: mobile, code, password: PASSWORD, confirmPassword: PASSWORD, keepAccess: true },
      newClient(),
    );
    expect((await care.patientAccess(father, daughter._id))?.kind).toBe("manager");
    expect((await care.listFamily(father)).find((m) => m._id === daughter._id)).toMatchObject({
      hasOwnAccount: true,
      canTakeOver: false,
    });
    expect(
      await refusal(() =>
        care.startTakeOver(
          father,
          daughter._id,
          { phone: uniqueMobile(), ...proofOf(daughter) },
          newClient(),
        ),
      ),
    ).toMatchObject({ code: "conflict", message: "family.alreadyOwnAccount" });
  });

  it("an expired code is refused", async () => {
    const { father, daughter } = await family();
    const mobile = uniqueMobile();
    await care.startTakeOver(father, daughter._id, { phone: mobile, ...proofOf(daughter) }, newClient());
    const code = codeIn((await takeOverSms(mobile)).text);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 11 * 60 * 1000);
    expect(
      await refusal(() =>
        care.completeTakeOver(
          { phone: mobile, code, password: PASSWORD, confirmPassword: PASSWORD, keepAccess: true },
          newClient(),
        ),
      ),
    ).toMatchObject({ code: "invalid", message: "accounts.otpExpired" });
    expect((await profile(daughter._id)).accountId).toBeNull();
  });

  it("a minor cannot take over; a number with an account is refused; only the manager or the centre starts it", async () => {
    const { father, daughter } = await family();
    const son = await care.addFamilyMember(father, child());
    expect(
      await refusal(() => care.startTakeOver(father, son._id, { phone: uniqueMobile() }, newClient())),
    ).toMatchObject({ code: "invalid", message: "family.minorCannotTakeOver" });

    const taken = uniqueMobile();
    await makePatient({ phone: taken });
    expect(
      await refusal(() =>
        care.startTakeOver(father, daughter._id, { phone: taken, ...proofOf(daughter) }, newClient()),
      ),
    ).toMatchObject({
      code: "conflict",
      message: "family.numberTaken",
      extra: { fieldErrors: { phone: ["family.numberTaken"] } },
    });
    expect(await takeOverSms(taken)).toBeUndefined();

    const stranger = await makePatient();
    expect(
      await refusal(() =>
        care.startTakeOver(
          stranger,
          daughter._id,
          { phone: uniqueMobile(), ...proofOf(daughter) },
          newClient(),
        ),
      ),
    ).toMatchObject({ code: "forbidden" });
    const admin = await makeAdmin();
    expect(
      await refusal(() =>
        care.startTakeOver(admin, daughter._id, { phone: uniqueMobile(), ...proofOf(daughter) }, newClient()),
      ),
    ).toMatchObject({ code: "forbidden", message: "family.takeOverNotYours" });
    // The account's own profile already is the person's.
    expect(
      await refusal(() => care.startTakeOver(father, father.id, { phone: uniqueMobile() }, newClient())),
    ).toMatchObject({ code: "forbidden" });
    expect(
      await refusal(() =>
        care.startTakeOver(father, daughter._id, { phone: "12", ...proofOf(daughter) }, newClient()),
      ),
    ).toMatchObject({ code: "invalid" });
  });

  it("a number that got an account between the code and its use is refused, and nothing changes", async () => {
    const { father, daughter } = await family();
    const mobile = uniqueMobile();
    await care.startTakeOver(father, daughter._id, { phone: mobile, ...proofOf(daughter) }, newClient());
    const code = codeIn((await takeOverSms(mobile)).text);
    await makePatient({ phone: mobile });
    expect(
      await refusal(() =>
        care.completeTakeOver(
          { phone: mobile, code, password: PASSWORD, confirmPassword: PASSWORD, keepAccess: false },
          newClient(),
        ),
      ),
    ).toMatchObject({ code: "conflict", message: "family.numberTaken" });
    expect((await profile(daughter._id)).accountId).toBeNull();
    expect((await care.patientAccess(father, daughter._id))?.kind).toBe("manager");
  });
});

describe("after a take-over (decision 0055)", () => {
  const proofOf = (p: { shortId: string | null; birthYear: number | null }) => ({
    shortId: p.shortId ?? "",
    birthYear: p.birthYear ?? 0,
  });
  async function noticeToken(phone: string): Promise<string> {
    for (let i = 0; i < 200; i++) {
      const rows = await d.db
        .db()
        .select()
        .from(d.schema.smsMessages)
        .where(and(eq(d.schema.smsMessages.to, phone), eq(d.schema.smsMessages.purpose, "notice")));
      const hit = rows.find((r) => r.text.includes("/take-over/not-me/"));
      if (hit) return /\/take-over\/not-me\/([A-Za-z0-9_-]+)/.exec(hit.text)![1];
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`no notice to ${phone}`);
  }

  it("reported, listed, undone within 7 days: his access and her number come back, the login is gone", async () => {
    const dad = uniqueMobile();
    const father = await makePatient({ phone: dad, firstName: "Ramesh" });
    const daughter = await care.addFamilyMember(father, adult());
    const mobile = uniqueMobile();
    await care.startTakeOver(father, daughter._id, { phone: mobile, ...proofOf(daughter) }, newClient());
    const code = codeIn((await takeOverSms(mobile)).text);
    await care.completeTakeOver(
      { phone: mobile, code, password: PASSWORD, confirmPassword: PASSWORD, keepAccess: false },
      newClient(),
    );
    // The family's number (the profile's before) hears, with the link.
    const token = await noticeToken(dad);
    const self = { id: daughter._id, accountType: "Patient" as const };
    expect(await refusal(() => care.assertMayDeleteReports(self, daughter._id))).toMatchObject({
      code: "forbidden",
      message: "family.takeOverDeleteWait",
    });
    expect(await care.takeOverByToken(token, newClient())).toMatchObject({ reported: false, undone: false });
    await care.reportTakeOver(token, newClient());
    await care.reportTakeOver(token, newClient());
    const admin = await makeAdmin();
    const [row] = (await care.listTakeOvers(admin)).filter((t) => t.patient._id === daughter._id);
    expect(row).toMatchObject({ flag: "reported", canUndo: true, startedBy: { _id: father.id } });
    expect(await refusal(() => care.listTakeOvers(father))).toMatchObject({ code: "forbidden" });
    await care.undoTakeOver(admin, row._id);
    expect((await care.patientAccess(father, daughter._id))?.kind).toBe("manager");
    expect(await care.findPatient(daughter._id)).toMatchObject({
      accountId: null,
      phone: dad,
      phoneOwner: "family",
    });
    expect(await refusal(() => care.undoTakeOver(admin, row._id))).toMatchObject({ code: "conflict" });
    // She can take it over again (the old login gave way).
    const again = uniqueMobile();
    await care.startTakeOver(father, daughter._id, { phone: again, ...proofOf(daughter) }, newClient());
    await care.completeTakeOver(
      {
        phone: again,
        code: codeIn((await takeOverSms(again)).text),
        password: PASSWORD,
        confirmPassword: PASSWORD,
        keepAccess: true,
      },
      newClient(),
    );
    expect((await care.findPatient(daughter._id))?.accountId).toBe(daughter._id);
  });

  it("a health worker suspended: their unused codes die, their completed take-overs wait for review", async () => {
    const { centre, worker, patientId, slipCode } = await centrePatientWithSlip();
    const admin = await makeAdmin();
    const first = uniqueMobile();
    await care.startTakeOver(worker, patientId, { phone: first, slipCode }, newClient());
    await care.completeTakeOver(
      {
        phone: first,
        code: codeIn((await takeOverSms(first)).text),
        password: PASSWORD,
        confirmPassword: PASSWORD,
        keepAccess: true,
      },
      newClient(),
    );
    const other = await centrePatientWithSlip(centre, worker);
    const pending = uniqueMobile();
    await care.startTakeOver(
      worker,
      other.patientId,
      { phone: pending, slipCode: other.slipCode },
      newClient(),
    );
    const code = codeIn((await takeOverSms(pending)).text);
    await care.updateHealthWorker(admin, worker.id, { suspended: true });
    expect(
      await refusal(() =>
        care.completeTakeOver(
          { phone: pending, code, password: PASSWORD, confirmPassword: PASSWORD, keepAccess: true },
          newClient(),
        ),
      ),
    ).toMatchObject({ code: "invalid" });
    const listed = (await care.listTakeOvers(admin)).find((t) => t.patient._id === patientId);
    expect(listed).toMatchObject({ flag: "starter_suspended" });
  });

  async function centrePatientWithSlip(centre?: { id: string }, worker?: Person) {
    const { newId } = await import("~/lib/ids.server");
    const { makeCentre, makeHealthWorker } = await import("../helpers/factories");
    const c = centre ?? (await makeCentre());
    const w = worker ?? (await makeHealthWorker(c));
    const patientId = newId();
    const slip = `CB-${String(Math.floor(Math.random() * 9000) + 1000)}-${String(Math.floor(Math.random() * 90) + 10)}`;
    await d.db
      .db()
      .insert(d.schema.patients)
      .values({
        id: patientId,
        firstName: "Kamla",
        lastName: "Bai",
        birthYear: thisYear - 50,
        locale: "hi",
        centreId: c.id,
        registeredBy: w.id,
        shortId: slip,
      });
    // Its slip printed at registration, with the take-over code (decision 0073).
    const { slipCode } = await care.printSlip(w, patientId);
    return { centre: c, worker: w, patientId, slipCode };
  }
});
