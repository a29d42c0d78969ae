-- Decision 0113: studies still waiting for the PACS become the runner's jobs, with the attempts already made.
INSERT INTO "jobs" ("id", "kind", "key", "payload", "state", "attempts", "run_at", "last_error", "created_at")
SELECT 'pacs-' || "report_id", 'pacs', "report_id", json_build_object('reportId', "report_id")::text, 'queued', "pacs_attempts", coalesce("pacs_next_at", "created_at"), "pacs_error", "created_at"
FROM "imaging_studies" WHERE "pacs_status" IN ('queued', 'sending');
