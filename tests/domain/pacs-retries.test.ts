import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ctInstance } from "../helpers/dicom";
import { freshDomain, makePatient, makeReport, type Domain } from "../helpers/factories";

/*
 * The PACS hand-off's attempts are bounded (decision 0057), on either database: a PACS that keeps
 * failing gets the study once per wait and then never again; a study whose last attempt's claim
 * lapsed (the process sending it died) is not claimed again. Answers from a stand-in PACS; the
 * sender is driven step by step (`sendNextStudy`), with waits of 0.
 */
let d: Domain;
let pacs: Server;
let posts = 0;
let sender: typeof import("~/domain/records/dicom-pacs.server");

beforeAll(async () => {
  pacs = createServer((req, res) => {
    posts++;
    req.resume();
    req.on("end", () => res.writeHead(503).end("busy"));
  });
  await new Promise<void>((r) => pacs.listen(0, "127.0.0.1", r));
  d = await freshDomain({ PACS_URL: `http://127.0.0.1:${(pacs.address() as AddressInfo).port}/dicom-web` });
  sender = await import("~/domain/records/dicom-pacs.server");
  sender.configurePacsSender({ backoffMs: [0, 0] });
});
afterAll(async () => {
  sender?.configurePacsSender();
  await d?.close();
  await new Promise((r) => pacs?.close(r));
});

const studyRow = async (reportId: string) => {
  const { imagingStudies } = d.schema;
  const { eq } = await import("drizzle-orm");
  const [row] = await d.db.db().select().from(imagingStudies).where(eq(imagingStudies.reportId, reportId));
  return row;
};

it("a PACS that keeps failing gets a study once, then once after each wait, then it is failed", async () => {
  const patient = await makePatient();
  const report = await makeReport(patient, { type: "CT Scan", bytes: ctInstance() });
  expect((await studyRow(report._id)).pacsStatus).toBe("queued");
  const before = posts;
  for (let i = 0; i < 10; i++) await sender.sendNextStudy(new Date(Date.now() + 1000));
  expect(posts - before).toBe(sender.pacsMaxAttempts());
  expect(await studyRow(report._id)).toMatchObject({ pacsStatus: "failed", pacsAttempts: 3 });
});

it("a study whose last attempt's claim lapsed is failed, not sent again", async () => {
  const patient = await makePatient();
  const report = await makeReport(patient, { type: "CT Scan", bytes: ctInstance() });
  const { imagingStudies } = d.schema;
  const { eq } = await import("drizzle-orm");
  await d.db
    .db()
    .update(imagingStudies)
    .set({ pacsStatus: "sending", pacsAttempts: 3, pacsLockedUntil: new Date(Date.now() - 1000) })
    .where(eq(imagingStudies.reportId, report._id));
  const before = posts;
  expect(await sender.sendNextStudy()).toBe(true);
  expect(posts).toBe(before);
  const row = await studyRow(report._id);
  expect(row).toMatchObject({ pacsStatus: "failed", pacsAttempts: 3 });
  expect(row.pacsError).toMatch(/gave up after 3 attempts/);
  expect(await sender.sendNextStudy()).toBe(false);
});
