import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LetterData } from "~/domain/consultation/letter-pdf.server";

// Real PDFs checked with poppler-utils (pdftotext, pdfinfo, pdftoppm): the text must come out in
// logical order (ActualText per line), in every language. Page images for a human look land in
// test-results/letters/.

let renderLetterPdf: typeof import("~/domain/consultation/letter-pdf.server").renderLetterPdf;
let textWidth: typeof import("~/domain/consultation/letter-pdf.server").textWidth;
let tmp: string;
const pngDir = path.resolve("test-results/letters");
const VERIFY = "https://carebridge.example/verify/7K2M-9QXD-4TPA";

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "cb-letter-"));
  mkdirSync(pngDir, { recursive: true });
  ({ renderLetterPdf, textWidth } = await import("~/domain/consultation/letter-pdf.server"));
});

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const en: LetterData = {
  locale: "en",
  productName: "CareBridge",
  patientName: "Asha Devi Sharma",
  reportType: "Chest X-ray",
  submittedOn: "3 March 2025",
  reviewedOn: "5 March 2025",
  summary:
    "The chest X-ray shows a small patch of infection in the lower part of the right lung, most likely a mild pneumonia.",
  findings:
    "The heart is of normal size. There is no fluid around the lungs. The bones of the chest look normal for your age. The accompanying blood report shows HbA1c ≥ 6.5%, which is in the diabetic range.",
  recommendations:
    "Please see a chest physician within two weeks. A repeat X-ray after 6 weeks of treatment will show whether the patch has cleared.\nKeep your blood sugar under control and discuss the HbA1c result with your family doctor.",
  followUps: [
    {
      question: "Do I need a CT scan?",
      answer: "Not at this stage. A CT scan is needed only if the repeat X-ray still shows the patch.",
      askedOn: "6 March 2025",
      answeredOn: "7 March 2025",
    },
    { question: "क्या मुझे दवा बदलनी चाहिए?", answer: null, askedOn: "8 March 2025", answeredOn: null },
  ],
  expert: {
    name: "Dr. Meera Iyer",
    registrationNumber: "KMC-48213",
    registrationCouncil: "Karnataka Medical Council",
    specialties: "Pulmonology, Internal medicine",
  },
  verificationCode: "7K2M-9QXD-4TPA",
  text: {
    title: "Second opinion",
    patientLabel: "Patient",
    reportLabel: "Report type",
    submittedLabel: "Submitted",
    reviewedLabel: "Reviewed",
    summaryLabel: "Summary",
    findingsLabel: "Findings",
    recommendationsLabel: "Recommendations",
    seeDoctorSoon: "Please see a doctor within the next 48 hours: some findings need prompt attention.",
    followUpsLabel: "Follow-up questions",
    questionLabel: "Question",
    answerLabel: "Answer",
    notAnsweredYet: "Not answered yet",
    signedByLabel: "Reviewed by",
    registrationLabel: "Reg. No.",
    verificationLabel: "Verification code",
    verifyHint: `Check this letter at ${VERIFY}`,
    disclaimer:
      "This second opinion is based only on the documents you uploaded. It does not replace an examination by a doctor who can see you in person. In an emergency, go to the nearest hospital.",
  },
};

const hi: LetterData = {
  locale: "hi",
  productName: "CareBridge",
  patientName: "श्रीमती आशा देवी शर्मा",
  reportType: "छाती का एक्स-रे",
  submittedOn: "3 मार्च 2025",
  reviewedOn: "5 मार्च 2025",
  summary:
    "छाती के एक्स-रे की समीक्षा से पता चलता है कि दाएँ फेफड़े के निचले हिस्से में हल्का संक्रमण है, जो संभवतः निमोनिया है।",
  findings:
    "हृदय का आकार सामान्य है। फेफड़ों के आसपास पानी नहीं है। द्वितीय एक्स-रे (2 मार्च) में भी यही स्थिति दिखती है। साथ की रक्त जाँच में HbA1c ≥ 6.5% पाया गया, जो मधुमेह की श्रेणी में आता है।",
  recommendations:
    "दो हफ़्ते के भीतर छाती रोग विशेषज्ञ से मिलें। इलाज के 6 हफ़्ते बाद एक्स-रे दोबारा कराएँ और पर्याप्त विश्राम करें।",
  followUps: [
    {
      question: "क्या मुझे सीटी स्कैन की ज़रूरत है?",
      answer: "अभी नहीं। सीटी स्कैन तभी ज़रूरी होगा जब दोबारा एक्स-रे में भी धब्बा दिखे।",
      askedOn: "6 मार्च 2025",
      answeredOn: "7 मार्च 2025",
    },
    { question: "Can I continue my morning walks?", answer: null, askedOn: "8 मार्च 2025", answeredOn: null },
  ],
  expert: {
    name: "Dr. Meera Iyer",
    registrationNumber: "KMC-48213",
    registrationCouncil: "कर्नाटक मेडिकल काउंसिल",
    specialties: "फेफड़ा रोग, आंतरिक चिकित्सा",
  },
  verificationCode: "7K2M-9QXD-4TPA",
  text: {
    title: "दूसरी राय",
    patientLabel: "मरीज़",
    reportLabel: "रिपोर्ट का प्रकार",
    submittedLabel: "जमा करने की तारीख",
    reviewedLabel: "समीक्षा की तारीख",
    summaryLabel: "सारांश",
    findingsLabel: "निष्कर्ष",
    recommendationsLabel: "सलाह",
    seeDoctorSoon:
      "कृपया अगले 48 घंटों के भीतर डॉक्टर से मिलें, क्योंकि कुछ निष्कर्षों पर तुरंत ध्यान देना ज़रूरी है।",
    followUpsLabel: "आगे के सवाल",
    questionLabel: "सवाल",
    answerLabel: "जवाब",
    notAnsweredYet: "अभी जवाब नहीं मिला है",
    signedByLabel: "समीक्षक",
    registrationLabel: "पंजीकरण सं.",
    verificationLabel: "सत्यापन कोड",
    verifyHint: `इस पत्र की जाँच ${VERIFY} पर करें।`,
    disclaimer:
      "यह दूसरी राय केवल आपके द्वारा अपलोड किए गए दस्तावेज़ों पर आधारित है। यह उस डॉक्टर की जाँच की जगह नहीं लेती जो आपको स्वयं देख सके। आपात स्थिति में नज़दीकी अस्पताल जाएँ।",
  },
};

const bn: LetterData = {
  locale: "bn",
  productName: "CareBridge",
  patientName: "সুমিতা বন্দ্যোপাধ্যায়",
  reportType: "বুকের এক্স-রে",
  submittedOn: "3 মার্চ 2025",
  reviewedOn: "5 মার্চ 2025",
  summary: "বুকের এক্স-রে পরীক্ষা করে দেখা যাচ্ছে যে ডান ফুসফুসের নিচের অংশে সামান্য সংক্রমণ রয়েছে।",
  findings:
    "হৃৎপিণ্ডের আকার স্বাভাবিক। ফুসফুসের চারপাশে কোনো জল জমেনি। রক্তে শর্করার মাত্রা HbA1c 6.8%, যা নিয়ন্ত্রণে রাখা দরকার।",
  recommendations:
    "দুই সপ্তাহের মধ্যে একজন বক্ষরোগ বিশেষজ্ঞের সঙ্গে দেখা করুন। অন্তত ছয় সপ্তাহ চিকিৎসার পরে আবার এক্স-রে করান।",
  followUps: [
    {
      question: "আমার কি সিটি স্ক্যান করাতে হবে?",
      answer: "এখন নয়। আবার এক্স-রে করার পরেও দাগ থাকলে তবেই সিটি স্ক্যান লাগবে।",
      askedOn: "6 মার্চ 2025",
      answeredOn: "7 মার্চ 2025",
    },
    {
      question: "আমি কি সকালে হাঁটা চালিয়ে যেতে পারি?",
      answer: null,
      askedOn: "8 মার্চ 2025",
      answeredOn: null,
    },
  ],
  expert: {
    name: "Dr. Meera Iyer",
    registrationNumber: "KMC-48213",
    registrationCouncil: "কর্ণাটক মেডিকেল কাউন্সিল",
    specialties: "বক্ষরোগ, মেডিসিন",
  },
  verificationCode: "7K2M-9QXD-4TPA",
  text: {
    title: "দ্বিতীয় মতামত",
    patientLabel: "রোগী",
    reportLabel: "রিপোর্টের ধরন",
    submittedLabel: "জমা দেওয়ার তারিখ",
    reviewedLabel: "পর্যালোচনার তারিখ",
    summaryLabel: "সারাংশ",
    findingsLabel: "পর্যবেক্ষণ",
    recommendationsLabel: "পরামর্শ",
    seeDoctorSoon:
      "অনুগ্রহ করে আগামী 48 ঘণ্টার মধ্যে একজন ডাক্তার দেখান, কারণ কিছু পর্যবেক্ষণে দ্রুত মনোযোগ প্রয়োজন।",
    followUpsLabel: "পরবর্তী প্রশ্ন",
    questionLabel: "প্রশ্ন",
    answerLabel: "উত্তর",
    notAnsweredYet: "এখনও উত্তর দেওয়া হয়নি",
    signedByLabel: "পর্যালোচনা করেছেন",
    registrationLabel: "রেজি. নং",
    verificationLabel: "যাচাই কোড",
    verifyHint: `এই চিঠিটি ${VERIFY} ঠিকানায় যাচাই করুন।`,
    disclaimer:
      "এই দ্বিতীয় মতামত শুধুমাত্র আপনার আপলোড করা নথির উপর ভিত্তি করে দেওয়া হয়েছে। এটি সরাসরি ডাক্তারের পরীক্ষার বিকল্প নয়। জরুরি অবস্থায় নিকটতম হাসপাতালে যান।",
  },
};

const ta: LetterData = {
  locale: "ta",
  productName: "CareBridge",
  patientName: "ஸ்ரீமதி லட்சுமி ராமன்",
  reportType: "மார்பு எக்ஸ்-ரே",
  submittedOn: "3 மார்ச் 2025",
  reviewedOn: "5 மார்ச் 2025",
  summary: "மார்பு எக்ஸ்-ரே பரிசோதனையில் வலது நுரையீரலின் கீழ்ப் பகுதியில் லேசான தொற்று இருப்பது தெரிகிறது.",
  findings:
    "இதயத்தின் அளவு சாதாரணமாக உள்ளது. நுரையீரலைச் சுற்றி நீர் இல்லை. க்ஷயரோகம் (காசநோய்) இருப்பதற்கான அறிகுறி எதுவும் இல்லை. இரத்தச் சர்க்கரை அளவு HbA1c 6.8% ஆக உள்ளது; இதைக் கட்டுப்பாட்டில் வைக்க வேண்டும்.",
  recommendations:
    "இரண்டு வாரங்களுக்குள் நுரையீரல் சிறப்பு மருத்துவரைச் சந்தியுங்கள். ஆறு வார சிகிச்சைக்குப் பிறகு மீண்டும் எக்ஸ்-ரே எடுத்துக் கொள்ளுங்கள்.",
  followUps: [
    {
      question: "எனக்கு சி.டி. ஸ்கேன் தேவையா?",
      answer:
        "இப்போது தேவையில்லை. மீண்டும் எடுக்கும் எக்ஸ்-ரேயிலும் நிழல் தெரிந்தால் மட்டுமே சி.டி. ஸ்கேன் தேவைப்படும்.",
      askedOn: "6 மார்ச் 2025",
      answeredOn: "7 மார்ச் 2025",
    },
    { question: "காலை நடைப்பயிற்சியைத் தொடரலாமா?", answer: null, askedOn: "8 மார்ச் 2025", answeredOn: null },
  ],
  expert: {
    name: "டாக்டர் ஸ்ரீநிவாசன் வெங்கடேசன்",
    registrationNumber: "TNMC-77120",
    registrationCouncil: "தமிழ்நாடு மருத்துவக் கவுன்சில்",
    specialties: "நுரையீரல் மருத்துவம், பொது மருத்துவம்",
  },
  verificationCode: "7K2M-9QXD-4TPA",
  text: {
    title: "இரண்டாவது மருத்துவக் கருத்து",
    patientLabel: "நோயாளி",
    reportLabel: "அறிக்கை வகை",
    submittedLabel: "சமர்ப்பித்த தேதி",
    reviewedLabel: "மதிப்பாய்வு தேதி",
    summaryLabel: "சுருக்கம்",
    findingsLabel: "கண்டறிதல்கள்",
    recommendationsLabel: "பரிந்துரைகள்",
    seeDoctorSoon:
      "அடுத்த 48 மணி நேரத்திற்குள் ஒரு மருத்துவரைப் பாருங்கள், ஏனெனில் சில கண்டறிதல்களுக்கு உடனடி கவனம் தேவை.",
    followUpsLabel: "தொடர் கேள்விகள்",
    questionLabel: "கேள்வி",
    answerLabel: "பதில்",
    notAnsweredYet: "இன்னும் பதில் அளிக்கப்படவில்லை",
    signedByLabel: "மதிப்பாய்வு செய்தவர்",
    registrationLabel: "பதிவு எண்",
    verificationLabel: "சரிபார்ப்புக் குறியீடு",
    verifyHint: `இந்தக் கடிதத்தை ${VERIFY} இல் சரிபார்க்கவும்.`,
    disclaimer:
      "இந்த இரண்டாவது கருத்து நீங்கள் பதிவேற்றிய ஆவணங்களை மட்டுமே அடிப்படையாகக் கொண்டது. இது உங்களை நேரில் பரிசோதிக்கும் மருத்துவரின் ஆய்வுக்கு மாற்றாகாது. அவசர நிலையில் அருகிலுள்ள மருத்துவமனைக்குச் செல்லுங்கள்.",
  },
};

const letters = { en, hi, bn, ta };

/** Collapses whitespace (line breaks, -layout's column padding) so wrapped text compares as typed. */
const norm = (s: string) => s.normalize("NFC").replace(/\s+/g, " ");

async function render(name: string, data: LetterData) {
  const pdf = await renderLetterPdf(data);
  const file = path.join(tmp, `${name}.pdf`);
  writeFileSync(file, pdf);
  const text = (...args: string[]) => execFileSync("pdftotext", [...args, file, "-"], { encoding: "utf8" });
  const info = execFileSync("pdfinfo", [file], { encoding: "utf8" });
  return {
    pdf,
    file,
    plain: norm(text()),
    layout: norm(text("-layout")),
    pages: Number(/^Pages:\s+(\d+)/m.exec(info)![1]),
    info,
  };
}

/** Each needle occurs, and after the previous one. */
function expectInOrder(text: string, needles: string[]) {
  let from = 0;
  for (const needle of needles) {
    const at = text.indexOf(norm(needle), from);
    expect(at, `"${needle}" after position ${from}`).toBeGreaterThanOrEqual(0);
    from = at + norm(needle).length;
  }
}

describe.each(Object.entries(letters))("opinion letter (%s)", (locale, data) => {
  let out: Awaited<ReturnType<typeof render>>;

  beforeAll(async () => {
    out = await render(`letter-${locale}`, data);
    // Page images for looking at (test-results is git-ignored).
    for (const f of readdirSync(pngDir))
      if (f.startsWith(`letter-${locale}-`)) unlinkSync(path.join(pngDir, f));
    execFileSync("pdftoppm", ["-r", "80", "-png", out.file, path.join(pngDir, `letter-${locale}`)]);
  });

  it("is a PDF of one or two A4 pages with the language and title set", () => {
    expect(out.pdf.subarray(0, 5).toString()).toBe("%PDF-");
    expect([1, 2]).toContain(out.pages);
    expect(out.info).toMatch(/Page size:\s+595\.2\d? x 841\.8\d? pts \(A4\)/);
    expect(/^Title:\s+(.*)$/m.exec(out.info)?.[1]).toBe(`${data.text.title} · CareBridge`);
    expect(out.pdf.toString("latin1")).toContain(`/Lang (${locale}-IN)`);
  });

  for (const mode of ["plain", "layout"] as const) {
    it(`gives the text in logical order (pdftotext${mode === "layout" ? " -layout" : ""})`, () => {
      const text = out[mode];
      expectInOrder(text, [
        data.text.title,
        data.patientName,
        data.reportType,
        data.text.seeDoctorSoon!,
        data.summary,
        data.expert.name,
        data.expert.registrationNumber,
        data.verificationCode,
        VERIFY,
      ]);
      for (const s of [
        data.findings!,
        data.recommendations!.split("\n")[0],
        data.expert.registrationCouncil,
        data.expert.specialties,
        data.text.disclaimer,
        data.text.notAnsweredYet,
        ...data.followUps.flatMap((f) => [f.question, f.answer ?? ""]),
      ])
        expect(text).toContain(norm(s));
      expect(text).toMatch(/1 \/ [12]/);
    });
  }

  it("shows the see-a-doctor warning only when the expert flagged it", async () => {
    expect(out.plain).toContain(norm(data.text.seeDoctorSoon!));
    const without = await render(`letter-${locale}-nowarn`, {
      ...data,
      text: { ...data.text, seeDoctorSoon: null },
    });
    expect(without.plain).not.toContain(norm(data.text.seeDoctorSoon!));
    expectInOrder(without.plain, [data.patientName, data.summary, data.expert.name, data.verificationCode]);
  });
});

describe("opinion letter, shaping", () => {
  // Advance widths (font units at 1000 pt) HarfBuzz gives for these words with the same font files
  // (measured in Chromium). Plain fontkit 2.0.4 gets the Bengali ones wrong (mark filtering sets,
  // backtrack order); the renderer fixes both, and this fails if a fontkit update undoes that.
  const harfbuzz: [string, number, number][] = [
    ["ক্ত", 910, 959],
    ["রক্তে", 1867, 1961],
    ["ডাক্তার", 2750, 2848],
    ["দ্ধ", 646, 742],
    ["ল্ক", 781, 870],
    ["দ্রুত", 1524, 1610],
    ["স্ক্যান", 1883, 1992],
    ["ক্ষ", 859, 896],
    ["ন্ত্র", 613, 646],
    ["বন্দ্যোপাধ্যায়", 5045, 5209],
    ["श्रीमती", 2394, 2647],
    ["द्वितीय", 2243, 2455],
    ["स्थिति", 2096, 2306],
    ["ஸ்ரீமதி", 3459, 3827],
    ["க்ஷயரோகம்", 6452, 7122],
    ["தெரிகிறது", 5675, 6297],
  ];
  it.each(harfbuzz)("shapes %s as HarfBuzz does", (word, regular, bold) => {
    expect(textWidth(word, 1000)).toBeCloseTo(regular, 0);
    expect(textWidth(word, 1000, true)).toBeCloseTo(bold, 0);
  });
});

describe("opinion letter, edge cases", () => {
  it("never cuts a long findings text off: more pages, every sentence kept", async () => {
    const sentences = Array.from(
      { length: 160 },
      (_, i) =>
        `Sentence ${i + 1}: the ${i % 2 ? "left" : "right"} lower lobe shows no new change compared with the previous film.`,
    );
    const out = await render("letter-long", { ...en, findings: sentences.join(" ") });
    expect(out.pages).toBeGreaterThan(2);
    expectInOrder(out.plain, [en.summary, sentences[0], sentences[80], sentences[159], en.verificationCode]);
    expect(out.plain).toContain(`${out.pages} / ${out.pages}`);
  });

  it("breaks a word longer than a line and skips empty sections", async () => {
    const long = "A".repeat(40) + "क्षत्रिय".repeat(30) + "B".repeat(40);
    const out = await render("letter-edge", {
      ...en,
      findings: null,
      recommendations: "  ",
      followUps: [],
      summary: `${en.summary} ${long}`,
    });
    expect(out.plain.replace(/ /g, "")).toContain(long);
    expectInOrder(out.plain, [en.summary, en.expert.name]);
    for (const label of ["Findings", "Recommendations", "Follow-up questions"])
      expect(out.plain).not.toContain(label);
    expect(out.pages).toBe(1);
  });

  it("keeps characters the fonts lack in the text (≥ is drawn as >=, copied as ≥)", async () => {
    const out = await render("letter-symbols", {
      ...en,
      summary: "Fasting glucose ≥ 126 mg/dL → repeat; ₹ 500.",
    });
    expect(out.plain).toContain("Fasting glucose ≥ 126 mg/dL → repeat; ₹ 500.");
  });
});
