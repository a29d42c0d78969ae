import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import * as vitest from "vitest";
import { expect } from "vitest";
import { apiClient, signupViaApi, strongPassword } from "../helpers/api";
import { ctSeries, makeZip } from "../helpers/dicom";
import { uploadForm } from "../helpers/files";
import { startOrthanc, type Orthanc } from "../helpers/orthanc";
import { Browserish, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";
import { onlyWith, requireOrthanc } from "../helpers/requires";

// Needs Orthanc (a real PACS): skipped without it, naming the package, except under CI.
const { afterAll, beforeAll, describe, it } = onlyWith(requireOrthanc(), vitest);

/**
 * The PACS hand-off against a real Orthanc with DICOMweb: an uploaded study is sent by STOW-RS in
 * the background, its status shown; QIDO-RS then lists it with its modality and date, filed under
 * the profile's pseudonym and registered name and the UIDs the server issued, never what the file
 * claims (decision 0057). The review page links the OHIF viewer when OHIF_URL is set. A PACS that
 * refuses a study for good ends its attempts at once, and only admins read what it answered.
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

const upload = (base: ReturnType<typeof apiClient>, bearer: string, zip: Buffer) =>
  base.call(
    "POST",
    "/report/upload-report",
    uploadForm(
      { reportType: "CT Scan", phoneNumber: "9876543210", countryCode: "+91" },
      { name: "ct.zip", data: zip },
    ),
    bearer,
  );

/** Polls the study until its hand-off is over (sent or failed); the last answer. */
async function handedOff(base: ReturnType<typeof apiClient>, bearer: string, reportId: string) {
  for (let i = 0; i < 100; i++) {
    const s = await base.raw("GET", `/report/${reportId}/study`, undefined, bearer);
    if (["sent", "failed"].includes(s.body.data.pacs.status)) return s.body.data;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`still not handed off\n${orthanc.logs()}`);
}

const qidoJson = async (url: string) => {
  const r = await fetch(url, { headers: { Accept: "application/dicom+json" } });
  expect(r.status).toBeLessThan(300);
  return r.status === 204 ? [] : ((await r.json()) as Record<string, { Value?: unknown[] }>[]);
};

describe("PACS hand-off", () => {
  it("sends an uploaded study by STOW-RS; QIDO-RS lists it with modality and date", async () => {
    const { files } = ctSeries(3, { studyDate: "20260401", modality: "CT" });
    const zip = makeZip(files.map((data, i) => ({ name: `IM${i}`, data, deflate: true })));
    const up = await upload(api, token, zip);
    expect(up.status).toBe(201);
    const reportId = up.body.data._id;
    const studyUid = up.body.data.study.studyUid;
    expect(["queued", "sent"]).toContain(up.body.data.study.pacs.status);
    expect(up.body.data.study.viewerUrl).toBe(
      `https://viewer.example.test/viewer?StudyInstanceUIDs=${encodeURIComponent(studyUid)}`,
    );
    const done = await handedOff(api, token, reportId);
    if (done.pacs.status !== "sent") throw new Error(`not sent\n${orthanc.logs()}`);
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

  it("files a study under the profile's pseudonym, registered name and the server's UIDs, not the file's", async () => {
    // The file claims a hospital's MRN, another name, and a study UID already in the PACS.
    const claimed = "1.2.826.0.1.3680043.10.543.77";
    const { files } = ctSeries(2, { studyUid: claimed });
    const zip = makeZip(files.map((data, i) => ({ name: `IM${i}`, data, deflate: true })));
    const first = await upload(api, token, zip);
    expect(first.status).toBe(201);
    const study = first.body.data.study;
    expect(study.studyUid).toMatch(/^2\.25\.\d+$/);
    expect(study.viewerUrl).toContain(encodeURIComponent(study.studyUid));
    expect((await handedOff(api, token, first.body.data._id)).pacs.status).toBe("sent");
    // The same CD uploaded again (or by another patient): another study, no instance shared.
    const again = await upload(api, token, zip);
    expect(again.status).toBe(201);
    expect(again.body.data.study.studyUid).not.toBe(study.studyUid);
    expect((await handedOff(api, token, again.body.data._id)).pacs.status).toBe("sent");

    expect(await qidoJson(`${orthanc.dicomWeb}/studies?StudyInstanceUID=${claimed}`)).toEqual([]);
    expect(await qidoJson(`${orthanc.dicomWeb}/studies?PatientID=MRN-12345`)).toEqual([]);
    const [filed] = await qidoJson(
      `${orthanc.dicomWeb}/studies?StudyInstanceUID=${study.studyUid}&includefield=00100010&includefield=00100020&includefield=00100021`,
    );
    const patientId = String(filed["00100020"].Value?.[0]);
    expect(patientId).toMatch(/^CB-[A-Z2-7]{20}$/);
    expect(patientId).not.toContain(first.body.data.patient?._id ?? "never");
    expect((filed["00100010"].Value?.[0] as { Alphabetic: string }).Alphabetic).toBe("Test^Pacs");
    // One pseudonym per profile: both uploads are filed under it.
    expect(await qidoJson(`${orthanc.dicomWeb}/studies?PatientID=${patientId}`)).toHaveLength(
      (await qidoJson(`${orthanc.dicomWeb}/studies`)).length,
    );
    // Series and instances: the UIDs the API shows, one series, as in the file.
    const instances = await qidoJson(`${orthanc.dicomWeb}/studies/${study.studyUid}/instances`);
    const sops = instances.map((i) => i["00080018"].Value?.[0]).sort();
    const shown = study.series[0].instances.map((i: { sopInstanceUid: string }) => i.sopInstanceUid).sort();
    expect(sops).toEqual(shown);
    expect(new Set(instances.map((i) => i["0020000E"].Value?.[0]))).toEqual(
      new Set([study.series[0].seriesUid]),
    );
    const again2 = await qidoJson(`${orthanc.dicomWeb}/studies/${again.body.data.study.studyUid}/instances`);
    expect(again2).toHaveLength(2);
    for (const i of again2) expect(sops).not.toContain(i["00080018"].Value?.[0]);
  });
});

describe("a PACS that refuses a study", () => {
  let fake: Server;
  let posts = 0;
  let other: TestServer;
  let otherApi: ReturnType<typeof apiClient>;
  const secret = "orthanc-7.pacs.hospital.lan: /var/lib/orthanc/db-v6 is read-only";
  beforeAll(async () => {
    fake = createServer((req, res) => {
      posts++;
      req.resume();
      req.on("end", () => {
        res.writeHead(400, { "Content-Type": "text/plain" });
        res.end(secret);
      });
    });
    await new Promise<void>((r) => fake.listen(0, "127.0.0.1", r));
    other = await startServer({
      SMTP_URL: smtp.url,
      RATE_LIMIT_DISABLED: "1",
      PACS_URL: `http://127.0.0.1:${(fake.address() as AddressInfo).port}/dicom-web`,
      ADMIN_EMAIL: "admin@pacs.test",
      ADMIN_PASSWORD: "Admin-pass-123",
    });
    otherApi = apiClient(other.url);
  }, 120_000);
  afterAll(async () => {
    await other?.stop();
    await new Promise((r) => fake?.close(r));
  });

  it("is failed after one attempt; the patient sees only “not sent”, the admin what the PACS answered", async () => {
    const patient = await signupViaApi(otherApi, smtp, codeFrom, {
      email: "refused@d.test",
      accountType: "Patient",
      firstName: "Refused",
      lastName: "Test",
    });
    const { files } = ctSeries(1);
    const up = await upload(otherApi, patient.token, makeZip([{ name: "IM0", data: files[0] }]));
    expect(up.status).toBe(201);
    const reportId = up.body.data._id;
    const seen = await handedOff(otherApi, patient.token, reportId);
    expect(seen.pacs).toEqual({ status: "failed", attempts: 0, sentAt: null, error: null });
    expect(posts).toBe(1);
    const admin = (
      await otherApi.post("/auth/login", { email: "admin@pacs.test", password: "Admin-pass-123" })
    ).body.token;
    const full = await otherApi.raw("GET", `/report/${reportId}/study`, undefined, admin);
    expect(full.body.data.pacs).toMatchObject({ status: "failed", attempts: 1 });
    expect(full.body.data.pacs.error).toContain(secret);
    // The screens: the patient's says "not sent" and nothing of the answer; the admin's says both.
    const b = new Browserish(other.url);
    expect((await b.post("/login", { email: "refused@d.test", password: strongPassword })).status).toBe(302);
    const page = await (await b.fetch(`/dashboard/images/${reportId}`)).text();
    expect(page).toContain("Could not be sent to the image archive.");
    expect(page).not.toContain("hospital.lan");
    const a = new Browserish(other.url);
    expect((await a.post("/login", { email: "admin@pacs.test", password: "Admin-pass-123" })).status).toBe(
      302,
    );
    const adminPage = await (await a.fetch(`/dashboard/images/${reportId}`)).text();
    expect(adminPage).toContain("hospital.lan");
  });
});
