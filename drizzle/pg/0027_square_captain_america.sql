ALTER TABLE "lab_values" ALTER COLUMN "value" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "lab_values" ADD COLUMN "value_text" text;