CREATE TABLE "imaging_instances" (
	"id" text PRIMARY KEY NOT NULL,
	"report_id" text NOT NULL,
	"file_key" text NOT NULL,
	"series_uid" text NOT NULL,
	"series_number" integer,
	"series_description" text,
	"modality" text,
	"instance_number" integer,
	"sop_instance_uid" text NOT NULL,
	"rows" integer NOT NULL,
	"columns" integer NOT NULL,
	"frames" integer NOT NULL,
	"transfer_syntax" text NOT NULL,
	"size" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "imaging_previews" (
	"key" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"frame" integer NOT NULL,
	"preset" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "imaging_studies" (
	"report_id" text PRIMARY KEY NOT NULL,
	"study_uid" text NOT NULL,
	"modality" text,
	"body_part" text,
	"study_date" text,
	"description" text,
	"personal_fields" text NOT NULL,
	"pacs_status" text DEFAULT 'none' NOT NULL,
	"pacs_attempts" integer DEFAULT 0 NOT NULL,
	"pacs_next_at" timestamp (3) with time zone,
	"pacs_locked_until" timestamp (3) with time zone,
	"pacs_error" text,
	"pacs_sent_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "imaging_instances" ADD CONSTRAINT "imaging_instances_report_id_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."reports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "imaging_previews" ADD CONSTRAINT "imaging_previews_instance_id_imaging_instances_id_fk" FOREIGN KEY ("instance_id") REFERENCES "public"."imaging_instances"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "imaging_studies" ADD CONSTRAINT "imaging_studies_report_id_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."reports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "imaging_instances_report_idx" ON "imaging_instances" USING btree ("report_id","series_uid","instance_number","id");--> statement-breakpoint
CREATE INDEX "imaging_instances_file_key_idx" ON "imaging_instances" USING btree ("file_key");--> statement-breakpoint
CREATE UNIQUE INDEX "imaging_previews_uq" ON "imaging_previews" USING btree ("instance_id","frame","preset");--> statement-breakpoint
CREATE INDEX "imaging_studies_pacs_due_idx" ON "imaging_studies" USING btree ("pacs_status","pacs_next_at","report_id");