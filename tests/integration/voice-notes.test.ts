import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi, strongPassword } from "../helpers/api";
import { webmOpus, wav } from "../helpers/audio";
import { openTestDb, storedKeys, type TestDb } from "../helpers/db";
import { samplePdf, uploadForm } from "../helpers/files";
import { Browserish, pageText, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/**
 * Voice notes over HTTP (decision 0037): the type decided by the bytes, the duration by the
 * container and refused over VOICE_MAX_SECONDS, the report file's access rule, Range serving,
 * and the audio gone with its report or its account.
 */
let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let api: ReturnType<typeof apiClient>;
let db: TestDb;
const tok: Record<string, string> = {};
const ids: Record<string, string> = {};
const notes: Record<string, any> = {};
const audio: Record<string, Buffer> = {};

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    RATE_LIMIT_DISABLED: "1",
    ADMIN_EMAIL: "admin@v.test",
    ADMIN_PASSWORD: "Admin-pass-123",
  });
  api = apiClient(server.url);
  db = await openTestDb(server.dataDir);
  for (const [k, type] of [
    ["patientA", "Patient"],
    ["patientB", "Patient"],
    ["expert", "Expert"],
    ["other", "Expert"],
    ["newbie", "Expert"],
  ] as const) {
    const r = await signupViaApi(api, smtp, codeFrom, {
      email: `${k.toLowerCase()}@v.test`,
      accountType: type,
      firstName: k,
      lastName: "Voice",
    });
    tok[k] = r.token;
    ids[k] = r.user._id;
  }
  tok.admin = (
    await api.post("/auth/login", { email: "admin@v.test", password: "Admin-pass-123" })
  ).body.token;
  for (const k of ["expert", "other"])
    expect((await api.post("/expert/approve-expert", { expertId: ids[k] }, tok.admin)).status).toBe(200);
  for (const k of ["patientA", "patientB"]) {
    const r = await api.call(
      "POST",
      "/report/upload-report",
      uploadForm(
        { reportType: "Blood Test", phoneNumber: "9876543210", countryCode: "+91" },
        { name: "lab.pdf", data: samplePdf(), type: "application/pdf" },
      ),
      tok[k],
    );
    expect(r.status).toBe(201);
    ids[`report${k.slice(-1)}`] = r.body.data._id;
  }
});
afterAll(async () => {
  await db?.close();
  await server?.stop();
  await smtp?.close();
});

const voiceForm = (fields: Record<string, string>, data: Buffer, name = "voice.webm", type = "audio/webm") =>
  uploadForm(fields, { name, data, type, field: "audio" });
const post = (reportId: string, form: FormData, token?: string) => {
  form.append("reportId", reportId);
  return api.raw("POST", "/voice-notes", form, token);
};
const pageHtml = (html: string) => html.replace(/&quot;/g, '"');
const get = (path: string, token?: string, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/api/v1${path}`, {
    headers: { ...headers, ...(token ? { Authorization: `Bearer ${token}` } : {}) },
  });

describe("adding a voice note", () => {
  it("takes WebM/Opus and WAV, with the type from the bytes and the duration from the container", async () => {
    audio.webm = webmOpus(3);
    const a = await post(
      ids.reportA,
      voiceForm({ kind: "description", language: "hi" }, audio.webm),
      tok.patientA,
    );
    expect(a.status).toBe(201);
    expect(a.body.data).toMatchObject({
      kind: "description",
      language: "hi",
      mimeType: "audio/webm",
      durationMs: 3000,
      size: audio.webm.length,
      reportId: ids.reportA,
    });
    notes.webm = a.body.data;
    expect(notes.webm.audioUrl).toBe(`/api/v1/voice-notes/${notes.webm._id}/audio`);
    // A WAV sent as "audio/webm" with a .webm name is still a WAV: the bytes decide.
    audio.wav = wav(2);
    const w = await post(ids.reportA, voiceForm({ kind: "description" }, audio.wav), tok.patientA);
    expect(w.status).toBe(201);
    expect(w.body.data).toMatchObject({ mimeType: "audio/wav", durationMs: 2000, language: "en" });
    notes.wav = w.body.data;
  });

  it("refuses what is not audio, a cut-off recording and one over the limit, with a message, storing nothing", async () => {
    const before = (await storedKeys(server)).length;
    const text = await post(
      ids.reportA,
      voiceForm({ kind: "description" }, Buffer.from("just some text pretending to be audio\n".repeat(20))),
      tok.patientA,
    );
    expect(text.status).toBe(415);
    expect(text.body.message).toMatch(/WebM, Ogg, MP4\/M4A, MP3, WAV/);
    const cutWav = await post(
      ids.reportA,
      voiceForm({ kind: "description" }, wav(2).subarray(0, 5000)),
      tok.patientA,
    );
    expect(cutWav.status).toBe(400);
    expect(cutWav.body.message).toBe(
      "This audio file could not be read. Record again or choose another file (WebM, Ogg, MP4/M4A, MP3 or WAV).",
    );
    const full = webmOpus(3);
    const cutWebm = await post(
      ids.reportA,
      voiceForm({ kind: "description" }, full.subarray(0, full.length - 400)),
      tok.patientA,
    );
    expect(cutWebm.status).toBe(400);
    expect(cutWebm.body.errors ?? cutWebm.body.message).toBeTruthy();
    const longWebm = await post(ids.reportA, voiceForm({ kind: "description" }, webmOpus(130)), tok.patientA);
    expect(longWebm.status).toBe(400);
    expect(longWebm.body.message).toBe("This recording is longer than 120 seconds. Please keep it shorter.");
    expect(longWebm.body.errors.audio).toEqual([
      "This recording is longer than 120 seconds. Please keep it shorter.",
    ]);
    const longWav = await post(ids.reportA, voiceForm({ kind: "description" }, wav(125)), tok.patientA);
    expect(longWav.status).toBe(400);
    const none = await post(ids.reportA, uploadForm({ kind: "description" }), tok.patientA);
    expect(none.status).toBe(400);
    expect(none.body.message).toBe("Record or choose an audio file first.");
    const badKind = await post(ids.reportA, voiceForm({ kind: "lecture" }, webmOpus(1)), tok.patientA);
    expect(badKind.status).toBe(400);
    // A language we do not support is not stored as English (decision 0058).
    const kannada = await post(
      ids.reportA,
      voiceForm({ kind: "description", language: "kn" }, wav(1)),
      tok.patientA,
    );
    expect(kannada.status).toBe(400);
    expect(kannada.body.errors.language[0]).toMatch(/English, Hindi, Bengali or Tamil/);
    // A body cut off before its closing boundary.
    const form = new Response(voiceForm({ kind: "description", reportId: ids.reportA }, webmOpus(2)));
    const whole = Buffer.from(await form.arrayBuffer());
    const cut = await fetch(`${server.url}/api/v1/voice-notes`, {
      method: "POST",
      headers: { Authorization: `Bearer ${tok.patientA}`, "Content-Type": form.headers.get("Content-Type")! },
      body: whole.subarray(0, whole.length - 300),
    });
    expect(cut.status).toBe(400);
    expect((await storedKeys(server)).length).toBe(before);
  });

  it("only the patient's side adds descriptions; a stranger, another patient, an expert are refused", async () => {
    const form = () => voiceForm({ kind: "description" }, webmOpus(1));
    expect((await post(ids.reportA, form())).status).toBe(401);
    expect((await post(ids.reportA, form(), tok.patientB)).status).toBe(403);
    expect((await post(ids.reportA, form(), tok.expert)).status).toBe(403);
    expect((await post(ids.reportA, form(), tok.admin)).status).toBe(403);
    expect((await post("no-such-report", form(), tok.patientA)).status).toBe(404);
  });

  it("two at once are both kept", async () => {
    const [x, y] = await Promise.all([
      post(ids.reportB, voiceForm({ kind: "description" }, webmOpus(1)), tok.patientB),
      post(ids.reportB, voiceForm({ kind: "description" }, wav(1)), tok.patientB),
    ]);
    expect([x.status, y.status]).toEqual([201, 201]);
    notes.b1 = x.body.data;
    notes.b2 = y.body.data;
  });
});

describe("hearing a voice note", () => {
  it("lists and serves them to whoever may open the report's file, and no one else", async () => {
    const mine = await api.raw("GET", `/voice-notes?reportId=${ids.reportA}`, undefined, tok.patientA);
    expect(mine.status).toBe(200);
    expect(mine.body.data.map((n: any) => n._id)).toEqual([notes.webm._id, notes.wav._id]);
    expect((await api.raw("GET", `/voice-notes?reportId=${ids.reportA}`)).status).toBe(401);
    expect(
      (await api.raw("GET", `/voice-notes?reportId=${ids.reportA}`, undefined, tok.patientB)).status,
    ).toBe(403);
    expect((await api.raw("GET", `/voice-notes?reportId=${ids.reportA}`, undefined, tok.newbie)).status).toBe(
      403,
    );
    // Approved experts may hear a pending report's notes (to decide whether to claim it), admins always.
    expect((await api.raw("GET", `/voice-notes?reportId=${ids.reportA}`, undefined, tok.expert)).status).toBe(
      200,
    );
    expect((await api.raw("GET", `/voice-notes?reportId=${ids.reportA}`, undefined, tok.admin)).status).toBe(
      200,
    );

    const url = `/voice-notes/${notes.webm._id}/audio`;
    expect((await get(url)).status).toBe(401);
    expect((await get(url, tok.patientB)).status).toBe(403);
    expect((await get(url, tok.newbie)).status).toBe(403);
    expect((await get(`/voice-notes/nothing-here/audio`, tok.patientA)).status).toBe(404);
    const whole = await get(url, tok.patientA);
    expect(whole.status).toBe(200);
    expect(whole.headers.get("Content-Type")).toBe("audio/webm");
    expect(whole.headers.get("Cache-Control")).toBe("private, no-store");
    expect(whole.headers.get("Accept-Ranges")).toBe("bytes");
    expect(Buffer.from(await whole.arrayBuffer()).equals(audio.webm)).toBe(true);
    const size = audio.webm.length;

    const first = await get(url, tok.patientA, { Range: "bytes=0-99" });
    expect(first.status).toBe(206);
    expect(first.headers.get("Content-Range")).toBe(`bytes 0-99/${size}`);
    expect(first.headers.get("Content-Length")).toBe("100");
    expect(Buffer.from(await first.arrayBuffer()).equals(audio.webm.subarray(0, 100))).toBe(true);
    const middle = await get(url, tok.patientA, { Range: `bytes=1000-` });
    expect(middle.status).toBe(206);
    expect(middle.headers.get("Content-Range")).toBe(`bytes 1000-${size - 1}/${size}`);
    expect(Buffer.from(await middle.arrayBuffer()).equals(audio.webm.subarray(1000))).toBe(true);
    const suffix = await get(url, tok.patientA, { Range: "bytes=-50" });
    expect(suffix.status).toBe(206);
    expect(suffix.headers.get("Content-Range")).toBe(`bytes ${size - 50}-${size - 1}/${size}`);
    expect(Buffer.from(await suffix.arrayBuffer()).equals(audio.webm.subarray(size - 50))).toBe(true);
    const beyond = await get(url, tok.patientA, { Range: `bytes=${size}-` });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get("Content-Range")).toBe(`bytes */${size}`);
    expect(await beyond.text()).toBe("");
    // The refused and the allowed openings are both in the audit trail.
    const events = await db.all<{ action: string; actor_id: string }>(
      "SELECT action, actor_id FROM audit_events WHERE action IN ('voice_note.open', 'voice_note.refused') AND subject_id = ?",
      ids.reportA,
    );
    expect(events.filter((e) => e.action === "voice_note.open" && e.actor_id === ids.patientA).length).toBe(
      5,
    );
    expect(events.some((e) => e.action === "voice_note.refused" && e.actor_id === ids.patientB)).toBe(true);
  });
});

describe("the expert's spoken explanation and the patient's spoken question", () => {
  it("only the expert holding the report adds one; the patient hears it once the written opinion is there", async () => {
    const form = () => voiceForm({ kind: "explanation", language: "hi" }, webmOpus(2));
    expect((await post(ids.reportA, form(), tok.patientA)).status).toBe(403);
    expect((await post(ids.reportA, form(), tok.newbie)).status).toBe(403);
    expect((await post(ids.reportA, form(), tok.expert)).status).toBe(403); // not claimed by them
    expect((await api.post(`/report/claim/${ids.reportA}`, {}, tok.expert)).status).toBe(200);
    expect((await post(ids.reportA, form(), tok.other)).status).toBe(403);
    const added = await post(ids.reportA, form(), tok.expert);
    expect(added.status).toBe(201);
    notes.explanation = added.body.data;
    // Before the written opinion: not on the patient's side at all.
    const before = await api.raw("GET", `/voice-notes?reportId=${ids.reportA}`, undefined, tok.patientA);
    expect(before.body.data.map((n: any) => n.kind)).toEqual(["description", "description"]);
    expect((await get(`/voice-notes/${notes.explanation._id}/audio`, tok.patientA)).status).toBe(404);
    expect((await get(`/voice-notes/${notes.explanation._id}/audio`, tok.expert)).status).toBe(200);

    const review = await api.post(
      `/report/add-review/${ids.reportA}`,
      {
        review: "Your sugar is a little high.",
        findings: "Fasting glucose 118 mg/dL.",
        recommendations: "Repeat in 3 months.",
      },
      tok.expert,
    );
    expect(review.status).toBe(200);
    const after = await api.raw("GET", `/voice-notes?reportId=${ids.reportA}`, undefined, tok.patientA);
    expect(after.body.data.map((n: any) => n.kind)).toEqual(["description", "description", "explanation"]);
    const played = await get(`/voice-notes/${notes.explanation._id}/audio`, tok.patientA);
    expect(played.status).toBe(200);
    expect(played.headers.get("Content-Type")).toBe("audio/webm");
    // Once reviewed, other experts no longer hear it (the report file's rule).
    expect((await get(`/voice-notes/${notes.webm._id}/audio`, tok.other)).status).toBe(403);
  });

  it("a spoken follow-up question needs no typed words and joins the thread", async () => {
    const r = await post(ids.reportA, voiceForm({ kind: "question", question: "" }, wav(3)), tok.patientA);
    expect(r.status).toBe(201);
    expect(r.body.data.followUpId).toEqual(expect.any(String));
    const row = await db.get<{ question: string; report_id: string }>(
      "SELECT question, report_id FROM report_followups WHERE id = ?",
      r.body.data.followUpId,
    );
    expect(row).toEqual({ question: "", report_id: ids.reportA });
    // The expert's follow-ups screen plays it in the thread, where the typed words would be.
    const web = new Browserish(server.url);
    expect((await web.post("/login", { email: "expert@v.test", password: strongPassword })).status).toBe(302);
    const followUps = await (await web.fetch("/dashboard/follow-ups")).text();
    expect(followUps).toContain(`src="${r.body.data.audioUrl}"`);
    // A question on a report not yet reviewed is refused like a typed one, and nothing is kept.
    const before = (await storedKeys(server)).length;
    const early = await post(ids.reportB, voiceForm({ kind: "question" }, wav(1)), tok.patientB);
    expect(early.status).toBe(409);
    expect((await storedKeys(server)).length).toBe(before);
  });

  it("the expert types what they heard beside a patient's note; others may not", async () => {
    const patch = (id: string, body: unknown, token?: string) =>
      api.raw("PATCH", `/voice-notes/${id}`, body, token);
    const ok = await patch(
      notes.webm._id,
      { heardNote: "Patient says the tiredness started in May." },
      tok.expert,
    );
    expect(ok.status).toBe(200);
    expect(ok.body.data.heardNote).toBe("Patient says the tiredness started in May.");
    expect((await patch(notes.webm._id, { heardNote: "x" }, tok.patientA)).status).toBe(403);
    expect((await patch(notes.webm._id, { heardNote: "x" }, tok.other)).status).toBe(403);
    expect((await patch(notes.webm._id, { heardNote: "x" })).status).toBe(401);
    expect((await patch(notes.webm._id, { heardNote: "x".repeat(2001) }, tok.expert)).status).toBe(400);
    expect((await patch(notes.explanation._id, { heardNote: "x" }, tok.expert)).status).toBe(400);
    // A body without the field is refused and wipes nothing (decision 0058); null is how to clear.
    const missing = await patch(notes.webm._id, {}, tok.expert);
    expect(missing.status).toBe(400);
    expect(missing.body.message).toBe("Send heardNote: the text, or null to remove it.");
    // Each refusal says what it means, with its number (decision 0059).
    const tooLong = await patch(notes.webm._id, { heardNote: "x".repeat(2001) }, tok.expert);
    expect(tooLong.body.errors.heardNote).toEqual(["Please keep the note under 2000 characters."]);
    const notText = await patch(notes.webm._id, { heardNote: 5 } as never, tok.expert);
    expect([notText.status, notText.body.errors.heardNote]).toEqual([
      400,
      ["The note must be written text."],
    ]);
    const listed = await api.raw("GET", `/voice-notes?reportId=${ids.reportA}`, undefined, tok.patientA);
    expect(listed.body.data[0].heardNote).toBe("Patient says the tiredness started in May.");
  });
});

describe("the screens, without JavaScript", () => {
  it("the patient sends a recording from the report list's form and hears it there, from our own pages only", async () => {
    const web = new Browserish(server.url);
    expect((await web.post("/login", { email: "patienta@v.test", password: strongPassword })).status).toBe(
      302,
    );
    const list = `/dashboard/previous-report/${ids.patientA}`;
    const page = pageHtml(await (await web.fetch(list)).text());
    // The form is there as plain HTML: a file input that asks phones for their recorder.
    const audioInput = /<input[^>]*name="audio"[^>]*>/.exec(page)?.[0] ?? "";
    for (const attribute of ['type="file"', 'accept="audio/*"', 'capture="user"'])
      expect(audioInput).toContain(attribute);
    const sent = await web.fetch(`/voice/${ids.reportA}?back=${encodeURIComponent(list)}`, {
      method: "POST",
      body: voiceForm({ kind: "description", language: "ta" }, wav(4), "note.wav", "audio/wav"),
      headers: { Origin: server.url, "Sec-Fetch-Site": "same-origin" },
    });
    expect(sent.status).toBe(302);
    expect(sent.headers.get("Location")).toBe(`${list}#voice-${ids.reportA}`);
    const after = await (await web.fetch(list)).text();
    const players = [...after.matchAll(/<audio[^>]*>/g)].map((m) => m[0]);
    expect(players.length).toBeGreaterThanOrEqual(3);
    for (const a of players) expect(a).toContain('preload="none"');
    expect(pageText(after)).toContain("Length: 0:04");
    const row = await db.get<{ id: string }>(
      "SELECT id FROM voice_notes WHERE report_id = ? AND language = 'ta'",
      ids.reportA,
    );
    const audioUrl = `/api/v1/voice-notes/${row!.id}/audio`;
    expect((await web.fetch(audioUrl, { headers: { "Sec-Fetch-Site": "same-origin" } })).status).toBe(200);
    expect((await web.fetch(audioUrl, { headers: { "Sec-Fetch-Site": "cross-site" } })).status).toBe(403);
    // A refusal comes back as a message on the same screen, never an error page.
    const bad = await web.fetch(`/voice/${ids.reportA}?back=${encodeURIComponent(list)}`, {
      method: "POST",
      body: voiceForm({ kind: "description" }, webmOpus(130)),
      headers: { Origin: server.url, "Sec-Fetch-Site": "same-origin" },
    });
    expect(bad.status).toBe(302);
    const shown = pageText(await (await web.follow(bad)).text());
    expect(shown).toContain("This recording is longer than 120 seconds.");
    // Another site cannot post into the patient's record.
    const forged = await web.fetch(`/voice/${ids.reportA}`, {
      method: "POST",
      body: voiceForm({ kind: "description" }, wav(1)),
      headers: { Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site" },
    });
    expect(forged.status).toBe(403);
  });
});

describe("deleting", () => {
  it("a deleted report takes its voice notes' audio with it", async () => {
    const keys = await db.all<{ file_key: string }>(
      "SELECT file_key FROM voice_notes WHERE report_id = ?",
      ids.reportB,
    );
    expect(keys).toHaveLength(2);
    const del = await api.raw("DELETE", "/report/delete-report", { reportId: ids.reportB }, tok.patientB);
    expect(del.status).toBe(200);
    const left = await storedKeys(server);
    for (const k of keys) expect(left).not.toContain(k.file_key);
    expect(await db.all("SELECT id FROM voice_notes WHERE report_id = ?", ids.reportB)).toHaveLength(0);
  });

  it("an erased account takes its voice notes' audio with it", async () => {
    const keys = await db.all<{ file_key: string }>(
      "SELECT file_key FROM voice_notes WHERE report_id = ?",
      ids.reportA,
    );
    expect(keys.length).toBeGreaterThanOrEqual(4);
    const gone = await api.del(
      "/profile/delete-profile",
      { password: strongPassword, immediate: true },
      tok.patientA,
    );
    expect(gone.status).toBe(200);
    const left = await storedKeys(server);
    for (const k of keys) expect(left).not.toContain(k.file_key);
    expect(await db.all("SELECT id FROM voice_notes WHERE report_id = ?", ids.reportA)).toHaveLength(0);
  });
});
