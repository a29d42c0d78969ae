import type { Readable } from "node:stream";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  freshDomain,
  makeExpert,
  makePatient,
  makeReport,
  makeShareLink,
  newClient,
  pdfBytes,
  refusal,
  review,
  type Domain,
} from "../helpers/factories";

/*
 * Sharing links without HTTP: who may create and revoke them, the doctor's visit with the access
 * code, the open limit, the passcode lock, expiry. The cookie, the 401/404/410 pages and the
 * headers of /s/<token> stay in tests/integration/share-links.test.ts.
 */

let d: Domain;
beforeAll(async () => {
  d = await freshDomain();
});
afterAll(() => d?.close());
afterEach(() => {
  vi.useRealTimers();
});

async function collect(stream: Readable) {
  const parts: Buffer[] = [];
  for await (const c of stream) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

/** Why the doctor's side refused (the ShareLinkRefused reason). */
async function refused(fn: () => unknown) {
  return ((await refusal(fn)) as unknown as { reason: string }).reason;
}

describe("creating and revoking", () => {
  it("only the report's patient may share it; before the opinion only with its file", async () => {
    const p = await makePatient();
    const report = await makeReport(p);
    const stranger = await makePatient();
    const expert = await makeExpert();
    expect(await refusal(() => makeShareLink(stranger, report))).toMatchObject({
      code: "forbidden",
      message: "share.notYourReport",
    });
    expect(
      await refusal(() =>
        d.sharing.createShareLink(expert, { reportId: report._id }, { client: expert.client }),
      ),
    ).toMatchObject({ code: "forbidden", message: "share.patientsOnly" });
    expect(await refusal(() => makeShareLink(p, report, { includeFile: false }))).toMatchObject({
      code: "invalid",
      message: "share.notReviewedYet",
    });

    const link = await makeShareLink(p, report, { label: "Dr Rao" });
    expect(link).toMatchObject({ reportId: report._id, label: "Dr Rao", status: "active", opens: 0 });
    expect(link.url).toBe(`${d.config.config().appUrl}/s/${link.token}`);
    expect(link.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const list = await d.sharing.listShareLinks(p, { reportId: report._id }, { page: 1, pageSize: 10 });
    expect(list.items.map((l) => l._id)).toEqual([link._id]);
    // The URL is given once: the list never carries it.
    expect(JSON.stringify(list)).not.toContain(link.token);
  });

  it("a revoked link opens nothing, not even in a browser that opened it; only its patient revokes", async () => {
    const p = await makePatient();
    const link = await makeShareLink(p, await makeReport(p));
    const doctor = newClient();
    const grant = await d.sharing.openShareLink(link.token, {}, null, doctor);
    expect(await d.sharing.visitShareLink(link.token, grant.value, doctor)).toMatchObject({ kind: "view" });

    const other = await makePatient();
    expect(await refusal(() => d.sharing.revokeShareLink(other, link._id))).toMatchObject({
      code: "forbidden",
      message: "share.notYourLink",
    });
    expect((await d.sharing.revokeShareLink(p, link._id)).status).toBe("revoked");
    expect(await refused(() => d.sharing.visitShareLink(link.token, grant.value, doctor))).toBe("revoked");
    expect(await refused(() => d.sharing.openSharedFile(link.token, grant.value, doctor))).toBe("revoked");
    // Revoking again answers the same.
    expect((await d.sharing.revokeShareLink(p, link._id)).status).toBe("revoked");
  });
});

describe("the doctor's visit", () => {
  it("the access code opens the link; the grant then shows the report and its file", async () => {
    const p = await makePatient({ firstName: "Asha", lastName: "Verma" });
    const bytes = pdfBytes(30_000);
    const report = await makeReport(p, { type: "MRI", bytes });
    const link = await makeShareLink(p, report, { passcode: "246810" });
    const doctor = newClient();

    expect(await d.sharing.visitShareLink(link.token, null, doctor)).toMatchObject({
      kind: "landing",
      passcode: true,
    });
    expect(await refused(() => d.sharing.openShareLink(link.token, {}, null, doctor))).toBe(
      "passcode_required",
    );
    const wrong = await refusal(() =>
      d.sharing.openShareLink(link.token, { passcode: "135790" }, null, doctor),
    );
    expect(wrong).toMatchObject({ reason: "wrong_passcode", extra: { values: { count: 4 } } });
    // Without an open, nothing of the report.
    expect(await refused(() => d.sharing.openSharedFile(link.token, null, doctor))).toBe("not_opened");

    const grant = await d.sharing.openShareLink(link.token, { passcode: " 246810 " }, null, doctor);
    const view = await d.sharing.visitShareLink(link.token, grant.value, doctor);
    expect(view).toMatchObject({
      kind: "view",
      patientName: "Asha Verma",
      reportType: "MRI",
      file: { isPdf: true, size: bytes.length },
      opinion: null,
      opinionPending: true,
    });
    const file = await d.sharing.openSharedFile(link.token, grant.value, doctor);
    expect((await collect(file.stream)).equals(bytes)).toBe(true);
    // A grant belongs to its link.
    const other = await makeShareLink(p, report);
    expect(await d.sharing.visitShareLink(other.token, grant.value, doctor)).toMatchObject({
      kind: "landing",
    });
    // An unknown token is simply unknown.
    expect(await refused(() => d.sharing.visitShareLink("x".repeat(43), null, doctor))).toBe("unknown");
  });

  it("the opinion shows once the expert has written it, when the link shares it", async () => {
    const p = await makePatient();
    const report = await makeReport(p);
    const link = await makeShareLink(p, report);
    const doctor = newClient();
    const grant = await d.sharing.openShareLink(link.token, {}, null, doctor);
    await review(await makeExpert(), report, "Haemoglobin is fine");
    expect(await d.sharing.visitShareLink(link.token, grant.value, doctor)).toMatchObject({
      opinion: { review: "Haemoglobin is fine" },
      opinionPending: false,
    });
  });
});

describe("the patient's list shows the trail", () => {
  it("each opening of a link with the label the patient gave it, and who of the staff opened the file, newest first", async () => {
    const p = await makePatient();
    const report = await makeReport(p);
    const expert = await makeExpert({ firstName: "Meera" });
    await review(expert, report);
    const forRao = await makeShareLink(p, report, { label: "Dr Rao" });
    const unnamed = await makeShareLink(p, report);
    await d.sharing.openShareLink(forRao.token, {}, null, newClient());
    await new Promise((r) => setTimeout(r, 5));
    await d.sharing.openShareLink(unnamed.token, {}, null, newClient());
    await new Promise((r) => setTimeout(r, 5));
    await d.sharing.openShareLink(forRao.token, {}, null, newClient());
    // The patient's own opening is not in "who opened it"; the expert's is.
    (await d.consultation.openReportFile(p, report._id)).stream.destroy();
    (await d.consultation.openReportFile(expert, report._id)).stream.destroy();
    const page = { page: 1, pageSize: 10 };
    const [item] = (await d.consultation.listPatientReports(p, p.id, page)).items;
    expect(item.linkOpens.map((o) => [o.linkId, o.label])).toEqual([
      [forRao._id, "Dr Rao"],
      [unnamed._id, ""],
      [forRao._id, "Dr Rao"],
    ]);
    const times = item.linkOpens.map((o) => Date.parse(o.at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(item.fileViews.map((v) => [v.viewerFirstName, v.viewerAccountType])).toEqual([
      ["Meera", "Expert"],
    ]);
    expect(new Date(item.fileViews[0].at).toISOString()).toBe(item.fileViews[0].at);
  });
});

describe("limits", () => {
  it("a link limited to one open opens once; the browser that opened it keeps reading", async () => {
    const p = await makePatient();
    const link = await makeShareLink(p, await makeReport(p), { maxOpens: 1 });
    const first = newClient();
    const grant = await d.sharing.openShareLink(link.token, {}, null, first);
    expect(await refused(() => d.sharing.openShareLink(link.token, {}, null, newClient()))).toBe("used_up");
    expect(await refused(() => d.sharing.visitShareLink(link.token, null, newClient()))).toBe("used_up");
    expect(await d.sharing.visitShareLink(link.token, grant.value, first)).toMatchObject({ kind: "view" });
    // Opening again with the grant counts nothing.
    await d.sharing.openShareLink(link.token, {}, grant.value, first);
    const [listed] = (
      await d.sharing.listShareLinks(p, { reportId: link.reportId }, { page: 1, pageSize: 5 })
    ).items;
    expect(listed).toMatchObject({ opens: 1, status: "used_up" });
  });

  it("of simultaneous opens of a link limited to one open, exactly one succeeds", async () => {
    const p = await makePatient();
    const link = await makeShareLink(p, await makeReport(p), { maxOpens: 1 });
    const results = await Promise.allSettled(
      Array.from({ length: 4 }, () => d.sharing.openShareLink(link.token, {}, null, newClient())),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results) {
      if (r.status === "rejected") expect((r.reason as { reason: string }).reason).toBe("used_up");
    }
  });

  it("five wrong access codes lock the link for good, even for the right one", async () => {
    const p = await makePatient();
    const link = await makeShareLink(p, await makeReport(p), { passcode: "secret-code" });
    const doctor = newClient();
    for (let left = 4; left >= 1; left--) {
      expect(
        await refusal(() => d.sharing.openShareLink(link.token, { passcode: "guess-code" }, null, doctor)),
      ).toMatchObject({ reason: "wrong_passcode", extra: { values: { count: left } } });
    }
    expect(
      await refused(() => d.sharing.openShareLink(link.token, { passcode: "guess-code" }, null, doctor)),
    ).toBe("locked");
    expect(
      await refused(() =>
        d.sharing.openShareLink(link.token, { passcode: "secret-code" }, null, newClient()),
      ),
    ).toBe("locked");
  });

  it("a link expires after its days, grant or not", async () => {
    const p = await makePatient();
    const link = await makeShareLink(p, await makeReport(p), { expiresInDays: 1 });
    const doctor = newClient();
    const grant = await d.sharing.openShareLink(link.token, {}, null, doctor);
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    vi.setSystemTime(new Date(link.expiresAt).getTime() - 60_000);
    expect(await d.sharing.visitShareLink(link.token, null, newClient())).toMatchObject({ kind: "landing" });
    vi.setSystemTime(new Date(link.expiresAt).getTime() + 1_000);
    expect(await refused(() => d.sharing.visitShareLink(link.token, grant.value, doctor))).toBe("expired");
    expect(await refused(() => d.sharing.openShareLink(link.token, {}, null, newClient()))).toBe("expired");
  });
});
