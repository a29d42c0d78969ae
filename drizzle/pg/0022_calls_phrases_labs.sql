CREATE TABLE "lab_reads" (
	"report_id" text PRIMARY KEY NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"source" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp (3) with time zone NOT NULL,
	"locked_until" timestamp (3) with time zone,
	"last_error" text,
	"duration_ms" integer,
	"finished_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "lab_values" (
	"id" text PRIMARY KEY NOT NULL,
	"report_id" text NOT NULL,
	"loinc" text NOT NULL,
	"printed_name" text DEFAULT '' NOT NULL,
	"value" double precision NOT NULL,
	"unit" text NOT NULL,
	"printed_value" text DEFAULT '' NOT NULL,
	"printed_unit" text,
	"range_text" text,
	"range_low" double precision,
	"range_high" double precision,
	"flag" text,
	"page" integer,
	"box" text,
	"confidence" double precision,
	"status" text DEFAULT 'read' NOT NULL,
	"checked_by" text,
	"checked_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "phone_calls" (
	"id" text PRIMARY KEY NOT NULL,
	"direction" text NOT NULL,
	"number" text NOT NULL,
	"patient_id" text,
	"purpose" text NOT NULL,
	"locale" text DEFAULT 'en' NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"outcome" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp (3) with time zone NOT NULL,
	"locked_until" timestamp (3) with time zone,
	"last_error" text,
	"provider_ref" text,
	"ivr_state" text,
	"answered_at" timestamp (3) with time zone,
	"verified_at" timestamp (3) with time zone,
	"ended_at" timestamp (3) with time zone,
	"duration_ms" integer,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "phrases" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"en" text NOT NULL,
	"hi" text NOT NULL,
	"bn" text NOT NULL,
	"ta" text NOT NULL,
	"reviewed_by" text NOT NULL,
	"created_by" text,
	"retired_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "patients" ADD COLUMN "notice_by" text DEFAULT 'sms' NOT NULL;--> statement-breakpoint
ALTER TABLE "patients" ADD COLUMN "call_window" text DEFAULT 'morning' NOT NULL;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "phrase_ids" text;--> statement-breakpoint
ALTER TABLE "voice_notes" ADD COLUMN "phone_file_key" text;--> statement-breakpoint
ALTER TABLE "voice_notes" ADD COLUMN "phone_duration_ms" integer;--> statement-breakpoint
ALTER TABLE "lab_reads" ADD CONSTRAINT "lab_reads_report_id_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."reports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lab_values" ADD CONSTRAINT "lab_values_report_id_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."reports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lab_values" ADD CONSTRAINT "lab_values_checked_by_users_id_fk" FOREIGN KEY ("checked_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "phone_calls" ADD CONSTRAINT "phone_calls_patient_id_patients_id_fk" FOREIGN KEY ("patient_id") REFERENCES "public"."patients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "phrases" ADD CONSTRAINT "phrases_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "lab_reads_due_idx" ON "lab_reads" USING btree ("status","next_attempt_at","report_id");--> statement-breakpoint
CREATE INDEX "lab_values_report_idx" ON "lab_values" USING btree ("report_id","page","id");--> statement-breakpoint
CREATE INDEX "lab_values_loinc_idx" ON "lab_values" USING btree ("loinc","report_id");--> statement-breakpoint
CREATE INDEX "phone_calls_due_idx" ON "phone_calls" USING btree ("status","next_attempt_at","id");--> statement-breakpoint
CREATE INDEX "phone_calls_created_idx" ON "phone_calls" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "phone_calls_number_idx" ON "phone_calls" USING btree ("number","created_at");--> statement-breakpoint
CREATE INDEX "phone_calls_patient_idx" ON "phone_calls" USING btree ("patient_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "phone_calls_provider_ref_uq" ON "phone_calls" USING btree ("provider_ref");--> statement-breakpoint
CREATE INDEX "phrases_created_idx" ON "phrases" USING btree ("created_at","id");