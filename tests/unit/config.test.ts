import { existsSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "~/config.server";

const tmp = () => mkdtempSync(path.join(os.tmpdir(), "cb-config-"));

describe("configuration", () => {
  it("runs with no configuration and keeps generated secrets (0600) for the next start", () => {
    const dir = tmp();
    const env = { DATA_DIR: path.join(dir, "data"), UPLOADS_DIR: path.join(dir, "up") };
    const a = loadConfig(env);
    expect(a.databaseUrl).toBe(path.join(dir, "data", "app.db"));
    expect(a.maxUploadBytes).toBe(10 * 1024 * 1024);
    expect(a.encryptionKey).toHaveLength(32);
    const file = path.join(dir, "data", "secrets", "session-secret");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const b = loadConfig(env);
    expect(b.sessionSecret).toBe(a.sessionSecret);
    expect(b.encryptionKey.equals(a.encryptionKey)).toBe(true);
    expect(readFileSync(file, "utf8").trim()).toBe(a.sessionSecret);
  });

  it("backs up every day at 02:30 into DATA_DIR/backups/restic with a generated, typeable password (decisions 0067, 0068)", () => {
    const dir = tmp();
    const base = { DATA_DIR: path.join(dir, "data"), UPLOADS_DIR: path.join(dir, "up") };
    const b = loadConfig(base).backup;
    expect(b).toMatchObject({ at: "02:30", atMinute: 150, everyHours: 24, configured: false });
    expect(b.repository).toBe(path.join(dir, "data", "backups", "restic"));
    expect(b.keep).toEqual({ daily: 7, weekly: 4, monthly: 6 });
    expect(statSync(b.passwordFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(b.passwordFile, "utf8").trim()).toMatch(
      /^([a-hj-km-np-z2-9]{5}-){5}[a-hj-km-np-z2-9]{5}$/,
    );
    expect(loadConfig(base).backup.passwordFile).toBe(b.passwordFile);
    const with_ = (env: Record<string, string>) => loadConfig({ ...base, ...env }).backup;
    expect(with_({ BACKUP_AT: "off" }).atMinute).toBeNull();
    expect(with_({ BACKUP_REPOSITORY: "sftp:u@host:/srv/cb" })).toMatchObject({
      repository: "sftp:u@host:/srv/cb",
      configured: true,
    });
    expect(with_({ BACKUP_REPOSITORY: "usb/backups" }).repository).toBe(path.resolve("usb/backups"));
    expect(() => with_({ BACKUP_AT: "25:00" })).toThrow(/BACKUP_AT/);
    expect(() => with_({ BACKUP_CHECK_SHARE: "0%" })).toThrow(/BACKUP_CHECK_SHARE/);
    expect(() => with_({ BACKUP_PASSWORD_FILE: path.join(dir, "missing") })).toThrow(/BACKUP_PASSWORD_FILE/);
  });

  it("sizes the PostgreSQL pool to the workers unless DATABASE_POOL_MAX says otherwise", () => {
    const dir = tmp();
    const base = { DATA_DIR: dir, UPLOADS_DIR: dir };
    const pool = (env: Record<string, string>) => loadConfig({ ...base, ...env }).databasePoolMax;
    expect(pool({ WEB_CONCURRENCY: "1" })).toBe(8);
    expect(pool({ WEB_CONCURRENCY: "2" })).toBe(4);
    expect(pool({ WEB_CONCURRENCY: "3" })).toBe(3);
    expect(pool({ WEB_CONCURRENCY: "16" })).toBe(2);
    expect(pool({ WEB_CONCURRENCY: "2", DATABASE_POOL_MAX: "25" })).toBe(25);
    expect(() => pool({ DATABASE_POOL_MAX: "0" })).toThrow(/DATABASE_POOL_MAX/);
  });

  it("names the bad variable", () => {
    const dir = tmp();
    const base = { DATA_DIR: dir, UPLOADS_DIR: dir };
    expect(() => loadConfig({ ...base, MAX_UPLOAD_MB: "lots" })).toThrow(/MAX_UPLOAD_MB/);
    expect(() => loadConfig({ ...base, ENCRYPTION_KEY: "short" })).toThrow(/ENCRYPTION_KEY/);
    expect(() => loadConfig({ ...base, PORT: "99999" })).toThrow(/PORT/);
    expect(() => loadConfig({ ...base, SMTP_URL: "http://x" })).toThrow(/SMTP_URL/);
    expect(() => loadConfig({ ...base, ADMIN_EMAIL: "a@b.co" })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, METRICS_PORT: "3000" })).toThrow(
      /METRICS_PORT: must differ from PORT/,
    );
    expect(() => loadConfig({ ...base, METRICS_TOKEN: "short" })).toThrow(/METRICS_TOKEN/);
    expect(() => loadConfig({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: "collector" })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT/,
    );
    // Metrics are off unless a port or a token is given; the listener is private by default.
    expect(loadConfig(base).metrics).toEqual({
      port: undefined,
      host: "127.0.0.1",
      token: undefined,
      enabled: false,
    });
    expect(loadConfig({ ...base, METRICS_PORT: "9464" }).metrics).toMatchObject({
      port: 9464,
      enabled: true,
    });
    expect(loadConfig({ ...base, METRICS_TOKEN: "t".repeat(16) }).metrics).toMatchObject({ enabled: true });
    expect(loadConfig(base).otelEndpoint).toBeUndefined();
  });

  it("RATE_LIMITS overrides budgets; bad JSON, an unknown budget or scope, or a bad number stop with its name", () => {
    const dir = tmp();
    const base = { DATA_DIR: dir, UPLOADS_DIR: dir };
    const plain = loadConfig(base);
    expect(plain.budgets.upload).toEqual({
      address: { points: 600, duration: 3600 },
      account: { points: 30, duration: 3600 },
    });
    expect(plain.smsCountries).toEqual(["IN"]);
    const c = loadConfig({
      ...base,
      RATE_LIMITS: '{"upload":{"address":{"points":50}},"sms":{"pair":{"points":2,"duration":60}}}',
      SMS_COUNTRIES: "in, bd,NP",
    });
    expect(c.budgets.upload).toEqual({
      address: { points: 50, duration: 3600 },
      account: { points: 30, duration: 3600 },
    });
    expect(c.budgets.sms.pair).toEqual({ points: 2, duration: 60 });
    expect(c.smsCountries).toEqual(["IN", "BD", "NP"]);
    for (const bad of [
      "{upload:",
      "[1]",
      '{"uplod":{"address":{"points":5}}}',
      '{"publicForm":{"account":{"points":5}}}',
      '{"upload":{"address":{"points":0}}}',
      '{"upload":{"address":{"points":"many"}}}',
      '{"upload":{"address":{"points":5,"duration":1.5}}}',
    ]) {
      expect(() => loadConfig({ ...base, RATE_LIMITS: bad }), bad).toThrow(/RATE_LIMITS/);
    }
    expect(() => loadConfig({ ...base, SMS_COUNTRIES: "IN,XX" })).toThrow(/SMS_COUNTRIES.*XX/);
  });

  it("schedules in the clinic's time zone, India unless CLINIC_TIME_ZONE names another (decision 0092)", () => {
    const dir = tmp();
    const base = { DATA_DIR: dir, UPLOADS_DIR: path.join(dir, "up") };
    expect(loadConfig(base).clinic.timeZone).toBe("Asia/Kolkata");
    expect(loadConfig({ ...base, CLINIC_TIME_ZONE: "Asia/Dhaka" }).clinic.timeZone).toBe("Asia/Dhaka");
    expect(() => loadConfig({ ...base, CLINIC_TIME_ZONE: "India/Delhi" })).toThrow(/CLINIC_TIME_ZONE/);
    // The recovery sheet's name of the clinic: CLINIC_NAME, else the address's host.
    expect(loadConfig({ ...base, APP_URL: "https://care.clinic.example" }).clinic.name).toBe(
      "care.clinic.example",
    );
    expect(loadConfig({ ...base, CLINIC_NAME: "Rampur Clinic" }).clinic.name).toBe("Rampur Clinic");
  });

  it("honours explicit values", () => {
    const dir = tmp();
    const c = loadConfig({
      DATA_DIR: dir,
      UPLOADS_DIR: dir,
      DATABASE_URL: path.join(dir, "x.db"),
      MAX_UPLOAD_MB: "2",
      APP_URL: "https://clinic.example/",
      ENCRYPTION_KEY: "a".repeat(64),
      SESSION_SECRET: "s".repeat(40),
    });
    expect(c.databaseUrl).toBe(path.join(dir, "x.db"));
    expect(c.maxUploadBytes).toBe(2 * 1024 * 1024);
    expect(c.appUrl).toBe("https://clinic.example");
    expect(c.sessionSecret).toBe("s".repeat(40));
  });

  it("selects PostgreSQL and an S3 bucket by URL, and then wants the shared secrets set", () => {
    const dir = tmp();
    const base = { DATA_DIR: dir, UPLOADS_DIR: path.join(dir, "up") };
    const secrets = { ENCRYPTION_KEY: "b".repeat(64), SESSION_SECRET: "t".repeat(40) };
    const url = "postgres://app:pw@db.internal:5432/carebridge";
    // Nothing is generated for a shared database or bucket: without the settings it is refused.
    expect(() => loadConfig({ ...base, DATABASE_URL: url })).toThrow(/SESSION_SECRET\/ENCRYPTION_KEY/);
    expect(() => loadConfig({ ...base, STORAGE_URL: "s3://reports" })).toThrow(
      /SESSION_SECRET\/ENCRYPTION_KEY/,
    );
    expect(existsSync(path.join(dir, "secrets", "encryption-key"))).toBe(false);
    expect(loadConfig(base)).toMatchObject({ databaseKind: "sqlite", storage: { kind: "local" } });
    const c = loadConfig({
      ...base,
      ...secrets,
      DATABASE_URL: url,
      STORAGE_URL: "s3://cb-reports/clinic-1?endpoint=http://127.0.0.1:9000&region=ap-south-1",
      AWS_ACCESS_KEY_ID: "AK",
      AWS_SECRET_ACCESS_KEY: "SK",
    });
    expect(c).toMatchObject({
      databaseKind: "postgres",
      databaseUrl: url,
      storage: {
        kind: "s3",
        bucket: "cb-reports",
        prefix: "clinic-1/",
        endpoint: "http://127.0.0.1:9000",
        region: "ap-south-1",
        forcePathStyle: true,
        credentials: { accessKeyId: "AK", secretAccessKey: "SK" },
      },
    });
    // AWS itself: no endpoint, virtual-hosted addressing, credentials from the SDK's own chain.
    expect(
      loadConfig({ ...base, ...secrets, STORAGE_URL: "s3://cb-reports?region=eu-west-1" }).storage,
    ).toMatchObject({
      kind: "s3",
      endpoint: undefined,
      forcePathStyle: false,
      credentials: undefined,
    });
    expect(() => loadConfig({ ...base, ...secrets, STORAGE_URL: "s3://x" })).toThrow(/STORAGE_URL/);
    // A data folder that holds both (a restore put the backup's there, decision 0091) is enough;
    // the settings, when given, win.
    const restored = loadConfig({ ...base, DATABASE_URL: url });
    expect(restored.encryptionKey.toString("hex")).toBe(
      readFileSync(path.join(dir, "secrets", "encryption-key"), "utf8").trim(),
    );
    expect(loadConfig({ ...base, ...secrets, DATABASE_URL: url }).sessionSecret).toBe(secrets.SESSION_SECRET);
    expect(() => loadConfig({ ...base, ...secrets, STORAGE_URL: "s3://ok-bucket?endpoint=ftp://x" })).toThrow(
      /STORAGE_URL/,
    );
  });
});
