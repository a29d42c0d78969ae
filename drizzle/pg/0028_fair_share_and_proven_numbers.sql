CREATE TABLE "preview_cache" (
	"key" text PRIMARY KEY NOT NULL,
	"file_key" text NOT NULL,
	"owner" text NOT NULL,
	"bytes" integer NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "proven_numbers" (
	"id" text PRIMARY KEY NOT NULL,
	"number" text NOT NULL,
	"patient_id" text NOT NULL,
	"how" text NOT NULL,
	"proven_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "work_failures" (
	"kind" text NOT NULL,
	"subject" text NOT NULL,
	"reason" text NOT NULL,
	"failed_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "work_failures_kind_subject_pk" PRIMARY KEY("kind","subject")
);
--> statement-breakpoint
CREATE TABLE "work_turns" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"account" text NOT NULL,
	"node" text NOT NULL,
	"state" text NOT NULL,
	"leased_until" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "proven_numbers" ADD CONSTRAINT "proven_numbers_patient_id_patients_id_fk" FOREIGN KEY ("patient_id") REFERENCES "public"."patients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "preview_cache_owner_idx" ON "preview_cache" USING btree ("owner","created_at");--> statement-breakpoint
CREATE INDEX "preview_cache_file_idx" ON "preview_cache" USING btree ("file_key");--> statement-breakpoint
CREATE UNIQUE INDEX "proven_numbers_uq" ON "proven_numbers" USING btree ("patient_id","number");--> statement-breakpoint
CREATE INDEX "work_turns_kind_idx" ON "work_turns" USING btree ("kind","state","node");--> statement-breakpoint
CREATE INDEX "work_turns_account_idx" ON "work_turns" USING btree ("kind","account");