ALTER TABLE "patients" ADD COLUMN "slip_code_hash" text;--> statement-breakpoint
ALTER TABLE "patients" ADD COLUMN "slip_printed_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "patients" ADD COLUMN "slip_printed_by" text;--> statement-breakpoint
ALTER TABLE "patients" ADD COLUMN "slip_prints" integer DEFAULT 0 NOT NULL;