/**
 * npm run seed:demo — fills the configured database (DATA_DIR / DATABASE_URL, UPLOADS_DIR)
 * with demo accounts of every role and reports in both states, with real sample files,
 * for people trying the product. It never runs by itself. Idempotent per e-mail address.
 */

const PASSWORD = "Demo-pass-2026";

const { insertUser, findUserByEmail } = await import("../app/domain/accounts/users.server");
const { createReport, addReview } = await import("../app/domain/consultation/index.server");
const { approveExpert } = await import("../app/domain/accounts/experts.server");
const { expertDetailsSteps } = await import("../app/domain/accounts/expert-details.server");
const { storeUpload } = await import("../app/domain/records/files.server");
const { closeDatabase, migrateDatabase, transaction } = await import("../app/db/client.server");
const { hashPassword } = await import("../app/domain/accounts/passwords.server");
const { samplePdf, samplePng } = await import("./samples");

await migrateDatabase();
const passwordHash = await hashPassword(PASSWORD);

const fresh = new Set<string>();
async function user(
  email: string,
  firstName: string,
  lastName: string,
  accountType: "Patient" | "Expert" | "Admin",
) {
  const existing = await findUserByEmail(email);
  if (existing) return existing;
  fresh.add(email);
  return insertUser({ email, firstName, lastName, accountType, passwordHash, contactNumber: "9876543210" });
}

const actorOf = (u: {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
  accountType: any;
  approved: boolean;
  image: string | null;
  locale: string;
}) => ({
  ...u,
  sessionId: "seed",
});

async function* once(buf: Buffer) {
  yield new Uint8Array(buf);
}

const admin = await user("admin@demo.carebridge", "Asha", "Admin", "Admin");
const expert = await user("dr.rao@demo.carebridge", "Meera", "Rao", "Expert");
await user("dr.new@demo.carebridge", "Vikram", "Sen", "Expert"); // stays unapproved
const patient = await user("ravi@demo.carebridge", "Ravi", "Kumar", "Patient");
const patient2 = await user("lakshmi@demo.carebridge", "Lakshmi", "Iyer", "Patient");

const adminActor = actorOf(admin);
// An expert is approved only with a registration number (the opinion letter carries it).
await transaction(function* (tx) {
  yield* expertDetailsSteps(tx, expert.id, {
    registrationNumber: "KMC-2014-2231",
    registrationCouncil: "Karnataka Medical Council",
    yearsOfPractice: 12,
    specialties: ["Pathology", "Cardiology"],
  });
});
await approveExpert(adminActor, expert.id);
const expertActor = actorOf({ ...expert, approved: true });

const samples: [typeof patient, string, string, Buffer, string][] = [
  [
    patient,
    "Blood Test",
    "Fasting blood sugar and lipid profile.",
    samplePdf("Blood Test - Ravi Kumar"),
    "blood-test.pdf",
  ],
  [
    patient,
    "X-Ray",
    "Chest X-ray after a cough of three weeks.",
    samplePng(64, 64, [40, 40, 40]),
    "chest-xray.png",
  ],
  [patient2, "ECG", "", samplePdf("ECG - Lakshmi Iyer"), "ecg.pdf"],
  [patient2, "Eye Exam", "Blurred vision when reading.", samplePng(48, 48, [200, 160, 60]), "eye-exam.png"],
];

let made = 0;
for (const [p, reportType, description, data, name] of samples) {
  if (!fresh.has(p.email)) continue; // reports only for accounts made by this run
  const file = await storeUpload(once(data), {
    maxBytes: 10 * 1024 * 1024,
    allowed: "report",
    fileName: name,
  });
  const report = await createReport(
    actorOf(p),
    { reportType, description, phoneNumber: "9876543210", countryCode: "+91", consent: "on" },
    file,
  );
  made++;
  if (reportType === "Blood Test" || reportType === "ECG") {
    await addReview(expertActor, report._id, {
      review: "Values are within the normal range. No action needed; repeat the test in twelve months.",
    });
  }
}
await closeDatabase();
console.log(`Demo data ready: ${made} reports. Accounts (password ${PASSWORD}):
  admin@demo.carebridge (Admin)
  dr.rao@demo.carebridge (approved Expert), dr.new@demo.carebridge (unapproved Expert)
  ravi@demo.carebridge, lakshmi@demo.carebridge (Patients)`);
export {};
