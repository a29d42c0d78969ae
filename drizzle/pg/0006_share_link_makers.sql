-- Who made a sharing link: a family member's links end when the person revokes their access
-- (decision 0030). Links made before this were made by the person themself.
ALTER TABLE "share_links" ADD COLUMN "created_by" text;--> statement-breakpoint
ALTER TABLE "share_links" ADD CONSTRAINT "share_links_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
UPDATE "share_links" SET "created_by" = "patient_id" WHERE "patient_id" IN (SELECT "account_id" FROM "patients" WHERE "account_id" IS NOT NULL);