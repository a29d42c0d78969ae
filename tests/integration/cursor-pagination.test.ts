import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi } from "../helpers/api";
import { samplePdf, uploadForm } from "../helpers/files";
import { startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/*
 * Keyset pagination beside page numbers (decision 0031): a walk by `cursor` returns exactly the
 * rows of a walk by `page`, in the same order, for every report list and order (the specialty
 * queue's two segments included); a row added between two pages is neither repeated nor
 * skipped; a cursor the list did not give out is a 400, never a 5xx.
 */

const ADMIN = { email: "admin@cursor.test", password: "Admin-pass-2026" };
let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let api: ReturnType<typeof apiClient>;
const tok: Record<string, string> = {};
const ids: Record<string, string> = {};

const upload = (reportType: string, urgent = false) =>
  api.call(
    "POST",
    "/report/upload-report",
    uploadForm(
      {
        reportType,
        phoneNumber: "9876543210",
        countryCode: "+91",
        consent: "on",
        ...(urgent ? { urgent: "true", urgentReason: "Chest pain" } : {}),
      },
      { name: "r.pdf", type: "application/pdf", data: samplePdf() },
    ),
    tok.patient,
  );

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    RATE_LIMIT_DISABLED: "1",
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
  });
  api = apiClient(server.url);
  tok.admin = (await api.post("/auth/login", ADMIN)).body.token;
  const people: [string, "Patient" | "Expert", Record<string, unknown> | undefined][] = [
    ["patient", "Patient", undefined],
    [
      "radio",
      "Expert",
      {
        specialties: ["Radiology"],
        registrationNumber: "REG-CURSOR-1",
        registrationCouncil: "National Medical Commission",
        yearsOfPractice: 9,
      },
    ],
  ];
  for (const [key, accountType, extra] of people) {
    const r = await signupViaApi(api, smtp, codeFrom, {
      email: `${key}@cursor.test`,
      accountType,
      firstName: key,
      lastName: "Test",
      extra,
    });
    tok[key] = r.token;
    ids[key] = r.user._id;
  }
  expect((await api.post("/expert/approve-expert", { expertId: ids.radio }, tok.admin)).status).toBe(200);
  // More experts waiting for approval, so the admin's expert list has several pages.
  for (let i = 0; i < 4; i++) {
    const r = await signupViaApi(api, smtp, codeFrom, {
      email: `waiting${i}@cursor.test`,
      accountType: "Expert",
      firstName: `waiting${i}`,
      lastName: "Test",
      extra: {
        specialties: ["Cardiology"],
        registrationNumber: `REG-CURSOR-W${i}`,
        registrationCouncil: "National Medical Commission",
        yearsOfPractice: 3,
      },
    });
    ids[`waiting${i}`] = r.user._id;
  }
  const types = ["X-Ray", "Blood Test", "MRI", "ECG", "CT Scan", "Urine Test", "Ultrasound"];
  for (let i = 0; i < 23; i++) {
    const r = await upload(types[i % types.length], i % 5 === 0);
    expect(r.status).toBe(201);
    if (i < 8) {
      const link = await api.post(
        "/report/share-links",
        { reportId: r.body.data._id, label: `Dr ${i}` },
        tok.patient,
      );
      expect(link.status).toBe(201);
    }
  }
}, 180_000);
afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

type Page = { status: number; body: { data: { _id: string }[]; pagination: Record<string, unknown> } };
const get = (path: string, token: string) =>
  (api.get as unknown as (p: string, t?: string) => Promise<Page>)(path, token);

async function byPages(path: string, token: string, pageSize: number) {
  const ids: string[] = [];
  for (let page = 1; page < 50; page++) {
    const r = await get(`${path}${path.includes("?") ? "&" : "?"}pageSize=${pageSize}&page=${page}`, token);
    expect(r.status).toBe(200);
    ids.push(...r.body.data.map((x) => x._id));
    if (page >= (r.body.pagination.totalPages as number)) break;
  }
  return ids;
}

async function byCursor(path: string, token: string, pageSize: number) {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 50; i++) {
    const q: string = `pageSize=${pageSize}${cursor ? `&cursor=${cursor}` : ""}`;
    const r = await get(`${path}${path.includes("?") ? "&" : "?"}${q}`, token);
    expect(r.status).toBe(200);
    ids.push(...r.body.data.map((x) => x._id));
    cursor = r.body.pagination.nextCursor as string | null;
    if (!cursor) break;
  }
  return ids;
}

describe("cursor pagination", () => {
  const lists: [string, string, string][] = [
    ["pending, newest first", "/report/get-pending-reports", "admin"],
    ["pending, as a queue", "/report/get-pending-reports?sort=queue", "admin"],
    ["pending of one type", "/report/get-pending-reports?reportType=X-Ray", "admin"],
    [
      "the specialty queue (matching first, then the rest)",
      "/report/get-pending-reports?sort=queue&match=first",
      "radio",
    ],
    ["the specialty queue, matching only", "/report/get-pending-reports?sort=queue&match=only", "radio"],
    ["the patient's reports", "/report/get-report-by-patientId/PATIENT", "patient"],
    // Lists other than reports: newest first by (created_at, id).
    ["the patient's share links", "/report/share-links", "patient"],
    ["experts waiting for approval", "/expert/get-pending-expert", "admin"],
  ];
  for (const [name, path, who] of lists) {
    it(`${name}: the cursor walk returns the page walk's rows`, async () => {
      const p = path.replace("PATIENT", ids.patient);
      const pages = await byPages(p, tok[who], 3);
      expect(pages.length).toBeGreaterThan(3);
      expect(new Set(pages).size).toBe(pages.length);
      expect(await byCursor(p, tok[who], 3)).toEqual(pages);
      expect(await byCursor(p, tok[who], 7)).toEqual(pages);
    });
  }

  it("the specialty queue's walk crosses from the matching reports to the others", async () => {
    const all = await byCursor("/report/get-pending-reports?sort=queue&match=first", tok.radio, 5);
    const only = await byCursor("/report/get-pending-reports?sort=queue&match=only", tok.radio, 5);
    expect(only.length).toBeGreaterThan(0);
    expect(all.slice(0, only.length)).toEqual(only);
    expect(all.length).toBeGreaterThan(only.length);
  });

  async function walkWithUploadBetween(path: string) {
    const first = await get(`${path}&pageSize=5`, tok.admin);
    const seen = first.body.data.map((x) => x._id);
    const added = await upload("ECG", true);
    expect(added.status).toBe(201);
    let cursor = first.body.pagination.nextCursor as string | null;
    while (cursor) {
      const r = await get(`${path}&pageSize=5&cursor=${cursor}`, tok.admin);
      seen.push(...r.body.data.map((x) => x._id));
      cursor = r.body.pagination.nextCursor as string | null;
    }
    expect(new Set(seen).size).toBe(seen.length);
    return { seen, added: added.body.data._id as string, now: await byPages(path, tok.admin, 100) };
  }

  it("a report uploaded between two pages is neither repeated nor skipped", async () => {
    // Newest first: the new report sorts before the walk's position, so the walk goes on without it.
    const newest = await walkWithUploadBetween("/report/get-pending-reports?sort=newest");
    expect(newest.seen).toEqual(newest.now.filter((id) => id !== newest.added));
    // The queue: the first page is the older urgent reports; the new urgent one sorts after them,
    // so the walk reaches it, once.
    const queue = await walkWithUploadBetween("/report/get-pending-reports?sort=queue");
    expect(queue.seen).toEqual(queue.now);
    expect(queue.seen).toContain(queue.added);
  });

  it("the last page has no next cursor; totals stay those of the list", async () => {
    const r = await get("/report/get-pending-reports?pageSize=100", tok.admin);
    expect(r.body.pagination.nextCursor).toBeNull();
    expect(r.body.pagination.total).toBe(r.body.data.length);
  });

  it("lists other than reports refuse a forged cursor too", async () => {
    for (const path of ["/report/share-links", "/profile/access-trail"]) {
      const r = (await get(
        `${path}?cursor=${Buffer.from("[1,2]").toString("base64url")}`,
        tok.patient,
      )) as unknown as {
        status: number;
      };
      expect(r.status, path).toBe(400);
    }
  });

  it("a cursor the list did not give out is a 400 with a clear message", async () => {
    const good = (await get("/report/get-pending-reports?pageSize=2", tok.admin)).body.pagination
      .nextCursor as string;
    const forged = [
      "not-base64!",
      Buffer.from("[1,2]").toString("base64url"),
      Buffer.from('{"a":1}').toString("base64url"),
      Buffer.from('[9,1,"x"]').toString("base64url"),
      Buffer.from('["x",1,"y"]').toString("base64url"),
      "x".repeat(500),
      good, // a newest-first cursor given to the queue, whose key has another shape
    ];
    for (const c of forged) {
      const r = (await get(
        `/report/get-pending-reports?sort=queue&cursor=${encodeURIComponent(c)}`,
        tok.admin,
      )) as unknown as { status: number; body: { success: boolean; message: string } };
      expect(r.status, c).toBe(400);
      expect(r.body.success).toBe(false);
      expect(r.body.message).toMatch(/\S/);
    }
  });
});
