CREATE TABLE "voice_notes" (
	"id" text PRIMARY KEY NOT NULL,
	"report_id" text NOT NULL,
	"followup_id" text,
	"kind" text NOT NULL,
	"author_id" text,
	"language" text DEFAULT 'en' NOT NULL,
	"file_key" text NOT NULL,
	"mime_type" text NOT NULL,
	"size" integer NOT NULL,
	"duration_ms" integer NOT NULL,
	"heard_note" text,
	"heard_by" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "voice_notes" ADD CONSTRAINT "voice_notes_report_id_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."reports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "voice_notes" ADD CONSTRAINT "voice_notes_followup_id_report_followups_id_fk" FOREIGN KEY ("followup_id") REFERENCES "public"."report_followups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "voice_notes" ADD CONSTRAINT "voice_notes_author_id_users_id_fk" FOREIGN KEY ("author_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "voice_notes" ADD CONSTRAINT "voice_notes_heard_by_users_id_fk" FOREIGN KEY ("heard_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "voice_notes_report_idx" ON "voice_notes" USING btree ("report_id","created_at","id");--> statement-breakpoint
CREATE INDEX "voice_notes_file_key_idx" ON "voice_notes" USING btree ("file_key");