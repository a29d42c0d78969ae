import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi } from "../helpers/api";
import { ctSeries, makeZip } from "../helpers/dicom";
import { uploadForm } from "../helpers/files";
import { startOrthanc, type Orthanc } from "../helpers/orthanc";
import { startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/**
 * The PACS hand-off against a real Orthanc with DICOMweb: an uploaded study is sent by STOW-RS in
 * the background, its status shown; QIDO-RS then lists it with its modality and date. The review
 * page links the OHIF viewer when OHIF_URL is set.
 */
let orthanc: Orthanc;
let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let api: ReturnType<typeof apiClient>;
let token = "";

beforeAll(async () => {
  orthanc = await startOrthanc();
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    RATE_LIMIT_DISABLED: "1",
    PACS_URL: orthanc.dicomWeb,
    OHIF_URL: "https://viewer.example.test",
  });
  api = apiClient(server.url);
  token = (
    await signupViaApi(api, smtp, codeFrom, {
      email: "pacs@d.test",
      accountType: "Patient",
      firstName: "Pacs",
      lastName: "Test",
    })
  ).token;
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await smtp?.close();
  await orthanc?.stop();
});

describe("PACS hand-off", () => {
  it("sends an uploaded study by STOW-RS; QIDO-RS lists it with modality and date", async () => {
    const { studyUid, files } = ctSeries(3, { studyDate: "20260401", modality: "CT" });
    const zip = makeZip(files.map((data, i) => ({ name: `IM${i}`, data, deflate: true })));
    const up = await api.call(
      "POST",
      "/report/upload-report",
      uploadForm(
        { reportType: "CT Scan", phoneNumber: "9876543210", countryCode: "+91" },
        { name: "ct.zip", data: zip },
      ),
      token,
    );
    expect(up.status).toBe(201);
    const reportId = up.body.data._id;
    expect(["queued", "sending", "sent"]).toContain(up.body.data.study.pacs.status);
    expect(up.body.data.study.viewerUrl).toBe(
      `https://viewer.example.test/viewer?StudyInstanceUIDs=${encodeURIComponent(studyUid)}`,
    );
    let status = "";
    for (let i = 0; i < 100 && status !== "sent"; i++) {
      const s = await api.raw("GET", `/report/${reportId}/study`, undefined, token);
      status = s.body.data.pacs.status;
      if (status === "failed") throw new Error(`not sent: ${s.body.data.pacs.error}\n${orthanc.logs()}`);
      if (status !== "sent") await new Promise((r) => setTimeout(r, 200));
    }
    expect(status).toBe("sent");
    const qido = await fetch(`${orthanc.dicomWeb}/studies?StudyInstanceUID=${studyUid}`, {
      headers: { Accept: "application/dicom+json" },
    });
    expect(qido.status).toBe(200);
    const studies = (await qido.json()) as Record<string, { Value?: unknown[] }>[];
    expect(studies).toHaveLength(1);
    expect(studies[0]["0020000D"].Value).toEqual([studyUid]);
    expect(studies[0]["00080061"].Value).toContain("CT");
    expect(studies[0]["00080020"].Value).toEqual(["20260401"]);
    const instances = await fetch(`${orthanc.dicomWeb}/studies/${studyUid}/instances`, {
      headers: { Accept: "application/dicom+json" },
    });
    expect(((await instances.json()) as unknown[]).length).toBe(3);
  });
});
