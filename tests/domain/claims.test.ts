import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  claim,
  freshDomain,
  makeExpert,
  makePatient,
  makeReport,
  refusal,
  review,
  type Domain,
  type Person,
} from "../helpers/factories";

/*
 * Claims ("Start review") without HTTP, decision 0023: one expert wins a report, at most CLAIM_MAX
 * live claims per expert, at most CLAIM_RENEW_MAX renewals, a cool-down after a release, lapse
 * after CLAIM_TTL_MINUTES. The defaults are used (3, 2, 120 minutes). The 409 answers and the
 * screens stay in tests/integration/consultation*.test.ts.
 */

let d: Domain;
let patient: Person;
beforeAll(async () => {
  d = await freshDomain();
  patient = await makePatient();
});
afterAll(() => d?.close());
afterEach(() => {
  vi.useRealTimers();
});

const TTL_MS = 120 * 60 * 1000;
function later(ms: number) {
  vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
  vi.setSystemTime(Date.now() + ms);
}

describe("who holds a report", () => {
  it("of two experts the first wins; the other can neither claim nor review it", async () => {
    const [a, b] = [await makeExpert({ firstName: "Anil" }), await makeExpert()];
    const r = await makeReport(patient);
    const claimed = await claim(a, r);
    expect(claimed.claimedBy).toMatchObject({ _id: a.id });
    expect(await refusal(() => claim(b, r))).toMatchObject({
      code: "conflict",
      message: "reports.claimedByOther",
    });
    expect(await refusal(() => review(b, r))).toMatchObject({
      code: "conflict",
      message: "reports.claimedByOther",
    });
    expect((await review(a, r)).status).toBe("Reviewed");
    expect(await refusal(() => claim(b, r))).toMatchObject({ code: "conflict" });
  });

  it("experts not approved, or without a registration number, cannot claim", async () => {
    const r = await makeReport(patient);
    expect(await refusal(async () => claim(await makeExpert({ approved: false }), r))).toMatchObject({
      code: "forbidden",
      message: "reports.awaitApproval",
    });
    expect(await refusal(async () => claim(await makeExpert({ registrationNumber: null }), r))).toMatchObject(
      { code: "forbidden", message: "reports.registrationToSign" },
    );
    expect(await refusal(() => claim(patient, r))).toMatchObject({ code: "forbidden" });
  });
});

describe("the cap", () => {
  it("an expert holds at most three live claims; a review frees a place", async () => {
    const e = await makeExpert();
    const rs: { _id: string }[] = [];
    for (let i = 0; i < 4; i++) rs.push(await makeReport(patient));
    for (const r of rs.slice(0, 3)) await claim(e, r);
    expect(await refusal(() => claim(e, rs[3]))).toMatchObject({
      code: "conflict",
      message: "reports.claimLimit",
      extra: { values: { max: 3 } },
    });
    // Renewing one already held is not a new claim.
    await claim(e, rs[0]);
    await review(e, rs[0]);
    expect((await claim(e, rs[3])).claimedBy).toMatchObject({ _id: e.id });
  });
});

describe("renewals, release and lapse", () => {
  it("a claim renews twice, then no more; it lapses after the claim period and anyone may take it", async () => {
    const [e, other] = [await makeExpert(), await makeExpert()];
    const r = await makeReport(patient);
    await claim(e, r);
    await claim(e, r);
    await claim(e, r);
    expect(await refusal(() => claim(e, r))).toMatchObject({
      code: "conflict",
      message: "reports.claimRenewLimit",
      extra: { values: { max: 2 } },
    });
    expect(await refusal(() => claim(other, r))).toMatchObject({ message: "reports.claimedByOther" });

    later(TTL_MS + 60_000);
    // Lapsed: back in the queue; its last holder waits out the cool-down, another expert does not.
    expect(await refusal(() => claim(e, r))).toMatchObject({ message: "reports.claimCooldown" });
    expect((await claim(other, r)).claimedBy).toMatchObject({ _id: other.id });
  });

  it("after a release the same expert waits one claim period; another expert may claim at once", async () => {
    const [e, other] = [await makeExpert(), await makeExpert()];
    const r = await makeReport(patient);
    await claim(e, r);
    await claim(e, r);
    const released = await d.consultation.releaseReport(e, r._id);
    expect(released.claimedBy).toBeNull();
    expect(await refusal(() => d.consultation.releaseReport(e, r._id))).toMatchObject({
      message: "reports.notYourClaim",
    });
    expect(await refusal(() => claim(e, r))).toMatchObject({
      code: "conflict",
      message: "reports.claimCooldown",
      extra: { values: { minutes: 120 } },
    });

    later(TTL_MS + 1_000);
    // After the cool-down the claim starts afresh, with its renewals.
    await claim(e, r);
    await claim(e, r);
    await claim(e, r);
    expect(await refusal(() => claim(e, r))).toMatchObject({ message: "reports.claimRenewLimit" });
    // An expert cannot release another's claim.
    expect(await refusal(() => d.consultation.releaseReport(other, r._id))).toMatchObject({
      message: "reports.notYourClaim",
    });
  });
});
