import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi, strongPassword } from "../helpers/api";
import { storedBytes, storedKeys } from "../helpers/db";
import { samplePdf, samplePng, uploadForm } from "../helpers/files";
import { startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let api: ReturnType<typeof apiClient>;
const tok: Record<string, string> = {};
const ids: Record<string, string> = {};
const pdf = samplePdf();

const encFiles = () => storedKeys(server);

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    RATE_LIMIT_DISABLED: "1",
    MAX_UPLOAD_MB: "1",
    ADMIN_EMAIL: "admin@r.test",
    ADMIN_PASSWORD: "Admin-pass-123",
  });
  api = apiClient(server.url);
  for (const [k, type] of [
    ["patientA", "Patient"],
    ["patientB", "Patient"],
    ["expert", "Expert"],
    ["newbie", "Expert"],
  ] as const) {
    const r = await signupViaApi(api, smtp, codeFrom, {
      email: `${k.toLowerCase()}@r.test`,
      accountType: type,
      firstName: k,
      lastName: "Test",
    });
    tok[k] = r.token;
    ids[k] = r.user._id;
  }
  tok.admin = (
    await api.post("/auth/login", { email: "admin@r.test", password: "Admin-pass-123" })
  ).body.token;
});
afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

const upload = (token: string, fields: Record<string, string>, file?: Parameters<typeof uploadForm>[1]) =>
  api.call("POST", "/report/upload-report", uploadForm(fields, file), token);

describe("report upload", () => {
  it("stores a PDF encrypted and answers 201 with the contract's Report", async () => {
    const r = await upload(
      tok.patientA,
      {
        reportType: "Blood Test",
        phoneNumber: "9876543210",
        countryCode: "+91",
        description: "Fasting sugar",
      },
      { name: "lab.pdf", data: pdf, type: "application/pdf" },
    );
    expect(r.status).toBe(201);
    expect(r.body.message).toBe("Report Submitted Succesfully");
    const rep = r.body.data;
    expect(rep).toMatchObject({
      reportType: "Blood Test",
      status: "Pending",
      resourceType: "raw",
      mimeType: "application/pdf",
      size: pdf.length,
      phoneNumber: "+919876543210",
      review: null,
      expert: null,
    });
    expect(rep.reportUrl).toBe(`/api/v1/report/${rep._id}/file`);
    expect(rep.patient).toMatchObject({ _id: ids.patientA, email: "patienta@r.test" });
    ids.report1 = rep._id;
    const files = await encFiles();
    expect(files).toHaveLength(1);
    const onDisk = await storedBytes(server, files[0]);
    expect(onDisk.includes(Buffer.from("%PDF"))).toBe(false);
    expect(onDisk.includes(Buffer.from("CareBridge sample report"))).toBe(false);
  });

  it("accepts a PNG photo", async () => {
    const r = await upload(
      tok.patientA,
      { reportType: "X-Ray", phoneNumber: "+449876543210" },
      { name: "chest.png", data: samplePng(), type: "image/png" },
    );
    expect(r.status).toBe(201);
    expect(r.body.data.resourceType).toBe("image");
    ids.report2 = r.body.data._id;
  });

  it("refuses bad uploads with clear errors and stores nothing", async () => {
    const before = (await encFiles()).length;
    const html = await upload(
      tok.patientA,
      { reportType: "MRI", phoneNumber: "9876543210" },
      {
        name: "scan.pdf",
        data: Buffer.from("<html><script>alert(1)</script></html>"),
        type: "application/pdf",
      },
    );
    expect(html.status).toBe(415);
    const exe = await upload(
      tok.patientA,
      { reportType: "MRI", phoneNumber: "9876543210" },
      { name: "x.pdf", data: Buffer.concat([Buffer.from("MZ"), Buffer.alloc(200)]) },
    );
    expect(exe.status).toBe(415);
    const big = await upload(
      tok.patientA,
      { reportType: "MRI", phoneNumber: "9876543210" },
      { name: "big.pdf", data: Buffer.concat([pdf, Buffer.alloc(1.5 * 1024 * 1024)]) },
    );
    expect(big.status).toBe(413);
    const empty = await upload(
      tok.patientA,
      { reportType: "MRI", phoneNumber: "9876543210" },
      { name: "empty.pdf", data: Buffer.alloc(0) },
    );
    expect(empty.status).toBe(400);
    const missing = await upload(tok.patientA, {});
    expect(missing.status).toBe(400);
    expect(Object.keys(missing.body.errors)).toEqual(
      expect.arrayContaining(["reportType", "phoneNumber", "report"]),
    );
    expect(missing.body.errors.reportType).toEqual(["Report Type is required"]);
    const badType = await upload(
      tok.patientA,
      { reportType: "Horoscope", phoneNumber: "9876543210" },
      { name: "a.pdf", data: pdf },
    );
    expect(badType.status).toBe(400);
    const json = await api.raw("POST", "/report/upload-report", { reportType: "MRI" }, tok.patientA);
    expect(json.status).toBe(400);
    expect((await encFiles()).length).toBe(before);
    const traversal = await upload(
      tok.patientA,
      { reportType: "ECG", phoneNumber: "9876543210" },
      { name: "../../etc/passwd.pdf", data: pdf },
    );
    expect(traversal.status).toBe(201);
    expect(traversal.body.data.fileName).not.toMatch(/[\\/]|\.\./);
    ids.report3 = traversal.body.data._id;
  });

  it("only patients upload", async () => {
    expect(
      (
        await upload(
          tok.expert,
          { reportType: "MRI", phoneNumber: "9876543210" },
          { name: "a.pdf", data: pdf },
        )
      ).status,
    ).toBe(403);
    expect(
      (
        await upload(
          tok.admin,
          { reportType: "MRI", phoneNumber: "9876543210" },
          { name: "a.pdf", data: pdf },
        )
      ).status,
    ).toBe(403);
    expect(
      (await upload("", { reportType: "MRI", phoneNumber: "9876543210" }, { name: "a.pdf", data: pdf }))
        .status,
    ).toBe(401);
  });
});

describe("lists, masking and ownership", () => {
  it("a patient lists their own reports newest first, paginated; not another's", async () => {
    const own = await api.get(`/report/get-report-by-patientId/${ids.patientA}?pageSize=2`, tok.patientA);
    expect(own.status).toBe(200);
    expect(own.body.data.map((r: any) => r._id)).toEqual([ids.report3, ids.report2]);
    expect(own.body.pagination).toEqual({
      page: 1,
      pageSize: 2,
      total: 3,
      totalPages: 2,
      nextCursor: expect.any(String),
    });
    expect((await api.get(`/report/get-report-by-patientId/${ids.patientA}`, tok.patientB)).status).toBe(403);
    expect((await api.get(`/report/get-report-by-patientId/${ids.patientA}`, tok.admin)).status).toBe(200);
    expect(
      (await api.get(`/report/get-report-by-patientId/${ids.patientA}?pageSize=0`, tok.patientA)).status,
    ).toBe(400);
    expect(
      (await api.get(`/report/get-report-by-patientId/${ids.patientA}?pageSize=101`, tok.patientA)).status,
    ).toBe(400);
  });

  it("masks patients for unapproved experts; filters by type", async () => {
    const r = await api.get("/report/get-pending-reports", tok.expert);
    expect(r.status).toBe(200);
    for (const rep of r.body.data) {
      expect(rep.patient.firstName).toBe("******");
      expect(rep.patient.lastName).toBe("");
      expect(rep.patient.email).toBe("");
      expect(rep.phoneNumber).toBe("**********");
    }
    const admin = await api.get("/report/get-pending-reports?reportType=X-Ray", tok.admin);
    expect(admin.body.data).toHaveLength(1);
    expect(admin.body.data[0].patient.firstName).toBe("patientA");
    expect((await api.get("/report/get-pending-reports?reportType=Tarot", tok.admin)).status).toBe(400);
    expect((await api.get("/report/get-pending-reports", tok.patientA)).status).toBe(403);
    expect((await api.get("/report/get-pending-reports")).status).toBe(401);
  });

  it("unapproved experts can neither review nor open files", async () => {
    const review = await api.post(`/report/add-review/${ids.report1}`, { review: "Looks fine" }, tok.expert);
    expect(review.status).toBe(403);
    expect(review.body.message).toBe(
      "You do not have access to add a review. Please wait for admin approval.",
    );
    const file = await fetch(`${server.url}/api/v1/report/${ids.report1}/file`, {
      headers: { Authorization: `Bearer ${tok.expert}` },
    });
    expect(file.status).toBe(403);
  });
});

describe("approval and review", () => {
  it("admin approves an expert, who is told by mail", async () => {
    const pending = await api.get("/expert/get-pending-expert", tok.admin);
    expect(pending.body.data.map((u: any) => u._id)).toEqual(
      expect.arrayContaining([ids.expert, ids.newbie]),
    );
    expect((await api.get("/expert/get-pending-expert", tok.expert)).status).toBe(403);
    expect((await api.post("/expert/approve-expert", { expertId: ids.expert }, tok.patientA)).status).toBe(
      403,
    );
    expect((await api.post("/expert/approve-expert", { expertId: "nope" }, tok.admin)).status).toBe(404);
    const ok = await api.post("/expert/approve-expert", { expertId: ids.expert }, tok.admin);
    expect(ok.status).toBe(200);
    expect(ok.body.message).toBe("Expert Approved!");
    expect(ok.body.data.approved).toBe(true);
    await smtp.waitFor("expert@r.test", /approved/i);
    const approved = await api.get("/expert/get-approved-expert", tok.newbie);
    expect(approved.body.data.map((u: any) => u._id)).toContain(ids.expert);
  });

  it("the approved expert opens the file (recorded) and the first review wins", async () => {
    const file = await fetch(`${server.url}/api/v1/report/${ids.report1}/file`, {
      headers: { Authorization: `Bearer ${tok.expert}` },
    });
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("application/pdf");
    expect(file.headers.get("x-content-type-options")).toBe("nosniff");
    expect(file.headers.get("cache-control")).toBe("private, no-store");
    expect(file.headers.get("content-disposition")).toMatch(/^inline; filename="lab\.pdf"/);
    expect(Buffer.from(await file.arrayBuffer()).equals(pdf)).toBe(true);

    const empty = await api.post(`/report/add-review/${ids.report1}`, { review: "   " }, tok.expert);
    expect(empty.status).toBe(400);
    expect(empty.body.errors.review).toEqual(["Review is required"]);
    const ok = await api.post(
      `/report/add-review/${ids.report1}`,
      { review: "Values are normal. Repeat in a year." },
      tok.expert,
    );
    expect(ok.status).toBe(200);
    expect(ok.body.message).toBe("Review Added Successfully");
    expect(ok.body.data).toMatchObject({
      status: "Reviewed",
      review: "Values are normal. Repeat in a year.",
      expert: { _id: ids.expert },
    });
    const second = await api.post(`/report/add-review/${ids.report1}`, { review: "Overwrite!" }, tok.expert);
    expect(second.status).toBe(409);
    expect((await api.post(`/report/add-review/nope`, { review: "x" }, tok.expert)).status).toBe(404);
    expect((await api.post(`/report/add-review/${ids.report2}`, { review: "x" }, tok.admin)).status).toBe(
      403,
    );
    const mail = await smtp.waitFor("patienta@r.test", /review/i);
    expect(mail.raw).not.toContain("Values are normal");
  });

  it("reviewed lists for the expert and the admin", async () => {
    const mine = await api.get("/report/get-report-by-expertId", tok.expert);
    expect(mine.body.data.map((r: any) => r._id)).toEqual([ids.report1]);
    const all = await api.get("/report/get-all-reviewed-reports", tok.admin);
    expect(all.body.data[0]).toMatchObject({
      _id: ids.report1,
      expert: { firstName: "expert" },
      patient: { firstName: "patientA" },
    });
    expect((await api.get("/report/get-all-reviewed-reports", tok.expert)).status).toBe(403);
    const own = await api.get(`/report/get-report-by-patientId/${ids.patientA}`, tok.patientA);
    const r1 = own.body.data.find((r: any) => r._id === ids.report1);
    expect(r1.status).toBe("Reviewed");
    expect(r1.fileViews?.[0]?.viewerFirstName ?? r1.fileViews?.[0]?.firstName).toBe("expert");
  });
});

describe("files and deletion", () => {
  it("serves a file only to its owner, approved experts and admins", async () => {
    const url = `${server.url}/api/v1/report/${ids.report2}/file`;
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { Authorization: `Bearer ${tok.patientB}` } })).status).toBe(403);
    const own = await fetch(url, { headers: { Authorization: `Bearer ${tok.patientA}` } });
    expect(own.status).toBe(200);
    expect(own.headers.get("content-type")).toBe("image/png");
    expect((await fetch(url, { headers: { Authorization: `Bearer ${tok.admin}` } })).status).toBe(200);
    expect(
      (
        await fetch(`${server.url}/api/v1/report/unknown/file`, {
          headers: { Authorization: `Bearer ${tok.admin}` },
        })
      ).status,
    ).toBe(404);
  });

  it("deletes a report (owner or admin only) and its file", async () => {
    const before = (await encFiles()).length;
    expect((await api.del("/report/delete-report", { reportId: ids.report2 }, tok.expert)).status).toBe(403);
    expect((await api.del("/report/delete-report", { reportId: ids.report2 }, tok.patientB)).status).toBe(
      403,
    );
    const ok = await api.del("/report/delete-report", { reportId: ids.report2 }, tok.patientA);
    expect(ok.status).toBe(200);
    expect(ok.body.message).toBe("Report deleted Successfully");
    expect((await encFiles()).length).toBe(before - 1);
    expect((await api.del("/report/delete-report", { reportId: ids.report2 }, tok.patientA)).status).toBe(
      404,
    );
    expect((await api.raw("DELETE", "/report/delete-report", {}, tok.patientA)).status).toBe(400);
  });

  it("deleting an account removes its reports and files and ends its tokens", async () => {
    const r = await upload(
      tok.patientB,
      { reportType: "ECG", phoneNumber: "9876543210" },
      { name: "b.pdf", data: pdf },
    );
    expect(r.status).toBe(201);
    const pic = await api.call(
      "PUT",
      "/profile/update-display-picture",
      uploadForm({}, { field: "displayPicture", name: "me.png", data: samplePng(16, 16) }),
      tok.patientB,
    );
    expect(pic.status).toBe(200);
    expect(pic.body.data.image).toMatch(/^\/media\/avatar\/[a-f0-9]{32}$/);
    const notImage = await api.call(
      "PUT",
      "/profile/update-display-picture",
      uploadForm({}, { field: "displayPicture", name: "me.png", data: pdf }),
      tok.patientB,
    );
    expect(notImage.status).toBe(415);
    const before = (await encFiles()).length;
    const del = await api.del(
      "/profile/delete-profile",
      { password: strongPassword, immediate: true },
      tok.patientB,
    );
    expect(del.status).toBe(200);
    expect(del.body.message).toBe("Profile Deleted Successfully");
    expect((await encFiles()).length).toBe(before - 2);
    expect((await api.get("/profile/get-user-details", tok.patientB)).status).toBe(401);
    expect(await encFiles()).not.toContain(r.body.data._id);
  });
});
