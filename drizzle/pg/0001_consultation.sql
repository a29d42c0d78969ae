CREATE TABLE "expert_profiles" (
	"user_id" text PRIMARY KEY NOT NULL,
	"registration_number" text DEFAULT '' NOT NULL,
	"registration_council" text DEFAULT '' NOT NULL,
	"years_of_practice" integer,
	"approved_by" text,
	"approved_at" timestamp (3) with time zone,
	"rejected_at" timestamp (3) with time zone,
	"rejection_reason" text,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "expert_specialties" (
	"user_id" text NOT NULL,
	"specialty" text NOT NULL,
	CONSTRAINT "expert_specialties_user_id_specialty_pk" PRIMARY KEY("user_id","specialty")
);
--> statement-breakpoint
CREATE TABLE "report_followups" (
	"id" text PRIMARY KEY NOT NULL,
	"report_id" text NOT NULL,
	"question" text NOT NULL,
	"asked_at" timestamp (3) with time zone NOT NULL,
	"answer" text,
	"answered_by" text,
	"answered_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "priority" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "urgent_reason" text;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "claimed_by" text;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "claimed_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "claim_expires_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "findings" text;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "recommendations" text;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "see_doctor_soon" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "letter_code" text;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "followup_expert_id" text;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "overdue_notified_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "expert_profiles" ADD CONSTRAINT "expert_profiles_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "expert_profiles" ADD CONSTRAINT "expert_profiles_approved_by_users_id_fk" FOREIGN KEY ("approved_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "expert_specialties" ADD CONSTRAINT "expert_specialties_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "report_followups" ADD CONSTRAINT "report_followups_report_id_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."reports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "report_followups" ADD CONSTRAINT "report_followups_answered_by_users_id_fk" FOREIGN KEY ("answered_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "expert_specialties_specialty_idx" ON "expert_specialties" USING btree ("specialty","user_id");--> statement-breakpoint
CREATE INDEX "report_followups_report_idx" ON "report_followups" USING btree ("report_id","asked_at","id");--> statement-breakpoint
ALTER TABLE "reports" ADD CONSTRAINT "reports_claimed_by_users_id_fk" FOREIGN KEY ("claimed_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reports" ADD CONSTRAINT "reports_followup_expert_id_users_id_fk" FOREIGN KEY ("followup_expert_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "reports_queue_idx" ON "reports" USING btree ("status","priority","created_at","id");--> statement-breakpoint
CREATE INDEX "reports_queue_type_idx" ON "reports" USING btree ("status","report_type","priority","created_at","id");--> statement-breakpoint
CREATE INDEX "reports_followup_expert_idx" ON "reports" USING btree ("followup_expert_id","reviewed_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "reports_letter_code_uq" ON "reports" USING btree ("letter_code");