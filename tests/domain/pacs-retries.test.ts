import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ctInstance } from "../helpers/dicom";
import { freshDomain, makePatient, makeReport, type Domain } from "../helpers/factories";

/*
 * The PACS hand-off's attempts are bounded (decision 0057), on either database: a PACS that keeps
 * failing gets the study once per wait and then never again; a study whose last attempt's claim
 * lapsed (the process sending it died) is not claimed again. The sender is a kind of the one
 * background runner (decision 0113). Answers from a stand-in PACS; the sender is driven by running
 * what is due (`sendDueStudies`), with waits of 0.
 */
let d: Domain;
let pacs: Server;
let posts = 0;
let refuse = false;
let sender: typeof import("~/domain/records/dicom-pacs.server");

beforeAll(async () => {
  pacs = createServer((req, res) => {
    posts++;
    req.resume();
    req.on("end", () => (refuse ? res.writeHead(400).end("bad study") : res.writeHead(503).end("busy")));
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
  const round = await sender.sendDueStudies();
  expect(posts - before).toBe(3);
  expect(round).toMatchObject({ dead: 1, done: 0 });
  const row = await studyRow(report._id);
  expect(row).toMatchObject({ pacsStatus: "failed", pacsAttempts: 3 });
  expect(row.pacsError).toMatch(/STOW-RS answered 503: busy/);
  expect((await sender.sendDueStudies()).dead).toBe(0);
  expect(posts - before).toBe(3);
});

it("a study whose last attempt's claim lapsed is failed, not sent again", async () => {
  const patient = await makePatient();
  const report = await makeReport(patient, { type: "CT Scan", bytes: ctInstance() });
  const { jobs } = d.schema;
  const { and, eq } = await import("drizzle-orm");
  // The runner that made the third attempt died: its lease ran out.
  await d.db
    .db()
    .update(jobs)
    .set({ state: "running", attempts: 3, holder: "gone", leasedUntil: new Date(Date.now() - 1000) })
    .where(and(eq(jobs.kind, "pacs"), eq(jobs.key, report._id)));
  const before = posts;
  expect((await sender.sendDueStudies()).dead).toBe(1);
  expect(posts).toBe(before);
  const row = await studyRow(report._id);
  expect(row).toMatchObject({ pacsStatus: "failed", pacsAttempts: 3 });
  expect(row.pacsError).toMatch(/gave up after 3 attempts/);
  expect((await sender.sendDueStudies()).dead).toBe(0);
});

it("a PACS that refuses a study for good (400) gets it once", async () => {
  const patient = await makePatient();
  const report = await makeReport(patient, { type: "CT Scan", bytes: ctInstance() });
  refuse = true;
  try {
    const before = posts;
    expect((await sender.sendDueStudies()).dead).toBe(1);
    expect(posts - before).toBe(1);
    expect(await studyRow(report._id)).toMatchObject({ pacsStatus: "failed", pacsAttempts: 1 });
  } finally {
    refuse = false;
  }
});
