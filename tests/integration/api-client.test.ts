import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCareBridgeClient, formDataBody } from "../../clients/typescript/src";
import { apiClient, signupViaApi, strongPassword } from "../helpers/api";
import { samplePdf } from "../helpers/files";
import { startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

// The published client (clients/typescript) used as its README shows, against the built server.
let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    RATE_LIMIT_DISABLED: "1",
    ADMIN_EMAIL: "admin@client.test",
    ADMIN_PASSWORD: "Admin-pass-123",
  });
});
afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

describe("@carebridge/api-client", () => {
  it("signs up, logs in, uploads a report, lists it and reads the opinion", async () => {
    const anonymous = createCareBridgeClient({ baseUrl: server.url });
    const sent = await anonymous.POST("/auth/send-otp", { body: { email: "asha@client.test" } });
    expect(sent.response.status).toBe(200);
    const otp = codeFrom(await smtp.waitFor("asha@client.test", /verification code/));
    const body = {
      accountType: "Patient" as const,
      firstName: "Asha",
      lastName: "Roy",
      email: "asha@client.test",
      contactNumber: "9876543210",
      password: strongPassword,
      confirmPassword: strongPassword,
    };
    // An error keeps the API's shape and status.
    const wrong = await anonymous.POST("/auth/signup", {
      body: { ...body, otp: otp === "000000" ? "111111" : "000000" },
    });
    expect(wrong.response.status).toBe(400);
    expect(wrong.data).toBeUndefined();
    expect(wrong.error).toMatchObject({ success: false });
    const signup = await anonymous.POST("/auth/signup", { body: { ...body, otp } });
    expect(signup.response.status).toBe(201);
    expect(signup.data?.data.email).toBe("asha@client.test");

    const login = await anonymous.POST("/auth/login", {
      body: { email: "asha@client.test", password: strongPassword },
    });
    expect(login.data?.token).toBeTruthy();
    // Without a token a signed-in operation is refused; the client adds it when given one.
    expect((await anonymous.GET("/profile/get-user-details")).response.status).toBe(401);
    const api = createCareBridgeClient({ baseUrl: `${server.url}/api/v1/`, token: () => login.data?.token });

    const pdf = samplePdf();
    const upload = await api.POST("/report/upload-report", {
      body: {
        reportType: "Blood Test",
        phoneNumber: "9876543210",
        consent: true,
        report: new Blob([new Uint8Array(pdf)], { type: "application/pdf" }),
      },
      bodySerializer: formDataBody,
    });
    expect(upload.response.status, JSON.stringify(upload.error)).toBe(201);
    const reportId = upload.data!.data._id;

    const me = await api.GET("/profile/get-user-details");
    const patientId = me.data!.data._id;
    const listed = await api.GET("/report/get-report-by-patientId/{patientId}", {
      params: { path: { patientId }, query: { page: 1, pageSize: 20 } },
    });
    expect(listed.response.status).toBe(200);
    expect(listed.data!.data.map((r) => r._id)).toEqual([reportId]);
    expect(listed.data!.data[0]).toMatchObject({ status: "Pending", review: null });

    // An approved expert claims and reviews it (through the tests' client).
    const helper = apiClient(server.url);
    const expert = await signupViaApi(helper, smtp, codeFrom, {
      email: "rao@client.test",
      accountType: "Expert",
      extra: { registrationNumber: "KMC-4242", specialties: ["Pathology"] },
    });
    const admin = await helper.post("/auth/login", {
      email: "admin@client.test",
      password: "Admin-pass-123",
    });
    expect(
      (await helper.post("/expert/approve-expert", { expertId: expert.user._id }, admin.body.token)).status,
    ).toBe(200);
    const asExpert = createCareBridgeClient({ baseUrl: server.url, token: expert.token });
    const claim = await asExpert.POST("/report/claim/{reportId}", { params: { path: { reportId } } });
    expect(claim.response.status, JSON.stringify(claim.error)).toBe(200);
    const review = await asExpert.POST("/report/add-review/{reportId}", {
      params: { path: { reportId } },
      body: { review: "Haemoglobin is normal." },
    });
    expect(review.response.status, JSON.stringify(review.error)).toBe(200);

    const after = await api.GET("/report/get-report-by-patientId/{patientId}", {
      params: { path: { patientId } },
    });
    const report = after.data!.data.find((r) => r._id === reportId)!;
    expect(report).toMatchObject({ status: "Reviewed", review: "Haemoglobin is normal." });
    const letter = await api.GET("/report/{reportId}/opinion.pdf", {
      params: { path: { reportId } },
      parseAs: "arrayBuffer",
    });
    expect(letter.response.status).toBe(200);
    expect(letter.response.headers.get("content-type")).toMatch(/^application\/pdf/);
    expect(
      Buffer.from(letter.data as ArrayBuffer)
        .subarray(0, 5)
        .toString(),
    ).toBe("%PDF-");
  });
});
