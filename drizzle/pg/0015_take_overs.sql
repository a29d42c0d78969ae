CREATE TABLE "take_overs" (
	"id" text PRIMARY KEY NOT NULL,
	"patient_id" text NOT NULL,
	"started_by" text,
	"started_as" text NOT NULL,
	"phone" text NOT NULL,
	"previous" text DEFAULT '{}' NOT NULL,
	"keep_access" boolean DEFAULT false NOT NULL,
	"report_token_hash" text NOT NULL,
	"reported_at" timestamp (3) with time zone,
	"flag" text,
	"reviewed_at" timestamp (3) with time zone,
	"reviewed_by" text,
	"undone_at" timestamp (3) with time zone,
	"undone_by" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "take_overs" ADD CONSTRAINT "take_overs_patient_id_patients_id_fk" FOREIGN KEY ("patient_id") REFERENCES "public"."patients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "take_overs" ADD CONSTRAINT "take_overs_started_by_users_id_fk" FOREIGN KEY ("started_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "take_overs" ADD CONSTRAINT "take_overs_reviewed_by_users_id_fk" FOREIGN KEY ("reviewed_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "take_overs" ADD CONSTRAINT "take_overs_undone_by_users_id_fk" FOREIGN KEY ("undone_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "take_overs_token_uq" ON "take_overs" USING btree ("report_token_hash");--> statement-breakpoint
CREATE INDEX "take_overs_patient_idx" ON "take_overs" USING btree ("patient_id","created_at");--> statement-breakpoint
CREATE INDEX "take_overs_started_by_idx" ON "take_overs" USING btree ("started_by");--> statement-breakpoint
CREATE INDEX "take_overs_created_idx" ON "take_overs" USING btree ("created_at","id");