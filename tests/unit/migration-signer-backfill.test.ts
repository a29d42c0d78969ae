import { describe, expect, it } from "vitest";
import { applyMigration, databaseBefore } from "../helpers/sqlite-migrations";

/*
 * The migration that adds the signer copy to reports fills it in for letters signed
 * before it, from the expert's details at migration time (SQLite; the PostgreSQL file has the
 * same statements in its dialect).
 */

describe("0007_consultation_round_two", () => {
  it("copies the signer's name, registration and council onto reviewed reports, and only those", () => {
    const db = databaseBefore("0007_consultation_round_two");
    db.exec(`
      INSERT INTO users (id, email, password_hash, first_name, last_name, account_type, created_at, updated_at) VALUES
        ('e1', 'e1@x.test', 'h', 'Ravi', 'Kumar', 'Expert', 0, 0),
        ('e2', 'e2@x.test', 'h', 'Nila', 'Bare', 'Expert', 0, 0),
        ('p1', 'p1@x.test', 'h', 'Asha', 'Patient', 'Patient', 0, 0);
      INSERT INTO expert_profiles (user_id, registration_number, registration_council, updated_at) VALUES
        ('e1', 'KMC-1001', 'Karnataka Medical Council', 0);
      INSERT INTO reports (id, patient_id, report_type, phone_number, file_key, file_name, mime_type, size, consent_at, status, expert_id, created_at, updated_at) VALUES
        ('r1', 'p1', 'X-Ray', '1', 'k1', 'a.pdf', 'application/pdf', 1, 0, 'Reviewed', 'e1', 0, 0),
        ('r2', 'p1', 'X-Ray', '1', 'k2', 'b.pdf', 'application/pdf', 1, 0, 'Reviewed', 'e2', 0, 0),
        ('r3', 'p1', 'X-Ray', '1', 'k3', 'c.pdf', 'application/pdf', 1, 0, 'Pending', NULL, 0, 0);
    `);
    applyMigration(db, "0007_consultation_round_two");
    const rows = db
      .prepare(
        "SELECT id, signer_first_name AS f, signer_last_name AS l, signer_registration_number AS n, signer_registration_council AS c, claim_renewals AS renewals FROM reports ORDER BY id",
      )
      .all();
    expect(rows).toEqual([
      { id: "r1", f: "Ravi", l: "Kumar", n: "KMC-1001", c: "Karnataka Medical Council", renewals: 0 },
      { id: "r2", f: "Nila", l: "Bare", n: "", c: "", renewals: 0 },
      { id: "r3", f: null, l: null, n: null, c: null, renewals: 0 },
    ]);
    db.close();
  });
});
