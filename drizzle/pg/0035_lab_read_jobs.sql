-- Decision 0113: reads still waiting (or cut off mid-read) become the runner's jobs, with the attempts already made.
INSERT INTO "jobs" ("id", "kind", "key", "payload", "state", "attempts", "run_at", "last_error", "created_at")
SELECT 'lab-read-' || "report_id", 'lab-read', "report_id", json_build_object('reportId', "report_id")::text, 'queued', "attempts", "next_attempt_at", "last_error", "created_at"
FROM "lab_reads" WHERE "status" IN ('queued', 'reading')
ON CONFLICT DO NOTHING;
