import type { Bundle, Observation } from "@medplum/fhirtypes";
import PDFDocument from "pdfkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import en from "~/i18n/locales/en";
import { apiClient, pathologist, signupPeople, strongPassword } from "../helpers/api";
import { uploadForm } from "../helpers/files";
import { Browserish, pageText, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/*
 * Text results kept as text (decision 0098), over HTTP on the built server: a text-layer report
 * printing "HBsAg : Reactive (Non-reactive)" beside word results equal to their references and a
 * number is uploaded and read. The expert holding it sees the word and the flag, confirms, fixes a
 * word (refused: a word over the limit, markup, a number; another patient, an unapproved expert and
 * another expert cannot), and gives the opinion; the patient then reads the same judgement in words
 * (in her list, never on a chart), and the FHIR export gives a valueString whose interpretation
 * says the same. An API client that did not ask for text results is never given one (`value` null).
 */

let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
const api = () => apiClient(server.url);
const tok: Record<string, string> = {};
const ids: Record<string, string> = {};

type Said = "within" | "outside" | "unknown";

function reportPdf(lines: string[]): Promise<Buffer> {
  const doc = new PDFDocument({ size: "A4", margin: 50 });
  const chunks: Buffer[] = [];
  doc.on("data", (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((r) => doc.on("end", () => r(Buffer.concat(chunks))));
  doc.fontSize(14).text("City Diagnostics Laboratory", 50, 50);
  doc.fontSize(10).text("Patient: Asha Devi   Age/Sex: 34 / F   Sample: Blood", 50, 75);
  doc.text("Test                Result        Unit      Reference Range", 50, 110);
  lines.forEach((l, j) => doc.text(l, 50, 132 + 22 * j, { lineBreak: false }));
  doc.text("End of report.", 50, 400);
  doc.end();
  return done;
}

const LINES = [
  "Haemoglobin          13.5          g/dL      12.0 - 15.5",
  "HBsAg : Reactive (Non-reactive)",
  "Anti HCV             Non Reactive            Non Reactive",
  "Urine Sugar          Nil                     Nil",
];

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function as(email: string) {
  const b = new Browserish(server.url);
  expect((await b.post("/login", { email, password: strongPassword })).status).toBe(302);
  return b;
}

type Value = {
  _id: string;
  loinc: string;
  value: number | null;
  valueText: string | null;
  rangeText: string | null;
  judgement: string;
  flag: string | null;
};

async function upload(token: string, lines: string[]): Promise<string> {
  const up = await api().call(
    "POST",
    "/report/upload-report",
    uploadForm(
      { reportType: "Blood Test", phoneNumber: "9876543210" },
      { name: "serology.pdf", data: await reportPdf(lines), type: "application/pdf" },
    ),
    token,
  );
  expect(up.status, JSON.stringify(up.body)).toBe(201);
  return up.body.data._id as string;
}

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    RATE_LIMIT_DISABLED: "1",
    ADMIN_EMAIL: "admin@words.test",
    ADMIN_PASSWORD: "Admin-pass-123",
  });
  const a = api();
  tok.admin = (
    await a.post("/auth/login", { email: "admin@words.test", password: "Admin-pass-123" })
  ).body.token;
  await signupPeople(
    a,
    smtp,
    codeFrom,
    "words.test",
    [
      ["patient", "Patient"],
      ["other", "Patient"],
      ["expert", "Expert", pathologist("KMC-71")],
      ["another", "Expert", pathologist("KMC-72")],
      ["unapproved", "Expert", pathologist("KMC-73")],
    ],
    { tok, ids },
  );
  for (const e of ["expert", "another"])
    expect((await a.post("/expert/approve-expert", { expertId: ids[e] }, tok.admin)).status).toBe(200);
  ids.report = await upload(tok.patient, LINES);
  expect((await a.post(`/report/claim/${ids.report}`, {}, tok.expert)).status).toBe(200);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

const obs = (q = "") => `/report/${ids.report}/observations${q}` as never;
const patch = (valueId: string, body: unknown, token?: string) =>
  api().call("PATCH", `/report/${ids.report}/observations/${valueId}` as never, body as never, token);

describe("a text result (decision 0098)", () => {
  let values: Value[] = [];
  const by = (loinc: string) => values.find((v) => v.loinc === loinc)!;

  it("is read and stored as text with its printed reference; only a client that asks is given it", async () => {
    const a = api();
    let last: Value[] = [];
    values = await until(
      "the report's values",
      async () => {
        const data = (await a.get(obs("?include=text"), tok.expert)).body.data as Value[];
        last = data;
        return data.length >= LINES.length ? data : undefined;
      },
      40_000,
    ).catch((e: Error) => {
      throw new Error(`${e.message}: ${JSON.stringify(last)}`);
    });
    expect(values.map((v) => [v.loinc, v.value, v.valueText, v.rangeText, v.judgement]).sort()).toEqual(
      [
        ["718-7", 13.5, null, "12.0 - 15.5", "within"],
        ["5196-1", null, "Reactive", "Non-reactive", "outside"],
        ["13955-0", null, "Non Reactive", "Non Reactive", "within"],
        ["25428-4", null, "Nil", "Nil", "within"],
      ].sort(),
    );
    expect(by("5196-1").flag).toBeNull();
    // Without include=text: numbers only, so `value` is always one.
    const plain = (await a.get(obs(), tok.expert)).body.data as Value[];
    expect(plain.map((v) => v.loinc)).toEqual(["718-7"]);
    expect(plain.every((v) => typeof v.value === "number")).toBe(true);
  }, 60_000);

  it("refuses a fix over the limit, with markup or as a number, with a clear message, and keeps the word", async () => {
    const hcv = by("13955-0");
    const cases: [unknown, string, string][] = [
      [{ action: "correct", result: "R".repeat(41), range: "Non Reactive" }, "result", en.labs.resultTooLong],
      [{ action: "correct", result: "<script>alert(1)</script>" }, "result", en.labs.resultWords],
      [{ action: "correct", result: "Reactive", range: "<b>Non</b>" }, "range", en.labs.resultWords],
      [{ action: "correct", value: 5, unit: "g/dL" }, "result", en.labs.resultRequired],
      [{ action: "correct", result: "Reactive", range: "N".repeat(41) }, "range", en.labs.referenceTooLong],
    ];
    for (const [body, field, message] of cases) {
      const res = await patch(hcv._id, body, tok.expert);
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(res.body.errors?.[field], JSON.stringify(body).slice(0, 60)).toEqual([message]);
    }
    // A number test is not fixed with a word either.
    const hb = by("718-7");
    const word = await patch(hb._id, { action: "correct", result: "Reactive" }, tok.expert);
    expect(word.status).toBe(400);
    expect(word.body.errors?.value).toEqual([en.labs.valueRequired]);
    // The same refusal on the screen without script: the message beside the row, what was typed kept.
    const holder = await as("expert@words.test");
    const screen = await holder.post(`/dashboard/add-review/${ids.report}`, {
      intent: "lab-check",
      valueId: hcv._id,
      action: "correct",
      result: "x".repeat(5000),
      range: "Non Reactive",
    });
    expect(screen.status).toBe(400);
    const html = await screen.text();
    expect(html).toContain(en.labs.resultTooLong);
    const now = (await api().get(obs("?include=text"), tok.expert)).body.data as Value[];
    expect(now.find((v) => v._id === hcv._id)).toMatchObject({
      valueText: "Non Reactive",
      judgement: "within",
    });
  }, 60_000);

  it("is fixed only by the expert holding the report: not another expert, an unapproved one or a patient", async () => {
    const hcv = by("13955-0");
    const fix = { action: "correct", result: "Reactive", range: "Non Reactive" };
    expect((await patch(hcv._id, fix)).status).toBe(401);
    for (const who of ["another", "unapproved", "patient", "other"]) {
      const res = await patch(hcv._id, fix, tok[who]);
      expect(res.status, who).toBe(403);
      expect(res.body.success).toBe(false);
      expect(res.body.message, who).toBeTruthy();
    }
    // Another patient cannot read this report's values at all.
    const other = await api().get(obs("?include=text"), tok.other);
    expect(other.status).toBe(403);
    // Two fixes at once: each answered, never a 5xx; the value is one of the two words.
    const both = await Promise.all([
      patch(hcv._id, { action: "correct", result: "Positive", range: "Non Reactive" }, tok.expert),
      patch(hcv._id, { action: "correct", result: "Trace", range: "Non Reactive" }, tok.expert),
    ]);
    expect(both.map((r) => r.status)).toEqual([200, 200]);
    const after = (await api().get(obs("?include=text"), tok.expert)).body.data as Value[];
    expect(["Positive", "Trace"]).toContain(after.find((v) => v._id === hcv._id)!.valueText);
    // The holder's fix: a word from the short list, judged against the printed reference at once.
    const ok = await patch(hcv._id, fix, tok.expert);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.data).toMatchObject({
      status: "corrected",
      value: null,
      valueText: "Reactive",
      rangeText: "Non Reactive",
      judgement: "outside",
    });
  });

  it("the expert's flag, the patient's words and the FHIR interpretation say the same of each word", async () => {
    const a = api();
    for (const v of values.filter((x) => x.loinc !== "13955-0"))
      expect((await patch(v._id, { action: "confirm" }, tok.expert)).status).toBe(200);

    // The expert's review screen: the word, and the flag beside it.
    const holder = await as("expert@words.test");
    const review = await (await holder.fetch(`/dashboard/add-review/${ids.report}`)).text();
    const rows = review
      .split('data-testid="lab-value"')
      .slice(1)
      .map((h) => pageText(h.split("</li>")[0]!));
    const expertSays = (name: string, word: string): Said | string => {
      const row = rows.find((r) => r.includes(name) && r.includes(word));
      if (!row) return "missing";
      if (row.includes(en.labs.flagA)) return "outside";
      if (row.includes(en.labs.flagSame)) return "within";
      if (row.includes(en.labs.flagH) || row.includes(en.labs.flagL) || row.includes(en.labs.flagN))
        return "a number's flag";
      return "unknown";
    };

    expect((await a.post(`/report/add-review/${ids.report}`, { review: "Seen." }, tok.expert)).status).toBe(
      200,
    );

    // A second report of hers with the same tests, checked and reviewed: the number gets a chart,
    // the words never do.
    const second = await upload(tok.patient, [
      "Haemoglobin          12.9          g/dL      12.0 - 15.5",
      "HBsAg                Non Reactive            Non Reactive",
      "Anti HCV             Non Reactive            Non Reactive",
    ]);
    expect((await a.post(`/report/claim/${second}`, {}, tok.expert)).status).toBe(200);
    const more = await until(
      "the second report's values",
      async () => {
        const data = (await a.get(`/report/${second}/observations?include=text` as never, tok.expert)).body
          .data as Value[];
        return data.length >= 3 ? data : undefined;
      },
      40_000,
    );
    const confirmed = await a.post(
      `/report/${second}/observations/confirm` as never,
      { valueIds: more.map((v) => v._id) } as never,
      tok.expert,
    );
    expect(confirmed.status).toBe(200);
    expect((await a.post(`/report/add-review/${second}`, { review: "Seen." }, tok.expert)).status).toBe(200);

    // The patient's screen: her values in plain words, text results among them, none on a chart.
    const patient = await as("patient@words.test");
    const page = await (await patient.fetch(`/dashboard/previous-report/${ids.patient}`)).text();
    const screen = pageText(page);
    const sentence = (
      key: "textWithin" | "textOutside" | "textUnknown",
      name: string,
      word: string,
      ref: string,
    ) => en.labs[key].replace("{{name}}", name).replace("{{value}}", word).replace("{{range}}", ref);
    const patientSays = (name: string, word: string, ref: string): Said | string => {
      for (const [key, said] of [
        ["textWithin", "within"],
        ["textOutside", "outside"],
        ["textUnknown", "unknown"],
      ] as const)
        if (screen.includes(sentence(key, name, word, ref))) return said;
      return "missing";
    };
    // One chart, the haemoglobin's: a word is never a point on a chart.
    const charts = page
      .split('data-testid="lab-chart"')
      .slice(1)
      .map((h) => pageText(h.split("</figure>")[0]!));
    expect(charts.length).toBe(1);
    expect(charts[0]).toContain("Haemoglobin");

    // The FHIR export: a valueString, its interpretation and the printed reference as text.
    const res = await fetch(`${server.url}/api/v1/fhir/Patient/${ids.patient}/$everything`, {
      headers: { authorization: `Bearer ${tok.patient}` },
    });
    expect(res.status).toBe(200);
    const bundle = (await res.json()) as Bundle;
    const observations = (bundle.entry ?? [])
      .map((e) => e.resource!)
      .filter((r): r is Observation => r.resourceType === "Observation");
    const fhirSays = (loinc: string, word: string, ref: string): Said | string => {
      // This report's Observation (the second report's words are "Non Reactive").
      const o = observations.find((x) => x.code.coding?.[0]?.code === loinc && x.valueString === word);
      if (!o) return "missing";
      expect(o.valueQuantity, loinc).toBeUndefined();
      if (o.valueString !== word) return `valueString ${o.valueString}`;
      if (o.referenceRange?.[0]?.text !== ref) return `reference ${o.referenceRange?.[0]?.text}`;
      const code = o.interpretation?.[0]?.coding?.[0]?.code;
      return ({ A: "outside", N: "within" } as Record<string, Said>)[code ?? ""] ?? "unknown";
    };

    // The catalogue's name on the expert's row; hers (with the printed one when it differs) in her list.
    const WORDS = [
      {
        loinc: "5196-1",
        name: "HBsAg",
        hers: "HBsAg",
        word: "Reactive",
        ref: "Non-reactive",
        truth: "outside",
      },
      {
        loinc: "13955-0",
        name: "Anti-HCV",
        hers: "Anti-HCV",
        word: "Reactive",
        ref: "Non Reactive",
        truth: "outside",
      },
      {
        loinc: "25428-4",
        name: "Urine glucose (strip)",
        hers: "Urine glucose (strip) (Urine Sugar)",
        word: "Nil",
        ref: "Nil",
        truth: "within",
      },
    ] as const;
    const judged = Object.fromEntries(
      WORDS.map((w) => [
        `${w.name} ${w.word} (${w.ref})`,
        {
          expert: expertSays(w.name, w.word),
          patient: patientSays(w.hers, w.word, w.ref),
          fhir: fhirSays(w.loinc, w.word, w.ref),
        },
      ]),
    );
    expect(judged).toEqual(
      Object.fromEntries(
        WORDS.map((w) => [
          `${w.name} ${w.word} (${w.ref})`,
          { expert: w.truth, patient: w.truth, fhir: w.truth },
        ]),
      ),
    );
    // The number beside them is said as before.
    expect(screen).toContain("13.5 g/dL");
  }, 90_000);
});
