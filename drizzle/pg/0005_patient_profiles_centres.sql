CREATE TABLE "centres" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"district" text DEFAULT '' NOT NULL,
	"state" text DEFAULT '' NOT NULL,
	"pin_code" text DEFAULT '' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "health_workers" (
	"user_id" text PRIMARY KEY NOT NULL,
	"centre_id" text NOT NULL,
	"role" text NOT NULL,
	"worker_id" text DEFAULT '' NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "patient_consents" (
	"id" text PRIMARY KEY NOT NULL,
	"patient_id" text NOT NULL,
	"kind" text NOT NULL,
	"granted" boolean DEFAULT true NOT NULL,
	"text_version" text NOT NULL,
	"locale" text DEFAULT 'en' NOT NULL,
	"method" text NOT NULL,
	"witness_name" text,
	"evidence_key" text,
	"recorded_by" text,
	"recorded_by_name" text DEFAULT '' NOT NULL,
	"centre_id" text,
	"relationship" text DEFAULT '' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "patient_managers" (
	"patient_id" text NOT NULL,
	"manager_id" text NOT NULL,
	"relationship" text DEFAULT '' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp (3) with time zone,
	CONSTRAINT "patient_managers_patient_id_manager_id_pk" PRIMARY KEY("patient_id","manager_id")
);
--> statement-breakpoint
CREATE TABLE "patients" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text,
	"first_name" text NOT NULL,
	"last_name" text DEFAULT '' NOT NULL,
	"sex" text,
	"birth_year" integer,
	"birth_year_estimated" boolean DEFAULT false NOT NULL,
	"locality" text DEFAULT '' NOT NULL,
	"locale" text DEFAULT 'en' NOT NULL,
	"phone" text,
	"phone_owner" text DEFAULT 'none' NOT NULL,
	"phone_relationship" text DEFAULT '' NOT NULL,
	"centre_id" text,
	"centre_access_revoked_at" timestamp (3) with time zone,
	"registered_by" text,
	"short_id" text,
	"taken_over_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
-- Every existing patient account becomes its own patient profile, under the same id (so the API's
-- patientId is unchanged); so does any other account that owns a report or a sharing link. Foreign keys
-- move to patients below, once these rows exist.
INSERT INTO "patients" ("id", "account_id", "first_name", "last_name", "locale", "phone", "phone_owner", "created_at", "updated_at")
SELECT "id", "id", "first_name", "last_name", "locale", "phone", CASE WHEN "phone" IS NULL THEN 'none' ELSE 'self' END, "created_at", "updated_at"
FROM "users"
WHERE "account_type" = 'Patient' OR "id" IN (SELECT "patient_id" FROM "reports") OR "id" IN (SELECT "patient_id" FROM "share_links");
--> statement-breakpoint
ALTER TABLE "reports" DROP CONSTRAINT "reports_patient_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "share_links" DROP CONSTRAINT "share_links_patient_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "health_workers" ADD CONSTRAINT "health_workers_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "health_workers" ADD CONSTRAINT "health_workers_centre_id_centres_id_fk" FOREIGN KEY ("centre_id") REFERENCES "public"."centres"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "patient_consents" ADD CONSTRAINT "patient_consents_patient_id_patients_id_fk" FOREIGN KEY ("patient_id") REFERENCES "public"."patients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "patient_consents" ADD CONSTRAINT "patient_consents_recorded_by_users_id_fk" FOREIGN KEY ("recorded_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "patient_consents" ADD CONSTRAINT "patient_consents_centre_id_centres_id_fk" FOREIGN KEY ("centre_id") REFERENCES "public"."centres"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "patient_managers" ADD CONSTRAINT "patient_managers_patient_id_patients_id_fk" FOREIGN KEY ("patient_id") REFERENCES "public"."patients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "patient_managers" ADD CONSTRAINT "patient_managers_manager_id_users_id_fk" FOREIGN KEY ("manager_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "patients" ADD CONSTRAINT "patients_account_id_users_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "patients" ADD CONSTRAINT "patients_centre_id_centres_id_fk" FOREIGN KEY ("centre_id") REFERENCES "public"."centres"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "patients" ADD CONSTRAINT "patients_registered_by_users_id_fk" FOREIGN KEY ("registered_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "centres_name_idx" ON "centres" USING btree ("name","id");--> statement-breakpoint
CREATE INDEX "health_workers_centre_idx" ON "health_workers" USING btree ("centre_id","user_id");--> statement-breakpoint
CREATE INDEX "patient_consents_patient_idx" ON "patient_consents" USING btree ("patient_id","created_at","id");--> statement-breakpoint
CREATE INDEX "patient_consents_evidence_idx" ON "patient_consents" USING btree ("evidence_key");--> statement-breakpoint
CREATE INDEX "patient_managers_manager_idx" ON "patient_managers" USING btree ("manager_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "patients_account_uq" ON "patients" USING btree ("account_id");--> statement-breakpoint
CREATE UNIQUE INDEX "patients_short_id_uq" ON "patients" USING btree ("short_id");--> statement-breakpoint
CREATE INDEX "patients_centre_created_idx" ON "patients" USING btree ("centre_id","created_at","id");--> statement-breakpoint
CREATE INDEX "patients_phone_idx" ON "patients" USING btree ("phone");--> statement-breakpoint
ALTER TABLE "reports" ADD CONSTRAINT "reports_patient_id_patients_id_fk" FOREIGN KEY ("patient_id") REFERENCES "public"."patients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "share_links" ADD CONSTRAINT "share_links_patient_id_patients_id_fk" FOREIGN KEY ("patient_id") REFERENCES "public"."patients"("id") ON DELETE cascade ON UPDATE no action;