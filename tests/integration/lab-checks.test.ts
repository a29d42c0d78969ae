import { afterAll, beforeAll, describe, expect, it } from "vitest";
import hi from "~/i18n/locales/hi";
import { apiClient, signupViaApi, strongPassword } from "../helpers/api";
import { openTestDb } from "../helpers/db";
import { samplePdf, uploadForm } from "../helpers/files";
import { Browserish, pageText, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/*
 * The expert's quick path through a clean report (decision 0090), over HTTP: "confirm all
 * unchecked values" in one step on the review screen (a form without script: post, redirect, get)
 * and through the API (POST /report/{id}/observations/confirm), and a removal undone (the screen's
 * form and PATCH … action "restore"). Refused to another expert, the patient, an unapproved expert,
 * an admin and a stranger with nothing changed; a value of another report refuses the whole step;
 * two confirm-alls at once confirm each value once; a value read with doubt is never confirmed in bulk.
 * And her chart (same decision): by the date printed on each report (else the upload's, said so),
 * in the unit her reports print, the band labelled with the printed range, the test named in Hindi
 * beside the name on her paper.
 */

let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
const api = () => apiClient(server.url);
const tok: Record<string, string> = {};
const ids: Record<string, string> = {};

/** Twenty values read without doubt (`<prefix>-1` … `-20`), and `<prefix>-doubt` read with doubt. */
async function seed(reportId: string, prefix: string) {
  const db = await openTestDb(server.dataDir, { write: true });
  try {
    const rows = [
      ...Array.from({ length: 20 }, (_, i) => [`${prefix}-${i + 1}`, 0.97, i] as const),
      [`${prefix}-doubt`, 0.6, 20] as const,
    ];
    for (const [id, confidence, i] of rows)
      await db.run(
        "insert into lab_values (id, report_id, loinc, printed_name, value, unit, printed_value, range_text, range_low, range_high, page, box, confidence, status, created_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        id,
        reportId,
        "718-7",
        "Haemoglobin",
        13.1,
        "g/dL",
        "13.1",
        "12.0 - 15.5",
        12,
        15.5,
        1,
        JSON.stringify([0.1, 0.1 + i * 0.03, 0.6, 0.02]),
        confidence,
        "read",
        db.time(Date.now()),
      );
  } finally {
    await db.close();
  }
}

async function statuses(reportId: string): Promise<Record<string, string>> {
  const db = await openTestDb(server.dataDir);
  try {
    const rows = await db.all<{ id: string; status: string }>(
      "select id, status from lab_values where report_id = ?",
      reportId,
    );
    return Object.fromEntries(rows.map((r) => [r.id, r.status]));
  } finally {
    await db.close();
  }
}

const allRead = (prefix: string) =>
  Object.fromEntries(
    [...Array.from({ length: 20 }, (_, i) => `${prefix}-${i + 1}`), `${prefix}-doubt`].map((id) => [
      id,
      "read",
    ]),
  );
const idsOf = (prefix: string) => [
  ...Array.from({ length: 20 }, (_, i) => `${prefix}-${i + 1}`),
  `${prefix}-doubt`,
];

async function as(email: string) {
  const b = new Browserish(server.url);
  const password = email.startsWith("admin@") ? "Admin-pass-123" : strongPassword;
  expect((await b.post("/login", { email, password })).status).toBe(302);
  return b;
}

/** A form post with repeated fields, as a browser without script sends "confirm all". */
function postForm(b: Browserish, path: string, fields: [string, string][]) {
  return b.fetch(path, {
    method: "POST",
    body: new URLSearchParams(fields),
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      Origin: server.url,
      "Sec-Fetch-Site": "same-origin",
    },
  });
}

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    RATE_LIMIT_DISABLED: "1",
    ADMIN_EMAIL: "admin@checks.test",
    ADMIN_PASSWORD: "Admin-pass-123",
  });
  const a = api();
  tok.admin = (
    await a.post("/auth/login", { email: "admin@checks.test", password: "Admin-pass-123" })
  ).body.token;
  const expert = (n: number) => ({
    specialties: ["Pathology"],
    registrationNumber: `KMC-9${n}`,
    registrationCouncil: "Karnataka Medical Council",
    yearsOfPractice: 5,
  });
  for (const [key, accountType, extra] of [
    ["patient", "Patient", undefined],
    ["expert", "Expert", expert(1)],
    ["other", "Expert", expert(2)],
    ["unapproved", "Expert", expert(3)],
  ] as const) {
    const r = await signupViaApi(a, smtp, codeFrom, {
      email: `${key}@checks.test`,
      accountType,
      extra: extra as never,
    });
    tok[key] = r.token;
    ids[key] = r.user._id;
  }
  for (const e of [ids.expert, ids.other])
    expect((await a.post("/expert/approve-expert", { expertId: e }, tok.admin)).status).toBe(200);
  const up = async () =>
    (
      await a.call(
        "POST",
        "/report/upload-report",
        uploadForm(
          { reportType: "Blood Test", phoneNumber: "9876543210" },
          { name: "cbc.pdf", data: samplePdf() },
        ),
        tok.patient,
      )
    ).body.data._id as string;
  for (const k of ["screen", "api", "race", "elsewhere"]) ids[k] = await up();
  await seed(ids.screen, "s");
  await seed(ids.api, "a");
  await seed(ids.race, "r");
  await seed(ids.elsewhere, "e");
  for (const k of ["screen", "api", "race"])
    expect((await a.post(`/report/claim/${ids[k]}`, {}, tok.expert)).status).toBe(200);
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

describe("confirm all, on the review screen without script", () => {
  it("is offered for the twenty read without doubt, and refused to everyone but the holder, with nothing changed", async () => {
    const screen = `/dashboard/add-review/${ids.screen}`;
    const holder = await as("expert@checks.test");
    const html = await (await holder.fetch(screen)).text();
    expect(html).toContain("Confirm all unchecked values (20)");
    expect(html).toContain("Values read with doubt (1) are never confirmed all at once");
    // The values come before the opinion form, beside the file.
    expect(html.indexOf("Values read from this report")).toBeLessThan(html.indexOf('name="review"'));
    const all: [string, string][] = [
      ["intent", "lab-confirm-all"],
      ...idsOf("s").map((id) => ["valueId", id] as [string, string]),
    ];

    const stranger = new Browserish(server.url);
    const anon = await postForm(stranger, screen, all);
    expect(anon.status).toBe(302);
    expect(anon.headers.get("location")).toMatch(/^\/login/);
    for (const email of [
      "other@checks.test",
      "patient@checks.test",
      "unapproved@checks.test",
      "admin@checks.test",
    ]) {
      const res = await postForm(await as(email), screen, all);
      expect(res.status, email).toBe(403);
    }
    expect(await statuses(ids.screen)).toEqual(allRead("s"));

    // A value of another report among them (a forged id): the whole step is refused.
    const forged = await postForm(holder, screen, [...all, ["valueId", "e-1"]]);
    expect(forged.status).toBe(404);
    expect(await forged.text()).toContain("This value was not found on this report.");
    expect(await statuses(ids.screen)).toEqual(allRead("s"));
    expect(await statuses(ids.elsewhere)).toEqual(allRead("e"));

    // The holder: one step, back to the screen at the values.
    const ok = await postForm(holder, screen, all);
    expect(ok.status).toBe(302);
    expect(ok.headers.get("location")).toBe(`${screen}#labs`);
    expect(await statuses(ids.screen)).toEqual({
      ...allRead("s"),
      ...Object.fromEntries(
        idsOf("s")
          .slice(0, 20)
          .map((id) => [id, "confirmed"]),
      ),
    });
    const after = await (await holder.follow(ok)).text();
    expect(after).toContain("Values confirmed: 20.");
    expect(after).toContain("The values left were read with doubt: check each one against the report.");
    expect(after).not.toMatch(/Confirm all unchecked values \(\d+\)/);
  });

  it("undoes a removal: the value gets back the status it had, at its own row; an undo of what is not removed is refused", async () => {
    const screen = `/dashboard/add-review/${ids.screen}`;
    const holder = await as("expert@checks.test");
    const removed = await holder.post(`${screen}?value=s-3`, {
      intent: "lab-check",
      valueId: "s-3",
      action: "remove",
    });
    expect(removed.status).toBe(302);
    // Back where she was: the page she had shown, at the row she acted on.
    expect(removed.headers.get("location")).toBe(`${screen}?value=s-3#lab-s-3`);
    expect((await statuses(ids.screen))["s-3"]).toBe("removed");
    const page = await (await holder.follow(removed)).text();
    expect(page).toContain("Undo removal");
    for (const email of ["other@checks.test", "patient@checks.test", "unapproved@checks.test"]) {
      const res = await (
        await as(email)
      ).post(screen, { intent: "lab-check", valueId: "s-3", action: "restore" });
      expect(res.status, email).toBe(403);
    }
    expect((await statuses(ids.screen))["s-3"]).toBe("removed");
    const undone = await holder.post(screen, { intent: "lab-check", valueId: "s-3", action: "restore" });
    expect(undone.status).toBe(302);
    expect((await statuses(ids.screen))["s-3"]).toBe("confirmed");
    // The doubtful one, removed unchecked and undone: unchecked again.
    await holder.post(screen, { intent: "lab-check", valueId: "s-doubt", action: "remove" });
    await holder.post(screen, { intent: "lab-check", valueId: "s-doubt", action: "restore" });
    expect((await statuses(ids.screen))["s-doubt"]).toBe("read");
    const again = await holder.post(screen, { intent: "lab-check", valueId: "s-3", action: "restore" });
    expect(again.status).toBe(409);
    expect(await again.text()).toContain("This value is not removed: there is nothing to undo.");
    expect((await statuses(ids.screen))["s-3"]).toBe("confirmed");
  });

  it("with the page's script, answers with data and no redirect (the controls stay where they are)", async () => {
    const holder = await as("expert@checks.test");
    const res = await postForm(holder, `/dashboard/add-review/${ids.screen}`, [
      ["intent", "lab-check"],
      ["valueId", "s-4"],
      ["action", "remove"],
      ["script", "1"],
    ]);
    expect(res.status).toBe(200);
    expect((await statuses(ids.screen))["s-4"]).toBe("removed");
  });
});

describe("confirm all and undo through the API", () => {
  const confirm = (report: string, body: unknown, token?: string) =>
    api().call("POST", `/report/${report}/observations/confirm` as never, body as never, token);

  it("refuses a stranger, the patient, another expert, an unapproved expert and an admin; a forged or empty list", async () => {
    const body = { valueIds: idsOf("a") };
    expect((await confirm(ids.api, body)).status).toBe(401);
    for (const who of ["patient", "other", "unapproved", "admin"]) {
      const res = await confirm(ids.api, body, tok[who]);
      expect(res.status, who).toBe(403);
      expect(res.body.success).toBe(false);
    }
    const forged = await confirm(ids.api, { valueIds: ["a-1", "e-2"] }, tok.expert);
    expect(forged.status).toBe(404);
    for (const bad of [
      {},
      { valueIds: [] },
      { valueIds: "a-1" },
      { valueIds: [42] },
      { valueIds: Array(501).fill("a-1") },
    ]) {
      const res = await confirm(ids.api, bad, tok.expert);
      expect(res.status, JSON.stringify(bad).slice(0, 40)).toBe(400);
      expect(res.body.success).toBe(false);
    }
    expect(await statuses(ids.api)).toEqual(allRead("a"));
    expect(await statuses(ids.elsewhere)).toEqual(allRead("e"));
  });

  it("confirms those shown, leaves the doubtful one, and undoes a removal with PATCH restore", async () => {
    const res = await confirm(ids.api, { valueIds: [...idsOf("a"), "a-1"] }, tok.expert);
    expect(res.status).toBe(200);
    expect(res.body.data.confirmed).toHaveLength(20);
    expect(res.body.data.confirmed[0]).toMatchObject({ status: "confirmed", loinc: "718-7" });
    expect(res.body.data.skipped).toEqual([{ _id: "a-doubt", reason: "doubt" }]);
    const twice = await confirm(ids.api, { valueIds: ["a-1", "a-doubt"] }, tok.expert);
    expect(twice.body.data).toEqual({
      confirmed: [],
      skipped: [
        { _id: "a-1", reason: "checked" },
        { _id: "a-doubt", reason: "doubt" },
      ],
    });
    const patch = (v: string, body: unknown, token = tok.expert) =>
      api().call("PATCH", `/report/${ids.api}/observations/${v}` as never, body as never, token);
    expect((await patch("a-2", { action: "remove" })).status).toBe(200);
    expect((await patch("a-2", { action: "restore" }, tok.other)).status).toBe(403);
    const restored = await patch("a-2", { action: "restore" });
    expect(restored.status).toBe(200);
    expect(restored.body.data).toMatchObject({ _id: "a-2", status: "confirmed" });
    expect((await patch("a-2", { action: "restore" })).status).toBe(409);
    expect((await patch("a-doubt", { action: "confirm" })).body.data.status).toBe("confirmed");
  });

  it("two confirm-alls at once confirm each value once", async () => {
    const body = { valueIds: idsOf("r") };
    const [x, y] = await Promise.all([
      confirm(ids.race, body, tok.expert),
      confirm(ids.race, body, tok.expert),
    ]);
    expect([x.status, y.status]).toEqual([200, 200]);
    const got = [...x.body.data.confirmed, ...y.body.data.confirmed]
      .map((v: { _id: string }) => v._id)
      .sort();
    expect(got).toEqual(idsOf("r").slice(0, 20).sort());
    const st = await statuses(ids.race);
    expect(Object.values(st).filter((s) => s === "confirmed")).toHaveLength(20);
    expect(st["r-doubt"]).toBe("read");
  });
});

describe("her chart, in Hindi", () => {
  /** A checked value as the reader stores it: in the analyte's unit, with its printed form. */
  type Seeded = [
    id: string,
    report: string,
    loinc: string,
    printed: string,
    value: number,
    unit: string,
    shown: string,
    shownUnit: string,
    range: string,
    low: number,
    high: number,
  ];

  it("dates each report by the date printed on it, draws her reports' unit, labels the band with the printed range", async () => {
    const a = api();
    const up = async () =>
      (
        await a.call(
          "POST",
          "/report/upload-report",
          uploadForm(
            { reportType: "Blood Test", phoneNumber: "9876543210" },
            { name: "cbc.pdf", data: samplePdf() },
          ),
          tok.patient,
        )
      ).body.data._id as string;
    // Uploaded in this order; printed 2 June 2025, 15 January 2025, and no date on the third.
    const [june, january, undated] = [await up(), await up(), await up()];
    const db = await openTestDb(server.dataDir, { write: true });
    try {
      // The reader's own pass over these files ends first (it finds no values in them).
      const deadline = Date.now() + 20_000;
      for (;;) {
        const rows = await db.all<{ status: string }>(
          "select status from lab_reads where report_id in (?, ?, ?)",
          june,
          january,
          undated,
        );
        if (rows.length === 3 && rows.every((r) => !["queued", "reading"].includes(r.status))) break;
        if (Date.now() > deadline) throw new Error(`reads not done: ${JSON.stringify(rows)}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      await db.run("update lab_reads set sample_date = ? where report_id = ?", "2025-06-02", june);
      await db.run("update lab_reads set sample_date = ? where report_id = ?", "2025-01-15", january);
      const rows: Seeded[] = [
        ["hb-j", june, "718-7", "Hb", 12.5, "g/dL", "12.5", "gm/dl", "12.0 - 15.0", 12, 15],
        ["hb-a", january, "718-7", "Hb", 11.2, "g/dL", "11.2", "gm/dl", "12.0 - 15.0", 12, 15],
        ["hb-u", undated, "718-7", "Haemoglobin", 13, "g/dL", "13.0", "g/dL", "12.0 - 15.0", 12, 15],
        ["tlc-j", june, "6690-2", "TLC", 7.8, "10*3/uL", "7,800", "/cumm", "4,000 - 11,000", 4, 11],
        ["tlc-a", january, "6690-2", "TLC", 12.1, "10*3/uL", "12,100", "/cumm", "4,000 - 11,000", 4, 11],
      ];
      for (const [id, report, loinc, printed, value, unit, shown, shownUnit, range, low, high] of rows)
        await db.run(
          "insert into lab_values (id, report_id, loinc, printed_name, value, unit, printed_value, printed_unit, range_text, range_low, range_high, page, box, confidence, status, created_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
          id,
          report,
          loinc,
          printed,
          value,
          unit,
          shown,
          shownUnit,
          range,
          low,
          high,
          1,
          "[0.1,0.2,0.6,0.02]",
          0.97,
          "confirmed",
          db.time(Date.now()),
        );
    } finally {
      await db.close();
    }
    // Another pathologist gives these opinions (the first holds as many claims as one may).
    for (const r of [june, january, undated]) {
      expect((await a.post(`/report/claim/${r}`, {}, tok.other)).status).toBe(200);
      expect((await a.post(`/report/add-review/${r}`, { review: "Iron is low." }, tok.other)).status).toBe(
        200,
      );
    }
    const b = (await as("patient@checks.test")).inLanguage("hi");
    const res = await b.fetch(`/dashboard/previous-report/${ids.patient}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    const figure = (name: string) => {
      const at = html.indexOf(`<span class="font-semibold">${name}</span>`);
      expect(at, name).toBeGreaterThan(0);
      return html.slice(at, html.indexOf("</figure>", at));
    };
    const day = (y: number, m: number, d: number, style: Intl.DateTimeFormatOptions) =>
      new Intl.DateTimeFormat("hi", { ...style, timeZone: "UTC" }).format(Date.UTC(y, m - 1, d));
    const today = new Intl.DateTimeFormat("hi", { dateStyle: "medium", timeZone: "Asia/Kolkata" }).format(
      new Date(),
    );

    // Haemoglobin: January's report first, then June's, then the undated one at its upload, marked.
    const hb = pageText(figure("हीमोग्लोबिन"));
    const order = [
      day(2025, 1, 15, { dateStyle: "medium" }),
      day(2025, 6, 2, { dateStyle: "medium" }),
      `${today}*`,
    ];
    expect(
      order.map((d) => hb.indexOf(d)).every((at, i, all) => at > 0 && (i === 0 || at > all[i - 1])),
    ).toBe(true);
    // In the unit most of her reports print.
    expect(hb).toMatch(/हीमोग्लोबिन \( ?gm\/dl ?\)/);
    expect(hb).toMatch(new RegExp(`${order[0]} 11.2 gm/dl 12.0 - 15.0 ${order[1]} 12.5 gm/dl 12.0 - 15.0`));
    // Dates on the axis, and said where they come from.
    expect(hb).toContain(day(2025, 1, 15, { day: "numeric", month: "short", year: "2-digit" }));
    expect(hb).toContain(hi.labs.datesMixed);
    expect(hb).toContain("हरी पट्टी: आपकी रिपोर्ट पर छपी सीमा, 12.0 - 15.0 gm/dl");
    expect(hb).toContain("आपकी रिपोर्ट पर: “Hb”, “Haemoglobin”");

    // The white cells in /cumm, as her reports print them (stored as 10³/µL), the band as printed.
    const tlc = pageText(figure("सफ़ेद रक्त कोशिकाएँ"));
    expect(tlc).toMatch(/सफ़ेद रक्त कोशिकाएँ \( ?\/cumm ?\)/);
    expect(tlc).toContain("आपकी रिपोर्ट पर: “TLC”");
    expect(tlc).toMatch(/12100 \/cumm 4,000 - 11,000 .*7800 \/cumm 4,000 - 11,000/);
    expect(tlc).toContain("हरी पट्टी: आपकी रिपोर्ट पर छपी सीमा, 4,000 - 11,000 /cumm");
    expect(tlc).toContain(hi.labs.datesPrinted);
    expect(figure("सफ़ेद रक्त कोशिकाएँ")).toMatch(/>11000<\/text>[\s\S]*>4000<\/text>/);

    // In plain words, her name for the test beside the one on her paper.
    const words = pageText(html);
    expect(words).toContain("हीमोग्लोबिन (Hb) 11.2 gm/dl — आपकी रिपोर्ट पर छपी सीमा 12.0 - 15.0 से कम");
    expect(words).toContain(
      "सफ़ेद रक्त कोशिकाएँ (TLC) 12,100 /cumm — आपकी रिपोर्ट पर छपी सीमा 4,000 - 11,000 से अधिक",
    );
  });
});
