import type { Bundle, Observation } from "@medplum/fhirtypes";
import PDFDocument from "pdfkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import en from "~/i18n/locales/en";
import { apiClient, pathologist, signupPeople, strongPassword } from "../helpers/api";
import { uploadForm } from "../helpers/files";
import { Browserish, pageText, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/*
 * One value, one unit, one judgement (decision 0088), over HTTP on the built server: a text-layer
 * lab report whose values are printed in units the reader converts (ng/mL → ng/dL, /cumm and
 * lakhs/cumm → ×10³/µL, mmol/L and µmol/L → mg/dL) is uploaded and read, the expert holding it
 * confirms every value and gives the opinion. For each value, the patient's words on her reports
 * screen, the expert's flag on the review screen and the FHIR Observation's interpretation must
 * say the same thing, and say what the printed range says: within it (on its edge too), or above.
 */

let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
const api = () => apiClient(server.url);
const tok: Record<string, string> = {};
const ids: Record<string, string> = {};

type Judgement = "below" | "within" | "above";
/** The report's rows as printed, and what the printed range says of each. */
const ROWS: { loinc: string; cells: [string, string, string, string]; truth: Judgement }[] = [
  { loinc: "3053-6", cells: ["T3 Total", "1.09", "ng/mL", "0.80 - 2.00"], truth: "within" },
  { loinc: "6690-2", cells: ["Total Leucocyte Count", "7,800", "/cumm", "4,000 - 11,000"], truth: "within" },
  { loinc: "777-3", cells: ["Platelet Count", "2.1", "lakhs/cumm", "1.5 - 4.5"], truth: "within" },
  // On the printed range's edge: within.
  { loinc: "1558-6", cells: ["Fasting Blood Sugar", "3.9", "mmol/L", "3.9 - 6.1"], truth: "within" },
  { loinc: "2160-0", cells: ["Serum Creatinine", "133", "umol/L", "62 - 106"], truth: "above" },
];

function reportPdf(): Promise<Buffer> {
  const doc = new PDFDocument({ size: "A4", margin: 50 });
  const chunks: Buffer[] = [];
  doc.on("data", (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((r) => doc.on("end", () => r(Buffer.concat(chunks))));
  doc.fontSize(14).text("City Diagnostics Laboratory", 50, 50);
  doc.fontSize(10).text("Patient: Asha Devi   Age/Sex: 54 / F   Sample: Blood", 50, 75);
  const cols = [50, 250, 330, 430];
  ["Test", "Result", "Unit", "Reference Range"].forEach((h, i) =>
    doc.text(h, cols[i], 110, { lineBreak: false }),
  );
  ROWS.forEach((row, j) =>
    row.cells.forEach((c, i) => doc.text(c, cols[i], 132 + 22 * j, { lineBreak: false })),
  );
  doc.text("End of report.", 50, 300);
  doc.end();
  return done;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The fixed words of a patient's sentence between the unit and the range ("— within the range …, "). */
const words = (key: "below" | "within" | "above") =>
  en.labs[key].split("{{unit}}")[1]!.split("{{range}}")[0]!;

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    RATE_LIMIT_DISABLED: "1",
    ADMIN_EMAIL: "admin@judge.test",
    ADMIN_PASSWORD: "Admin-pass-123",
  });
  const a = api();
  tok.admin = (
    await a.post("/auth/login", { email: "admin@judge.test", password: "Admin-pass-123" })
  ).body.token;
  await signupPeople(
    a,
    smtp,
    codeFrom,
    "judge.test",
    [
      ["patient", "Patient"],
      ["expert", "Expert", pathologist("KMC-88")],
    ],
    { tok, ids },
  );
  expect((await a.post("/expert/approve-expert", { expertId: ids.expert }, tok.admin)).status).toBe(200);
  const up = await a.call(
    "POST",
    "/report/upload-report",
    uploadForm(
      { reportType: "Blood Test", phoneNumber: "9876543210" },
      { name: "panel.pdf", data: await reportPdf(), type: "application/pdf" },
    ),
    tok.patient,
  );
  expect(up.status, JSON.stringify(up.body)).toBe(201);
  ids.report = up.body.data._id;
  expect((await a.post(`/report/claim/${ids.report}`, {}, tok.expert)).status).toBe(200);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

describe("a value printed in a unit the reader converts", () => {
  it("is judged alike by the patient's words, the expert's flag and the FHIR Observation: as its printed range says", async () => {
    const a = api();
    const obs = `/report/${ids.report}/observations` as never;
    // The reader (text layer) stores the values; the expert confirms each.
    const values = await until(
      "the report's values",
      async () => {
        const data = (await a.get(obs, tok.expert)).body.data as { _id: string; loinc: string }[];
        return data.length >= ROWS.length ? data : undefined;
      },
      40_000,
    );
    expect(values.map((v) => v.loinc).sort()).toEqual(ROWS.map((r) => r.loinc).sort());
    for (const v of values)
      expect(
        (
          await a.call(
            "PATCH",
            `/report/${ids.report}/observations/${v._id}` as never,
            { action: "confirm" } as never,
            tok.expert,
          )
        ).status,
      ).toBe(200);

    // The expert's review screen: each value's row, and the flag beside it.
    const expert = new Browserish(server.url);
    expect(
      (await expert.post("/login", { email: "expert@judge.test", password: strongPassword })).status,
    ).toBe(302);
    const review = await (await expert.fetch(`/dashboard/add-review/${ids.report}`)).text();
    const rowsOnScreen = review.split('data-testid="lab-value"').slice(1);
    const expertSays = (row: (typeof ROWS)[number]) => {
      const li = rowsOnScreen.find((h) => pageText(h).includes(`${row.cells[1]} ${row.cells[2]}`));
      if (!li) return "missing";
      const text = pageText(li.split("</li>")[0]!);
      if (text.includes(en.labs.flagH)) return "above";
      if (text.includes(en.labs.flagL)) return "below";
      if (text.includes(en.labs.flagN)) return "within";
      return "no flag";
    };

    expect((await a.post(`/report/add-review/${ids.report}`, { review: "Seen." }, tok.expert)).status).toBe(
      200,
    );

    // The patient's reports screen: her values in plain words.
    const patient = new Browserish(server.url);
    expect(
      (await patient.post("/login", { email: "patient@judge.test", password: strongPassword })).status,
    ).toBe(302);
    const screen = pageText(await (await patient.fetch(`/dashboard/previous-report/${ids.patient}`)).text());
    const patientSays = (row: (typeof ROWS)[number]) => {
      const after = screen.split(` ${row.cells[1]} ${row.cells[2]} `)[1];
      if (after === undefined) return "missing";
      const said = (["below", "within", "above"] as const).find((k) =>
        ` ${after}`.startsWith(words(k).replace(/\s+/g, " ")),
      );
      return said ?? "no words";
    };

    // The FHIR export: each value's Observation, its interpretation and its range in its own unit.
    const res = await fetch(`${server.url}/api/v1/fhir/Patient/${ids.patient}/$everything`, {
      headers: { authorization: `Bearer ${tok.patient}` },
    });
    expect(res.status).toBe(200);
    const bundle = (await res.json()) as Bundle;
    const observations = (bundle.entry ?? [])
      .map((e) => e.resource!)
      .filter((r): r is Observation => r.resourceType === "Observation");
    const fhirSays = (row: (typeof ROWS)[number]) => {
      const o = observations.find((x) => x.code.coding?.[0]?.code === row.loinc);
      if (!o) return "missing";
      const code = o.interpretation?.[0]?.coding?.[0]?.code;
      // The range a FHIR reader compares the value with: in the value's own unit.
      const v = o.valueQuantity!;
      const [low, high] = [o.referenceRange?.[0]?.low, o.referenceRange?.[0]?.high];
      expect([low?.code ?? v.code, high?.code ?? v.code], row.loinc).toEqual([v.code, v.code]);
      const byRange =
        high?.value != null && v.value! > high.value
          ? "above"
          : low?.value != null && v.value! < low.value
            ? "below"
            : "within";
      const byCode = { H: "above", L: "below", N: "within" }[code ?? ""] ?? "no interpretation";
      return byCode === byRange ? byCode : `${byCode} (its range says ${byRange})`;
    };

    const judged = Object.fromEntries(
      ROWS.map((row) => [
        `${row.cells[0]} ${row.cells[1]} ${row.cells[2]} in ${row.cells[3]}`,
        { patient: patientSays(row), expert: expertSays(row), fhir: fhirSays(row) },
      ]),
    );
    expect(judged).toEqual(
      Object.fromEntries(
        ROWS.map((row) => [
          `${row.cells[0]} ${row.cells[1]} ${row.cells[2]} in ${row.cells[3]}`,
          { patient: row.truth, expert: row.truth, fhir: row.truth },
        ]),
      ),
    );
  }, 90_000);
});
