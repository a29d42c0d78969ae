CREATE TABLE "backup_runs" (
	"id" text PRIMARY KEY NOT NULL,
	"slot" timestamp (3) with time zone,
	"trigger" text NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"node" text NOT NULL,
	"repository" text NOT NULL,
	"started_at" timestamp (3) with time zone NOT NULL,
	"finished_at" timestamp (3) with time zone,
	"duration_ms" integer,
	"snapshot_id" text,
	"size_bytes" bigint,
	"added_bytes" bigint,
	"files" integer,
	"reason" text,
	"alerted_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "recovery_sheets" (
	"id" text PRIMARY KEY NOT NULL,
	"printed_by" text,
	"repository" text NOT NULL,
	"password_tag" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "recovery_sheets" ADD CONSTRAINT "recovery_sheets_printed_by_users_id_fk" FOREIGN KEY ("printed_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "backup_runs_slot_uq" ON "backup_runs" USING btree ("slot");--> statement-breakpoint
CREATE INDEX "backup_runs_started_idx" ON "backup_runs" USING btree ("started_at");--> statement-breakpoint
CREATE INDEX "recovery_sheets_repository_idx" ON "recovery_sheets" USING btree ("repository","password_tag");