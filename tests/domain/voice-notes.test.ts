import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ByteLru } from "~/domain/consultation/voice-audio.server";
import { wav } from "../helpers/audio";
import {
  claim,
  freshDomain,
  makeExpert,
  makePatient,
  makeReport,
  refusal,
  type Domain,
  type Person,
} from "../helpers/factories";

/*
 * Voice notes in the domain (decisions 0037 and 0058): who holds a report may speak and
 * type beside it (the live claimant, not one whose claim ended), the fields say what they mean,
 * and hearing a note shares one decrypted copy and spends the account's budget.
 */

let d: Domain;
beforeAll(async () => {
  d = await freshDomain({
    RATE_LIMITS: JSON.stringify({ voiceAudio: { account: { points: 4, duration: 600 } } }),
  });
});
afterAll(() => d?.close());

async function* chunks(buf: Buffer) {
  yield new Uint8Array(buf);
}
const audioFile = () =>
  d.records.storeUpload(chunks(wav(1)), { maxBytes: 1024 * 1024, allowed: "audio", fileName: "v.wav" });
const add = async (who: Person, reportId: string, input: Record<string, unknown>) =>
  d.consultation.addVoiceNote(who, reportId, input, await audioFile());

describe("voice notes", () => {
  let patient: Person;
  let gone: Person;
  let holder: Person;
  let report: { _id: string };
  let description: { _id: string };

  it("only the live claimant speaks or types beside a pending report; a released claim holds nothing", async () => {
    patient = await makePatient();
    gone = await makeExpert();
    holder = await makeExpert();
    report = await makeReport(patient);
    description = await add(patient, report._id, { kind: "description", language: "hi" });
    await claim(gone, report);
    await add(gone, report._id, { kind: "explanation" });
    await d.consultation.releaseReport(gone, report._id);
    expect((await refusal(() => add(gone, report._id, { kind: "explanation" }))).code).toBe("forbidden");
    expect(
      (await refusal(() => d.consultation.setHeardNote(gone, description._id, { heardNote: "x" }))).message,
    ).toBe("voice.heardNotAllowed");
    await claim(holder, report);
    await add(holder, report._id, { kind: "explanation" });
  });

  it("a language we do not support is refused; a missing heardNote changes nothing, null clears it", async () => {
    for (const language of ["kn", "fr"])
      expect(await refusal(() => add(patient, report._id, { kind: "description", language }))).toMatchObject({
        code: "invalid",
        message: "voice.badLanguage",
      });
    await d.consultation.setHeardNote(holder, description._id, { heardNote: "Tired since May" });
    expect((await refusal(() => d.consultation.setHeardNote(holder, description._id, {}))).message).toBe(
      "voice.heardRequired",
    );
    const [kept] = await d.consultation.listVoiceNotes(holder, report._id);
    expect(kept.heardNote).toBe("Tired since May");
    expect(
      (await d.consultation.setHeardNote(holder, description._id, { heardNote: null })).heardNote,
    ).toBeNull();
  });

  it("hearings share one decrypted copy and spend the account's budget", async () => {
    const open = () => d.consultation.openVoiceNote(patient, description._id, patient.client);
    const first = await open();
    const together = await Promise.all([open(), open(), open()]);
    for (const o of together) expect(o.bytes.buffer).toBe(first.bytes.buffer);
    const over = await refusal(open);
    expect(over.code).toBe("rate_limited");
    expect(over.extra?.retryAfterSeconds).toBeGreaterThan(0);
    // Another account's budget is its own.
    await d.consultation.openVoiceNote(holder, description._id, holder.client);
  });

  it("the cache of decrypted notes never holds more than its bytes", async () => {
    const cache = new ByteLru(100, 60_000);
    let reads = 0;
    const read = (n: number) => async () => (reads++, Buffer.alloc(n));
    await cache.get("a", read(60));
    await cache.get("b", read(60));
    expect(cache.bytes).toBeLessThanOrEqual(100);
    await cache.get("b", read(60));
    expect(reads).toBe(2);
    await cache.get("huge", read(150));
    expect(cache.bytes).toBeLessThanOrEqual(100);
    await cache.get("a", read(60));
    expect(reads).toBe(4);
  });
});
