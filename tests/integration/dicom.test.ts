import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PNG } from "pngjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi, strongPassword } from "../helpers/api";
import { storedBytes, storedKeys } from "../helpers/db";
import {
  ctInstance,
  ctSeries,
  fakeDcm,
  jpegInstance,
  jpegLsGarbageInstance,
  makeZip,
  rleInstance,
  tinyInstances,
} from "../helpers/dicom";
import { uploadForm } from "../helpers/files";
import { backendEnv, onPostgres, startS3, type S3Server } from "../helpers/backends";
import { startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/**
 * Medical images over HTTP on the running built server (either backend: TEST_BACKEND=pg-s3):
 * uploads by the bytes, a study's metadata and personal fields, refusals of bad files and
 * hostile ZIPs, previews of uncompressed, RLE and JPEG files, presets, and who may see them.
 */
let server: TestServer;
let s3: S3Server | undefined;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let api: ReturnType<typeof apiClient>;
const tok: Record<string, string> = {};
const ids: Record<string, string> = {};
const fields = { reportType: "CT Scan", phoneNumber: "9876543210", countryCode: "+91" };

beforeAll(async () => {
  smtp = await startSmtp();
  // On PostgreSQL + S3, an S3 server of this file's own: a CD's thousands of stores are not queued
  // behind every other file's on the run's shared one (and the run's others behind them).
  const root = mkdtempSync(path.join(os.tmpdir(), "carebridge-test-"));
  if (onPostgres) {
    s3 = await startS3();
    const own = { ...(await backendEnv()), STORAGE_URL: await s3.createBucket() };
    writeFileSync(path.join(root, "backend.json"), JSON.stringify(own));
  }
  server = await startServer(
    {
      SMTP_URL: smtp.url,
      RATE_LIMIT_DISABLED: "1",
      // s3rver, a test double on two busy cores, has left one of a CD's 5,000 stores unanswered past
      // the 4 s bound (decision 0075), which then answered 503 as it should; the bound has its own
      // test (faults.test.ts), this file is about studies.
      STORE_TIMEOUT_MS: "60000",
      MAX_UPLOAD_MB: "1",
      MAX_STUDY_MB: "4",
      ADMIN_EMAIL: "admin@d.test",
      ADMIN_PASSWORD: "Admin-pass-123",
    },
    { root },
  );
  api = apiClient(server.url);
  for (const [k, type] of [
    ["patientA", "Patient"],
    ["patientB", "Patient"],
    ["expert", "Expert"],
  ] as const) {
    const r = await signupViaApi(api, smtp, codeFrom, {
      email: `${k.toLowerCase()}@d.test`,
      accountType: type,
      firstName: k,
      lastName: "Test",
    });
    tok[k] = r.token;
    ids[k] = r.user._id;
  }
  tok.admin = (
    await api.post("/auth/login", { email: "admin@d.test", password: "Admin-pass-123" })
  ).body.token;
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await s3?.stop();
  await smtp?.close();
});

const upload = (token: string, name: string, data: Buffer, type = "application/octet-stream") =>
  api.call("POST", "/report/upload-report", uploadForm(fields, { name, data, type }), token);

async function frame(path: string, token?: string) {
  const res = await fetch(`${server.url}/api/v1${path}`, {
    headers: token ? { Authorization: `Bearer ${token}` } : {},
  });
  const body = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, body };
}
const decode = (png: Buffer) => PNG.sync.read(png);

describe("DICOM uploads", () => {
  it("accepts a .dcm, reads its metadata and lists the personal fields it carries", async () => {
    const dcm = ctInstance({ frames: 3, bodyPart: "CHEST", studyDate: "20260315" });
    const r = await upload(tok.patientA, "scan.dcm", dcm);
    expect(r.status).toBe(201);
    const rep = r.body.data;
    expect(rep.mimeType).toBe("application/dicom");
    expect(rep.fileName).toBe("scan.dcm");
    expect(rep.study).toMatchObject({
      modality: "CT",
      bodyPart: "CHEST",
      studyDate: "2026-03-15",
      description: "CT CHEST",
      instanceCount: 1,
      pacs: { status: "none" },
      viewerUrl: null,
    });
    expect(rep.study.series).toHaveLength(1);
    expect(rep.study.series[0]).toMatchObject({ frames: 3, modality: "CT" });
    expect(rep.study.series[0].instances[0]).toMatchObject({
      rows: 64,
      columns: 64,
      frames: 3,
      transferSyntax: "1.2.840.10008.1.2.1",
    });
    expect(rep.study.personalFields).toEqual([
      "PatientName",
      "PatientID",
      "PatientBirthDate",
      "PatientSex",
      "InstitutionName",
      "ReferringPhysicianName",
    ]);
    ids.single = rep._id;
    ids.singleInstance = rep.study.series[0].instances[0].id;
    // Stored encrypted like every report file.
    const keys = await storedKeys(server);
    for (const k of keys)
      expect((await storedBytes(server, k)).includes(Buffer.from("Test^Asha"))).toBe(false);
  });

  it("a file without personal fields says so (an empty list)", async () => {
    const r = await upload(tok.patientA, "anon.dcm", ctInstance({ personal: false }));
    expect(r.status).toBe(201);
    expect(r.body.data.study.personalFields).toEqual([]);
  });

  it("accepts a ZIP of one study: every DICOM entry is an instance, other files are left out", async () => {
    const { files } = ctSeries(3);
    const zip = makeZip([
      { name: "DICOM/", data: Buffer.alloc(0) },
      ...files.map((data, i) => ({ name: `DICOM/IM${i}`, data, deflate: true })),
      { name: "README.TXT", data: Buffer.from("Viewer on this CD: run viewer.exe") },
      { name: "AUTORUN.INF", data: Buffer.from("[autorun]") },
    ]);
    const r = await upload(tok.patientA, "study.zip", zip, "application/zip");
    expect(r.status).toBe(201);
    expect(r.body.data.mimeType).toBe("application/zip");
    expect(r.body.data.study.instanceCount).toBe(3);
    expect(r.body.data.study.series[0].frames).toBe(3);
    expect(
      r.body.data.study.series[0].instances.map((i: { instanceNumber: number }) => i.instanceNumber),
    ).toEqual([1, 2, 3]);
    ids.zip = r.body.data._id;
    const got = await api.raw("GET", `/report/${ids.zip}/study`, undefined, tok.patientA);
    expect(got.status).toBe(200);
    expect(got.body.data.instanceCount).toBe(3);
  });

  it("refuses a fake .dcm (no DICM marker) with a message", async () => {
    const r = await upload(tok.patientA, "fake.dcm", fakeDcm());
    expect(r.status).toBe(415);
    expect(r.body.message).toMatch(/DICOM/);
  });

  it("refuses ZIPs with path tricks, links, bombs, two studies or no DICOM, and stores nothing", async () => {
    const before = (await storedKeys(server)).length;
    const dcm = ctInstance();
    const cases: [string, Buffer, RegExp][] = [
      ["dotdot", makeZip([{ name: "../../etc/IM0", data: dcm }]), /outside its folder/],
      ["absolute", makeZip([{ name: "/tmp/IM0", data: dcm }]), /outside its folder/],
      ["windows", makeZip([{ name: "..\\..\\IM0", data: dcm }]), /outside its folder/],
      [
        "symlink",
        makeZip([
          { name: "IM0", data: dcm },
          { name: "link", data: Buffer.from("/etc/passwd"), symlink: true },
        ]),
        /links/,
      ],
      [
        "bomb",
        makeZip([
          { name: "IM0", data: dcm },
          { name: "zeros", data: Buffer.alloc(50 * 1024 * 1024), deflate: true },
        ]),
        /far more than its size/,
      ],
      ["none", makeZip([{ name: "README.TXT", data: Buffer.from("nothing here") }]), /no DICOM/],
      // Cut off before its central directory (an interrupted copy from the CD).
      [
        "cut off",
        makeZip([{ name: "IM0", data: dcm, deflate: true }]).subarray(0, 4000),
        /could not be read/,
      ],
      [
        "two studies",
        makeZip([
          { name: "A", data: ctInstance() },
          { name: "B", data: ctInstance() },
        ]),
        /more than one study/,
      ],
    ];
    for (const [what, zip, message] of cases) {
      const r = await upload(tok.patientA, `${what}.zip`, zip, "application/zip");
      expect(r.status, what).toBe(400);
      expect(r.body.message + JSON.stringify(r.body.errors ?? {}), what).toMatch(message);
    }
    expect((await storedKeys(server)).length).toBe(before);
  });

  it("bounds what one ZIP unpacks to whatever its entries' sizes (ratio, MAX_STUDY_MB, entries), storing nothing", async () => {
    const before = (await storedKeys(server)).length;
    // Zero-filled images just under 1 MB each (no entry is checked on its own): ~3 MB from a few KB.
    const { files } = ctSeries(3, { rows: 720, columns: 720, zero: true });
    expect(files[0].length).toBeLessThan(1024 * 1024);
    const zeros = makeZip(files.map((data, i) => ({ name: `IM${i}`, data, deflate: true })));
    expect(zeros.length).toBeLessThan(64 * 1024);
    const bomb = await upload(tok.patientA, "zeros.zip", zeros, "application/zip");
    expect(bomb.status).toBe(400);
    expect(bomb.body.message).toMatch(/far more than its size/);
    // Ordinary data (about 2:1) that unpacks past MAX_STUDY_MB (4 MB here): too large for one study.
    const text = Buffer.from(randomBytes(5 * 1024 * 1024).map((b) => 65 + (b & 15)));
    const big = makeZip([
      { name: "IM0", data: ctInstance(), deflate: true },
      { name: "NOTES.TXT", data: text, deflate: true },
    ]);
    expect(big.length).toBeLessThan(4 * 1024 * 1024);
    const tooLarge = await upload(tok.patientA, "big.zip", big, "application/zip");
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.message).toMatch(/more than one study may hold/);
    // More entries than a study may have: the number is in the message, in every place it is sent.
    const many = makeZip(Array.from({ length: 5001 }, (_, i) => ({ name: `F${i}`, data: Buffer.from("x") })));
    const tooMany = await upload(tok.patientA, "many.zip", many, "application/zip");
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.errors.report[0]).toBe("This ZIP has more than 5,000 files.");
    for (const r of [bomb, tooLarge, tooMany]) expect(JSON.stringify(r.body)).not.toContain("{{");
    expect((await storedKeys(server)).length).toBe(before);
  });

  it("refuses a study over MAX_STUDY_MB (413), while a DICOM file over MAX_UPLOAD_MB but under it is fine", async () => {
    const big = ctInstance({ rows: 1024, columns: 1024, frames: 3 }); // 6 MB of pixels
    const r = await upload(tok.patientA, "big.dcm", big);
    expect(r.status).toBe(413);
    const medium = ctInstance({ rows: 512, columns: 512, frames: 3 }); // 1.5 MB: over MAX_UPLOAD_MB (1)
    expect(medium.length).toBeGreaterThan(1024 * 1024);
    const ok = await upload(tok.patientA, "medium.dcm", medium);
    expect(ok.status).toBe(201);
    // Other files keep MAX_UPLOAD_MB.
    const jpg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(1024 * 1024 + 10)]);
    const r2 = await upload(tok.patientA, "photo.jpg", jpg, "image/jpeg");
    expect(r2.status).toBe(413);
  });
});

describe("a CD of thousands of images", () => {
  // The limit itself (5,000 files) on SQLite; on PostgreSQL + S3, 1,100: still three insert batches
  // (500 each) and more objects than one S3 listing page holds (1,000), at a fifth of the time (s3rver
  // stores one object at a time; decision 0099).
  const COUNT = process.env.TEST_BACKEND === "pg-s3" ? 1100 : 5000;
  it(`a ZIP of ${COUNT} instances is one study of ${COUNT} rows (inserted in batches), on either database`, async () => {
    const entries = tinyInstances(COUNT).map((data, i) => ({ name: `I${i}`, data, deflate: true }));
    let before = (await storedKeys(server)).length;
    const zip = makeZip(entries);
    let r = await upload(tok.patientA, "cd.zip", zip, "application/zip");
    // A 503 says "try again in a moment" (decision 0060), and a client does: s3rver, the test
    // double, has refused one of a CD's stores under a loaded CI run (the server's log line, printed
    // at its stop, names why). What this test is about — one study of every instance — is then
    // asked of the second try; what the first left is the sweep's (refusals store nothing: above).
    if (r.status === 503) {
      await new Promise((done) => setTimeout(done, 2_000));
      before = (await storedKeys(server)).length;
      r = await upload(tok.patientA, "cd.zip", zip, "application/zip");
    }
    expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(201);
    expect(r.body.data.study.instanceCount).toBe(COUNT);
    expect(r.body.data.study.series[0].instances).toHaveLength(COUNT);
    // The ZIP and its instances; deleting the report removes them all.
    expect((await storedKeys(server)).length).toBe(before + COUNT + 1);
    const del = await api.raw("DELETE", "/report/delete-report", { reportId: r.body.data._id }, tok.patientA);
    expect(del.status).toBe(200);
    expect((await storedKeys(server)).length).toBe(before);
  }, 120_000);
});

describe("previews", () => {
  it("renders an uncompressed frame as PNG, cached, private; presets change the pixels", async () => {
    const base = `/report/${ids.single}/study/frames/${ids.singleInstance}`;
    const def = await frame(`${base}/0.png`, tok.patientA);
    expect(def.status).toBe(200);
    expect(def.headers.get("content-type")).toBe("image/png");
    expect(def.headers.get("cache-control")).toMatch(/^private/);
    const img = decode(def.body);
    expect([img.width, img.height]).toEqual([64, 64]);
    const lung = decode((await frame(`${base}/0.png?preset=lung`, tok.patientA)).body);
    const bone = decode((await frame(`${base}/0.png?preset=bone`, tok.patientA)).body);
    const brain = decode((await frame(`${base}/0.png?preset=brain`, tok.patientA)).body);
    // The ramp's pixel 1000 (≈ −24 HU): grey in the file's soft-tissue window (400/40),
    // brighter in lung (1500/−600), darker in bone (2000/300), darkish in brain (80/40).
    const at = (p: PNG, i: number) => p.data[i * 4];
    expect(at(lung, 1000)).toBeGreaterThan(at(img, 1000));
    // Pixel 2000 (≈ 976 HU): white in the file's window, grey in bone's.
    expect(at(bone, 2000)).toBeLessThan(at(img, 2000));
    expect(at(brain, 1000)).toBeLessThan(at(img, 1000));
    expect(lung.data.equals(img.data)).toBe(false);
    // The same frame again comes from the cache, byte for byte.
    const again = await frame(`${base}/0.png`, tok.patientA);
    expect(again.body.equals(def.body)).toBe(true);
    // Another frame of the multi-frame file differs (the ramp moves by 10 per frame).
    const f2 = decode((await frame(`${base}/2.png`, tok.patientA)).body);
    expect(f2.data.equals(img.data)).toBe(false);
  });

  it("renders RLE and JPEG-baseline files", async () => {
    for (const [name, data] of [
      ["rle.dcm", rleInstance()],
      ["jpeg.dcm", jpegInstance()],
    ] as const) {
      const r = await upload(tok.patientA, name, data);
      expect(r.status, name).toBe(201);
      const inst = r.body.data.study.series[0].instances[0];
      const png = await frame(`/report/${r.body.data._id}/study/frames/${inst.id}/0.png`, tok.patientA);
      expect(png.status, name).toBe(200);
      const img = decode(png.body);
      expect([img.width, img.height]).toEqual([32, 32]);
      // A horizontal ramp (JPEG) or a row-major ramp (RLE): the first and last pixels differ.
      expect(img.data[0], name).toBeLessThan(img.data[img.data.length - 4]);
    }
  });

  it("two simultaneous renders of the same frame keep one cached copy", async () => {
    const before = (await storedKeys(server)).length;
    const path = `/report/${ids.single}/study/frames/${ids.singleInstance}/1.png?preset=soft`;
    const [a, b] = await Promise.all([frame(path, tok.patientA), frame(path, tok.patientA)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body.equals(b.body)).toBe(true);
    expect((await storedKeys(server)).length).toBe(before + 1);
  });

  it("refuses bad frame requests with messages, not 5xx", async () => {
    const base = `/report/${ids.single}/study/frames/${ids.singleInstance}`;
    expect((await frame(`${base}/3.png`, tok.patientA)).status).toBe(404);
    expect((await frame(`${base}/x.png`, tok.patientA)).status).toBe(400);
    expect((await frame(`${base}/0.png?preset=purple`, tok.patientA)).status).toBe(400);
    expect((await frame(`/report/${ids.single}/study/frames/nope/0.png`, tok.patientA)).status).toBe(404);
    // An instance of another report through this report's address.
    const zipStudy = await api.raw("GET", `/report/${ids.zip}/study`, undefined, tok.patientA);
    const other = zipStudy.body.data.series[0].instances[0].id;
    expect((await frame(`/report/${ids.single}/study/frames/${other}/0.png`, tok.patientA)).status).toBe(404);
  });
});

describe("previews under attack (decision 0056)", () => {
  it("a frame that traps the decoder costs only its own render: after 40 of them RLE and JPEG still render", async () => {
    const bad = await upload(tok.patientA, "garbage-jls.dcm", jpegLsGarbageInstance());
    expect(bad.status).toBe(201);
    const inst = bad.body.data.study.series[0].instances[0];
    // The old decoder leaked its memory on each trap and broke every later render after ~36.
    for (let i = 0; i < 40; i++) {
      const r = await frame(`/report/${bad.body.data._id}/study/frames/${inst.id}/0.png`, tok.patientA);
      expect(r.status, `attempt ${i}`).toBe(415);
      expect(JSON.parse(r.body.toString()).message).toBe("This image could not be shown.");
    }
    for (const [name, data] of [
      ["rle-after.dcm", rleInstance({ rows: 48, columns: 48 })],
      ["jpeg-after.dcm", jpegInstance({ rows: 48, columns: 48 })],
    ] as const) {
      const r = await upload(tok.patientA, name, data);
      const ok = r.body.data.study.series[0].instances[0];
      const png = await frame(`/report/${r.body.data._id}/study/frames/${ok.id}/0.png`, tok.patientA);
      expect(png.status, name).toBe(200);
      expect(decode(png.body).width).toBe(48);
    }
  }, 120_000);

  // The render pool and its budgets live in the server process, whatever the backend: on SQLite only
  // (nine 4096² renders take both cores for seconds; decision 0099).
  it.skipIf(process.env.TEST_BACKEND === "pg-s3")(
    "nine parallel 4096² renders run off the event loop, budgeted per account, and never hold back another account",
    async () => {
      // Two large RLE instances, five presets each: nine different renders (none cached).
      const big: string[] = [];
      for (let i = 0; i < 2; i++) {
        const r = await upload(tok.patientA, `mammo${i}.dcm`, rleInstance({ rows: 4096, columns: 4096 }));
        expect(r.status).toBe(201);
        big.push(
          `/report/${r.body.data._id}/study/frames/${r.body.data.study.series[0].instances[0].id}/0.png`,
        );
      }
      const small = await upload(tok.patientB, "small.dcm", rleInstance({ rows: 64, columns: 64 }));
      expect(small.status).toBe(201);
      const smallPath = `/report/${small.body.data._id}/study/frames/${small.body.data.study.series[0].instances[0].id}/0.png`;

      const presets = ["default", "lung", "bone", "soft", "brain"];
      let order = 0;
      const paths = Array.from({ length: 9 }, (_, i) => `${big[i % 2]}?preset=${presets[Math.floor(i / 2)]}`);
      const renders = paths.map((p) => frame(p, tok.patientA).then((r) => ({ ...r, done: ++order })));
      const other = frame(smallPath, tok.patientB).then((r) => ({ ...r, done: ++order }));
      let settled = false;
      const all = Promise.all([...renders, other]).finally(() => (settled = true));

      // /healthz, asked again and again while the renders are in flight.
      const latencies: number[] = [];
      while (!settled) {
        const started = performance.now();
        const h = await fetch(`${server.url}/healthz`);
        await h.arrayBuffer();
        if (!settled) latencies.push(performance.now() - started);
        expect(h.status).toBe(200);
        await new Promise((r) => setTimeout(r, 10));
      }
      const results = await all;
      // The server kept answering: health checks while the renders ran took under 100 ms (the
      // median, and no check waited for a render: the 95th percentile is under half a second on a
      // busy machine). Before, nearly every check waited for the renders queued ahead of it.
      expect(latencies.length).toBeGreaterThanOrEqual(20);
      latencies.sort((a, b) => a - b);
      expect(latencies[Math.floor(latencies.length / 2)]).toBeLessThan(100);
      expect(latencies[Math.floor(latencies.length * 0.95)]).toBeLessThan(500);
      const mine = results.slice(0, 9);
      const theirs = results[9]!;

      const ok = mine.filter((r) => r.status === 200);
      const refused = mine.filter((r) => r.status === 429);
      expect(ok.length + refused.length).toBe(9);
      // One account has a few renders in hand at most (two decoding, two waiting); the rest are
      // refused at once, with a time to retry.
      expect(refused.length).toBeGreaterThanOrEqual(5);
      for (const r of refused) {
        expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
        expect(JSON.parse(r.body.toString()).message).toBe(
          "Images are being prepared. Try again in a moment.",
        );
      }
      for (const r of ok) expect(decode(r.body).width).toBe(4096);
      // The other account's small frame went ahead of the first account's queue.
      expect(theirs.status).toBe(200);
      expect(theirs.done).toBeLessThan(Math.max(...ok.map((r) => r.done)));
    },
    120_000,
  );
});

describe("who may see a study", () => {
  it("stranger 401, another patient 403, the expert (pending report) and admin 200", async () => {
    const path = `/report/${ids.single}/study/frames/${ids.singleInstance}/0.png`;
    expect((await frame(path)).status).toBe(401);
    expect((await api.raw("GET", `/report/${ids.single}/study`)).status).toBe(401);
    expect((await frame(path, tok.patientB)).status).toBe(403);
    expect((await api.raw("GET", `/report/${ids.single}/study`, undefined, tok.patientB)).status).toBe(403);
    // An expert awaiting approval is refused like for the file.
    expect((await frame(path, tok.expert)).status).toBe(403);
    const approve = await api.raw("POST", "/expert/approve-expert", { expertId: ids.expert }, tok.admin);
    expect(approve.status).toBe(200);
    expect((await frame(path, tok.expert)).status).toBe(200);
    expect((await frame(path, tok.admin)).status).toBe(200);
    const s = await api.raw("GET", `/report/${ids.single}/study`, undefined, tok.expert);
    expect(s.status).toBe(200);
  });

  it("a second opinion shows its case's study to its own expert (the file is the case's)", async () => {
    const r = await signupViaApi(api, smtp, codeFrom, {
      email: "radio@d.test",
      accountType: "Expert",
      firstName: "Radio",
      lastName: "Test",
      extra: {
        specialties: ["Neurology"],
        registrationNumber: "REG-D-RADIO",
        registrationCouncil: "National Medical Commission",
        yearsOfPractice: 7,
      },
    });
    tok.radio = r.token;
    expect((await api.post("/expert/approve-expert", { expertId: r.user._id }, tok.admin)).status).toBe(200);
    const asked = await api.post(
      `/report/second-opinion/${ids.single}`,
      { specialty: "Neurology", note: "Please read the head CT too." } as never,
      tok.admin,
    );
    expect(asked.status, JSON.stringify(asked.body)).toBe(201);
    const second = asked.body.data._id as string;
    expect((await api.post(`/report/claim/${second}`, {}, tok.radio)).status).toBe(200);
    const study = await api.raw("GET", `/report/${second}/study`, undefined, tok.radio);
    expect(study.status).toBe(200);
    const png = await frame(`/report/${second}/study/frames/${ids.singleInstance}/0.png`, tok.radio);
    expect(png.status).toBe(200);
    // Another patient still may not, through the second opinion either.
    expect(
      (await frame(`/report/${second}/study/frames/${ids.singleInstance}/0.png`, tok.patientB)).status,
    ).toBe(403);
  });

  it("a report that is not images has no study (404)", async () => {
    const pdf = Buffer.from("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n" + " ".repeat(5000));
    const r = await upload(tok.patientA, "a.pdf", pdf, "application/pdf");
    expect(r.status).toBe(201);
    expect(r.body.data.study).toBeUndefined();
    expect((await api.raw("GET", `/report/${r.body.data._id}/study`, undefined, tok.patientA)).status).toBe(
      404,
    );
  });

  it("deleting the report removes the study's instances and previews", async () => {
    const before = await storedKeys(server);
    const study = await api.raw("GET", `/report/${ids.zip}/study`, undefined, tok.patientA);
    const inst = study.body.data.series[0].instances[0].id;
    expect((await frame(`/report/${ids.zip}/study/frames/${inst}/0.png`, tok.patientA)).status).toBe(200);
    const withPreview = await storedKeys(server);
    expect(withPreview.length).toBe(before.length + 1);
    const del = await api.raw("DELETE", "/report/delete-report", { reportId: ids.zip }, tok.patientA);
    expect(del.status).toBe(200);
    // The ZIP, its three instances and the preview.
    expect((await storedKeys(server)).length).toBe(withPreview.length - 5);
    expect((await api.raw("GET", `/report/${ids.zip}/study`, undefined, tok.patientA)).status).toBe(404);
  });

  it("deleting the account removes its studies' instances and previews with the files", async () => {
    const who = await signupViaApi(api, smtp, codeFrom, {
      email: "leaving@d.test",
      accountType: "Patient",
      firstName: "Leaving",
      lastName: "Test",
    });
    const before = (await storedKeys(server)).length;
    const { files } = ctSeries(2);
    const zip = makeZip(files.map((data, i) => ({ name: `IM${i}`, data })));
    const up = await upload(who.token, "study.zip", zip, "application/zip");
    expect(up.status).toBe(201);
    const inst = up.body.data.study.series[0].instances[0].id;
    expect((await frame(`/report/${up.body.data._id}/study/frames/${inst}/0.png`, who.token)).status).toBe(
      200,
    );
    // The ZIP, two instances, one preview.
    expect((await storedKeys(server)).length).toBe(before + 4);
    const gone = await api.del(
      "/profile/delete-profile",
      { password: strongPassword, immediate: true },
      who.token,
    );
    expect(gone.status).toBe(200);
    expect((await storedKeys(server)).length).toBe(before);
  });
});
