ALTER TABLE "reports" ADD COLUMN "claim_renewals" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "signer_first_name" text;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "signer_last_name" text;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "signer_registration_number" text;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "signer_registration_council" text;--> statement-breakpoint
CREATE INDEX "reports_claimed_by_idx" ON "reports" USING btree ("claimed_by","claim_expires_at");--> statement-breakpoint
-- Issue 19: letters signed before this migration keep the signer as they are now (the closest record there is).
UPDATE "reports" SET
  "signer_first_name" = (SELECT "first_name" FROM "users" WHERE "users"."id" = "reports"."expert_id"),
  "signer_last_name" = (SELECT "last_name" FROM "users" WHERE "users"."id" = "reports"."expert_id"),
  "signer_registration_number" = COALESCE((SELECT "registration_number" FROM "expert_profiles" WHERE "expert_profiles"."user_id" = "reports"."expert_id"), ''),
  "signer_registration_council" = COALESCE((SELECT "registration_council" FROM "expert_profiles" WHERE "expert_profiles"."user_id" = "reports"."expert_id"), '')
WHERE "status" = 'Reviewed' AND "expert_id" IS NOT NULL;
