CREATE TABLE "jobs" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"key" text NOT NULL,
	"payload" text NOT NULL,
	"state" text DEFAULT 'queued' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	"run_at" timestamp (3) with time zone NOT NULL,
	"holder" text,
	"leased_until" timestamp (3) with time zone,
	"last_error" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX "jobs_kind_key_uq" ON "jobs" USING btree ("kind","key");--> statement-breakpoint
CREATE INDEX "jobs_kind_state_idx" ON "jobs" USING btree ("kind","state","run_at","id");--> statement-breakpoint
CREATE INDEX "jobs_state_lease_idx" ON "jobs" USING btree ("state","leased_until");--> statement-breakpoint
-- Decision 0113: messages not yet settled become the runner's jobs, with the attempts already made.
INSERT INTO "jobs" ("id", "kind", "key", "payload", "state", "attempts", "run_at", "last_error", "created_at")
SELECT 'sms-' || "id", 'sms', "id", json_build_object('id', "id")::text, 'queued', "attempts", "next_attempt_at", "last_error", "created_at"
FROM "sms_messages" WHERE "status" IN ('queued', 'sending');--> statement-breakpoint
INSERT INTO "jobs" ("id", "kind", "key", "payload", "state", "attempts", "run_at", "last_error", "created_at")
SELECT 'mail-' || "id", 'mail', "id", json_build_object('id', "id")::text, 'queued', "attempts", "next_attempt_at", "last_error", "created_at"
FROM "mail_messages" WHERE "status" IN ('queued', 'sending');
