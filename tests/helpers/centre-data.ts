import type { TestDb } from "./db";

/**
 * A centre and its health workers written straight into a test server's database (the admin's
 * screens that make them are tested on their own): the tests that need a centre start from here.
 */
export async function insertCentre(
  db: TestDb,
  c: { id: string; name: string; kind?: string; district?: string; state?: string; pinCode?: string },
): Promise<void> {
  const now = db.time(Date.now());
  await db.run(
    "INSERT INTO centres (id, name, kind, district, state, pin_code, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    c.id,
    c.name,
    c.kind ?? "hwc",
    c.district ?? "Sitapur",
    c.state ?? "Uttar Pradesh",
    c.pinCode ?? "261001",
    now,
    now,
  );
}

/**
 * A signed-up account made a health worker of `centreId` (approved unless said otherwise): its own
 * patient profile removed, the account type changed, the worker row added.
 */
export async function makeHealthWorker(
  db: TestDb,
  userId: string,
  centreId: string,
  w: { role?: string; workerId: string; approved?: boolean; notify?: string },
): Promise<void> {
  await db.run("DELETE FROM patients WHERE id = ?", userId);
  const approved = w.approved ?? true;
  await db.run(
    `UPDATE users SET account_type = 'HealthWorker', approved = ?${w.notify ? ", notify = ?" : ""} WHERE id = ?`,
    db.kind === "sqlite" ? (approved ? 1 : 0) : approved,
    ...(w.notify ? [w.notify] : []),
    userId,
  );
  await db.run(
    "INSERT INTO health_workers (user_id, centre_id, role, worker_id, updated_at) VALUES (?, ?, ?, ?, ?)",
    userId,
    centreId,
    w.role ?? "cho",
    w.workerId,
    db.time(Date.now()),
  );
}
