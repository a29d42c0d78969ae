CREATE TABLE "next_steps" (
	"id" text PRIMARY KEY NOT NULL,
	"report_id" text NOT NULL,
	"patient_id" text NOT NULL,
	"centre_id" text,
	"expert_id" text,
	"position" integer NOT NULL,
	"kind" text NOT NULL,
	"loincs" text,
	"specialty" text,
	"facility" text,
	"urgency" text,
	"reason" text,
	"in_days" integer NOT NULL,
	"due_on" text NOT NULL,
	"state" text DEFAULT 'open' NOT NULL,
	"state_reason" text,
	"state_at" timestamp (3) with time zone,
	"state_by" text,
	"attached_report_id" text,
	"referral_code" text,
	"referral_seen_at" timestamp (3) with time zone,
	"referral_note" text,
	"remind_off" boolean DEFAULT false NOT NULL,
	"snoozed_until" text,
	"reminders_sent" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "patients" ADD COLUMN "remind_by" text DEFAULT 'sms' NOT NULL;--> statement-breakpoint
ALTER TABLE "patients" ADD COLUMN "remind_hour" integer DEFAULT 9 NOT NULL;--> statement-breakpoint
ALTER TABLE "next_steps" ADD CONSTRAINT "next_steps_report_id_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."reports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "next_steps" ADD CONSTRAINT "next_steps_patient_id_patients_id_fk" FOREIGN KEY ("patient_id") REFERENCES "public"."patients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "next_steps" ADD CONSTRAINT "next_steps_centre_id_centres_id_fk" FOREIGN KEY ("centre_id") REFERENCES "public"."centres"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "next_steps" ADD CONSTRAINT "next_steps_expert_id_users_id_fk" FOREIGN KEY ("expert_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "next_steps" ADD CONSTRAINT "next_steps_state_by_users_id_fk" FOREIGN KEY ("state_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "next_steps" ADD CONSTRAINT "next_steps_attached_report_id_reports_id_fk" FOREIGN KEY ("attached_report_id") REFERENCES "public"."reports"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "next_steps_report_idx" ON "next_steps" USING btree ("report_id","position");--> statement-breakpoint
CREATE INDEX "next_steps_patient_idx" ON "next_steps" USING btree ("patient_id","due_on","id");--> statement-breakpoint
CREATE INDEX "next_steps_centre_idx" ON "next_steps" USING btree ("centre_id","state","due_on","id");--> statement-breakpoint
CREATE INDEX "next_steps_state_due_idx" ON "next_steps" USING btree ("state","due_on","id");--> statement-breakpoint
CREATE INDEX "next_steps_expert_idx" ON "next_steps" USING btree ("expert_id","state","due_on","id");--> statement-breakpoint
CREATE UNIQUE INDEX "next_steps_referral_code_uq" ON "next_steps" USING btree ("referral_code");