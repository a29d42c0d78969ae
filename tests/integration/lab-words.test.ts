import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi, strongPassword, uploadSamplePdf } from "../helpers/api";
import { openTestDb, type TestDb } from "../helpers/db";
import { Browserish, pageText, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/*
 * The lab words a patient reads, reviewed where they are used (decision 0108), over HTTP against the
 * built app, without JavaScript: the admin lists every test name and lab sentence of a language
 * beside the English, records who reviewed which and when, corrects one; the correction is what the
 * patient's and the expert's screens say from then on, and taking it back brings the first text
 * again. Nothing is called reviewed unless a row says who and when; bad input is refused with the
 * reason and records nothing; nobody but an admin reaches the screen. On Hindi screens no English
 * is left where a word exists: the expert's values are named in Hindi, the patient's language is
 * named in Hindi, and the Service screen names the clinic's time zone in words.
 */

const ADMIN = { email: "admin@words.test", password: "Admin-pass-2026" };
const SCREEN = "/dashboard/lab-words";
let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let db: TestDb;
let admin: Browserish;
let expert: Browserish;
let patient: Browserish;
const tok: Record<string, string> = {};
let patientId = "";
let reportId = "";
/** The clinic's today (India), as the date field sends it. */
const today = new Intl.DateTimeFormat("en-CA", { timeZone: "Asia/Kolkata" }).format(new Date());

async function signedIn(email: string, password = strongPassword) {
  const b = new Browserish(server.url);
  expect((await b.post("/login", { email, password })).status).toBe(302);
  return b;
}

/** A form post with repeated fields (the ticked words), as a browser without JavaScript sends it. */
const postForm = (b: Browserish, path: string, fields: [string, string][]) => b.post(path, fields);

/** The admin corrects one Hindi word, as the correction form posts it. */
const correct = (word: string, text: string, by = "Dr Meena Iyer, MD (Pathology)") =>
  postForm(admin, `${SCREEN}?language=hi&word=${word}`, [
    ["intent", "correct"],
    ["locale", "hi"],
    ["word", word],
    ["text", text],
    ["reviewedBy", by],
    ["reviewedOn", today],
  ]);

/** The screen's row of one word: its cells' text, its tick value and whether it says reviewed. */
async function row(word: string, query = "language=hi&kind=all") {
  const html = await (await admin.fetch(`${SCREEN}?${query}`)).text();
  const rows = html.split("<tr").slice(1);
  const own = rows.find((r) => r.includes(`value="${word}@`));
  if (!own) throw new Error(`no row for ${word}`);
  return {
    text: pageText(`<tr${own}`),
    tick: new RegExp(`value="(${word.replace(/\./g, "\\.")}@[0-9a-f]+)"`).exec(own)![1],
    reviewed: own.includes('data-review="reviewed"'),
  };
}

const labWordRows = (where = "1 = 1", ...params: unknown[]) =>
  db.all<{ locale: string; word: string; correction: string | null; reviewed_by: string | null }>(
    `SELECT locale, word, correction, reviewed_by FROM lab_words WHERE ${where} ORDER BY word`,
    ...params,
  );

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    RATE_LIMIT_DISABLED: "1",
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
  });
  db = await openTestDb(server.dataDir, { write: true });
  const api = apiClient(server.url);
  tok.admin = (await api.post("/auth/login", ADMIN)).body.token;
  const p = await signupViaApi(api, smtp, codeFrom, { email: "asha@words.test", firstName: "Asha" });
  tok.patient = p.token;
  patientId = p.user._id;
  const e = await signupViaApi(api, smtp, codeFrom, {
    email: "dr.rao@words.test",
    accountType: "Expert",
    firstName: "Kiran",
    lastName: "Rao",
    extra: {
      specialties: ["Pathology"],
      registrationNumber: "KMC-108",
      registrationCouncil: "Karnataka Medical Council",
      yearsOfPractice: 8,
    },
  });
  tok.expert = e.token;
  expect((await api.post("/expert/approve-expert", { expertId: e.user._id }, tok.admin)).status).toBe(200);
  const up = await uploadSamplePdf(api, tok.patient);
  expect(up.status, JSON.stringify(up.body)).toBe(201);
  reportId = up.body.data._id;
  // Two values as the reader stores them: a white cell count above its range, haemoglobin below.
  for (const [id, loinc, unit, value, range, low, high, printed] of [
    ["w-wbc", "6690-2", "10*3/uL", 12.5, "4.0-11.0", 4, 11, "WBC"],
    ["w-hb", "718-7", "g/dL", 9.8, "12.0-15.5", 12, 15.5, "Hb"],
  ] as const)
    await db.run(
      "insert into lab_values (id, report_id, loinc, printed_name, value, unit, printed_value, range_text, range_low, range_high, page, box, status, created_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      id,
      reportId,
      loinc,
      printed,
      value,
      unit,
      String(value),
      range,
      low,
      high,
      1,
      "[0.1,0.2,0.5,0.03]",
      "read",
      db.time(Date.now()),
    );
  expect((await api.post(`/report/claim/${reportId}`, {}, tok.expert)).status).toBe(200);
  admin = await signedIn(ADMIN.email, ADMIN.password);
  expert = (await signedIn("dr.rao@words.test")).inLanguage("hi");
  patient = (await signedIn("asha@words.test")).inLanguage("hi");
}, 120_000);

afterAll(async () => {
  await db?.close();
  await server?.stop();
  await smtp?.close();
});

describe("Hindi screens keep no English where a word exists", () => {
  it("the expert's values are named in Hindi, on the list and in the catalogue to add one from", async () => {
    const text = pageText(await (await expert.fetch(`/dashboard/add-review/${reportId}?add=1`)).text());
    expect(text).toContain("सफ़ेद रक्त कोशिकाएँ “ WBC ”");
    expect(text).toContain("हीमोग्लोबिन “ Hb ”");
    expect(text).toContain("हीमोग्लोबिन (g/dL, g/L)");
    expect(text).not.toContain("White blood cell count");
    expect(text).not.toMatch(/\bHaemoglobin\b/);
  });

  it("the phrase picker names the patient's language in Hindi, not as “English”", async () => {
    const html = await (await expert.fetch(`/dashboard/add-review/${reportId}`)).text();
    const picker = pageText(/data-testid="phrase-picker"[\s\S]*?<\/fieldset>/.exec(html)?.[0] ?? "");
    expect(picker).toContain("मरीज़ अंग्रेज़ी में पढ़ेंगे");
    expect(picker).not.toContain("English");
  });

  it("the Service screen names the clinic's time zone in words of the language, never Asia/Kolkata", async () => {
    const hi = pageText(await (await admin.inLanguage("hi").fetch("/dashboard/service")).text());
    expect(hi).toContain("समय क्लिनिक का है: भारतीय मानक समय (CLINIC_TIME_ZONE)");
    expect(hi).not.toContain("Asia/Kolkata");
    const en = pageText(await (await admin.fetch("/dashboard/service")).text());
    expect(en).toContain("Times are the clinic's: India Standard Time (CLINIC_TIME_ZONE)");
    expect(en).not.toContain("Asia/Kolkata");
  });
});

describe("the admin's lab words", () => {
  it("lists every test name and lab sentence of a language beside the English, none called reviewed", async () => {
    // One kind at a time unless all are asked for: first the sentences beside each value.
    const first = pageText(await (await admin.fetch(SCREEN)).text());
    expect(first).toContain("below the range printed on your report");
    expect(first).not.toContain("White blood cell count");
    const html = await (await admin.fetch(`${SCREEN}?language=hi&kind=all`)).text();
    const text = pageText(html);
    expect(text).toContain("Lab words in patients' languages");
    expect(text).toContain("White blood cell count");
    expect(text).toContain("सफ़ेद रक्त कोशिकाएँ");
    expect(text).toContain("Values from this report, checked by the expert");
    expect(text).toContain("इस रिपोर्ट के मान, विशेषज्ञ द्वारा जाँचे गए");
    expect(text).toContain("Above the printed range");
    // A test with no Hindi name says what the patient reads instead.
    expect((await row("name.787-2")).text).toContain(
      "No word in this language yet: patients read the English.",
    );
    // Every sentence and name is listed, each "Not yet reviewed"; none says it was.
    const ticks = html.match(/name="words"/g)?.length ?? 0;
    expect(ticks).toBeGreaterThan(190);
    expect(html.match(/data-review="not-reviewed"/g)?.length).toBe(ticks);
    expect(html).not.toContain('data-review="reviewed"');
    expect(text).toContain(`Hindi: 0 of ${ticks} reviewed`);
    const ta = pageText(await (await admin.fetch(`${SCREEN}?language=ta&kind=name`)).text());
    expect(ta).toContain("வெள்ளை இரத்த அணுக்கள்");
    expect(ta).not.toContain("Values from this report");
  });

  it("records who reviewed the ticked words and when: those words say so, the rest do not; audited", async () => {
    const below = await row("labs.below");
    const hb = await row("name.718-7");
    const res = await postForm(admin, `${SCREEN}?language=hi`, [
      ["intent", "review"],
      ["locale", "hi"],
      ["words", below.tick],
      ["words", hb.tick],
      ["reviewedBy", "Dr Meena Iyer, MD (Pathology)"],
      ["reviewedOn", today],
    ]);
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`${SCREEN}?language=hi`);
    expect(pageText(await (await admin.follow(res)).text())).toContain("Review recorded. Words: 2.");
    for (const word of ["labs.below", "name.718-7"]) {
      const r = await row(word);
      expect(r.reviewed, word).toBe(true);
      expect(r.text).toContain("Reviewed by Dr Meena Iyer, MD (Pathology) on");
      expect(r.text).toContain("Recorded by Admin");
    }
    expect((await row("labs.above")).reviewed).toBe(false);
    expect((await row("labs.below", "language=bn&kind=all")).reviewed).toBe(false);
    expect(await labWordRows()).toEqual([
      { locale: "hi", word: "labs.below", correction: null, reviewed_by: "Dr Meena Iyer, MD (Pathology)" },
      { locale: "hi", word: "name.718-7", correction: null, reviewed_by: "Dr Meena Iyer, MD (Pathology)" },
    ]);
    const audited = await db.all<{ subject_id: string }>(
      "SELECT subject_id FROM audit_events WHERE action = 'lab_word.review' ORDER BY subject_id",
    );
    expect(audited.map((a) => a.subject_id)).toEqual(["hi:labs.below", "hi:name.718-7"]);
  });

  it("refuses bad input with the reason, keeps what was typed, and records nothing", async () => {
    const above = await row("labs.above");
    const review = (fields: [string, string][]) =>
      postForm(admin, `${SCREEN}?language=hi`, [["intent", "review"], ["locale", "hi"], ...fields]);
    const stale = above.tick.replace(/@.*/, "@000000000000");
    for (const [res, said] of [
      [
        await review([
          ["words", above.tick],
          ["reviewedBy", " "],
          ["reviewedOn", today],
        ]),
        "Say who reviewed the words",
      ],
      [
        await review([
          ["words", above.tick],
          ["reviewedBy", "<b>Dr X</b>"],
          ["reviewedOn", today],
        ]),
        "Write plain text: no &lt; or &gt; and no line breaks.",
      ],
      [
        await review([
          ["words", above.tick],
          ["reviewedBy", "Dr X Y"],
          ["reviewedOn", "2999-01-01"],
        ]),
        "The day of the review cannot be after today.",
      ],
      [
        await review([
          ["words", above.tick],
          ["reviewedBy", "Dr X Y"],
          ["reviewedOn", "28/11/2026"],
        ]),
        "Give the day of the review as a date",
      ],
      [
        await review([
          ["reviewedBy", "Dr X Y"],
          ["reviewedOn", today],
        ]),
        "Tick at least one word the reviewer approved.",
      ],
      [
        await review([
          ["words", stale],
          ["reviewedBy", "Dr X Y"],
          ["reviewedOn", today],
        ]),
        "A word you ticked was changed since this page was shown.",
      ],
      [
        await correct("labs.above", "{{name}} {{value}} — सीमा से अधिक"),
        "Keep every place of the English sentence",
      ],
      [
        await correct("labs.above", "{{name}} {{value}} {{unit}} {{range}} {{extra}} अधिक"),
        "Keep every place of the English sentence",
      ],
      [
        await correct("labs.above", "{{name}} {{name}} {{value}} {{unit}} {{range}} से अधिक"),
        "Keep every place of the English sentence",
      ],
      [
        await correct("labs.above", "{{name}} {{value}} {{unit}} {range} से अधिक"),
        "Keep every place of the English sentence",
      ],
      [await correct("name.718-7", "Haemoglobin"), "Write the correction in Hindi (Devanagari script)."],
      [await correct("name.718-7", "ह".repeat(61)), "Write the test's name in 60 characters or fewer."],
      [await correct("name.718-7", "हीमोग्लोबिन <script>"), "Write plain text: no &lt; or &gt;"],
      [
        await correct("name.718-7", "हीमोग्लोबिन"),
        "That is already the text patients read: nothing to correct.",
      ],
      [await correct("name.718-7", "हीमोग्लोबिन जाँच", "Dr"), "Say who reviewed the words"],
    ] as const) {
      expect(res.status, said).toBe(400);
      expect(await res.text(), said).toContain(said);
    }
    // What was typed comes back: the reviewer's name in its field, the ticked word still ticked.
    const kept = await (
      await review([
        ["words", above.tick],
        ["reviewedBy", "Dr X Y"],
        ["reviewedOn", "2999-01-01"],
      ])
    ).text();
    expect(kept).toContain('value="Dr X Y"');
    const input = new RegExp(`<input[^>]*value="${above.tick}"[^>]*>`).exec(kept)?.[0] ?? "";
    expect(input).toContain("checked");
    // An unknown word, an unknown language: refused too.
    const unknown = await postForm(admin, SCREEN, [
      ["intent", "correct"],
      ["locale", "hi"],
      ["word", "labs.notALabWord"],
      ["text", "कुछ"],
      ["reviewedBy", "Dr X Y"],
      ["reviewedOn", today],
    ]);
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain("That is not one of the lab words.");
    const language = await postForm(admin, SCREEN, [
      ["intent", "review"],
      ["locale", "en"],
      ["words", above.tick],
      ["reviewedBy", "Dr X Y"],
      ["reviewedOn", today],
    ]);
    expect(language.status).toBe(400);
    expect(await language.text()).toContain("Choose Hindi, Bengali or Tamil.");
    expect((await labWordRows()).map((r) => r.word)).toEqual(["labs.below", "name.718-7"]);
    expect(await labWordRows("correction IS NOT NULL")).toEqual([]);
  });

  it("nobody but an admin reaches the screen or records anything", async () => {
    const anon = await new Browserish(server.url).fetch(SCREEN);
    expect(anon.status).toBe(302);
    expect(anon.headers.get("location")).toMatch(/^\/login\?redirectTo=/);
    const above = await row("labs.above");
    for (const b of [expert, patient]) {
      expect((await b.fetch(SCREEN)).status).toBe(404);
      const posted = await postForm(b, SCREEN, [
        ["intent", "review"],
        ["locale", "hi"],
        ["words", above.tick],
        ["reviewedBy", "Dr X Y"],
        ["reviewedOn", today],
      ]);
      expect(posted.status).toBe(404);
      const corrected = await postForm(b, SCREEN, [
        ["intent", "correct"],
        ["locale", "hi"],
        ["word", "name.718-7"],
        ["text", "खून का लाल रंग"],
        ["reviewedBy", "Dr X Y"],
        ["reviewedOn", today],
      ]);
      expect(corrected.status).toBe(404);
    }
    expect((await labWordRows()).map((r) => r.word)).toEqual(["labs.below", "name.718-7"]);
    expect(await labWordRows("correction IS NOT NULL")).toEqual([]);
  });

  it("a correction is what the patient's and the expert's screens say; taking it back brings the first text", async () => {
    // The correction form opens on the word, with the places the sentence keeps.
    const form = pageText(await (await admin.fetch(`${SCREEN}?language=hi&word=labs.below`)).text());
    expect(form).toContain("Correct a word");
    expect(form).toContain("{{range}} printed range");
    for (const [word, text] of [
      ["name.718-7", "हीमोग्लोबिन (ख़ून का लाल तत्व)"],
      ["labs.below", "{{name}}: {{value}} {{unit}} — रिपोर्ट पर छपी सामान्य सीमा {{range}} से नीचे"],
    ] as const) {
      const res = await correct(word, text);
      expect(res.status, word).toBe(302);
      expect(res.headers.get("location")).toBe(`${SCREEN}?language=hi`);
      expect(pageText(await (await admin.follow(res)).text())).toContain(
        "Correction saved: patients read it from now on.",
      );
      const r = await row(word);
      expect(r.text).toContain("Corrected on");
      expect(r.reviewed).toBe(true);
    }
    expect(await labWordRows("correction IS NOT NULL")).toHaveLength(2);
    const audited = await db.all<{ subject_id: string }>(
      "SELECT subject_id FROM audit_events WHERE action = 'lab_word.correct' ORDER BY subject_id",
    );
    expect(audited.map((a) => a.subject_id)).toEqual(["hi:labs.below", "hi:name.718-7"]);
    // The expert's list names haemoglobin the clinic's way.
    const review = pageText(await (await expert.fetch(`/dashboard/add-review/${reportId}`)).text());
    expect(review).toContain("हीमोग्लोबिन (ख़ून का लाल तत्व) “ Hb ”");
    // The values checked and the opinion given: her reports screen says the corrected words.
    const api = apiClient(server.url);
    for (const v of ["w-wbc", "w-hb"])
      expect(
        (
          await api.call(
            "PATCH",
            `/report/${reportId}/observations/${v}` as never,
            { action: "confirm" } as never,
            tok.expert,
          )
        ).status,
      ).toBe(200);
    expect(
      (
        await api.post(
          `/report/add-review/${reportId}`,
          { review: "Mild anaemia; see your doctor." },
          tok.expert,
        )
      ).status,
    ).toBe(200);
    const mine = pageText(await (await patient.fetch(`/dashboard/previous-report/${patientId}`)).text());
    expect(mine).toContain(
      "हीमोग्लोबिन (ख़ून का लाल तत्व) (Hb): 9.8 g/dL — रिपोर्ट पर छपी सामान्य सीमा 12.0-15.5 से नीचे",
    );
    // A sentence not corrected is the catalogue's own.
    expect(mine).toContain(
      "सफ़ेद रक्त कोशिकाएँ (WBC) 12.5 ×10³/µL — आपकी रिपोर्ट पर छपी सीमा 4.0-11.0 से अधिक",
    );
    // Taken back: the first text again, and the review (of the corrected text) no longer claimed.
    const back = await postForm(admin, `${SCREEN}?language=hi&word=name.718-7`, [
      ["intent", "revert"],
      ["locale", "hi"],
      ["word", "name.718-7"],
    ]);
    expect(back.status).toBe(302);
    expect(pageText(await (await admin.follow(back)).text())).toContain(
      "Correction removed: the first text is shown again.",
    );
    const r = await row("name.718-7");
    expect(r.reviewed).toBe(false);
    expect(r.text).toContain("Dr Meena Iyer, MD (Pathology) reviewed an earlier text on");
    const again = pageText(await (await patient.fetch(`/dashboard/previous-report/${patientId}`)).text());
    expect(again).toContain("हीमोग्लोबिन (Hb): 9.8 g/dL — रिपोर्ट पर छपी सामान्य सीमा 12.0-15.5 से नीचे");
    const twice = await postForm(admin, `${SCREEN}?language=hi`, [
      ["intent", "revert"],
      ["locale", "hi"],
      ["word", "name.718-7"],
    ]);
    expect(pageText(await (await admin.follow(twice)).text())).toContain(
      "This word has no correction to remove.",
    );
    expect((await db.all("SELECT id FROM audit_events WHERE action = 'lab_word.revert'")).length).toBe(1);
  });
});
