ALTER TABLE `patients` ADD `slip_code_hash` text;--> statement-breakpoint
ALTER TABLE `patients` ADD `slip_printed_at` integer;--> statement-breakpoint
ALTER TABLE `patients` ADD `slip_printed_by` text;--> statement-breakpoint
ALTER TABLE `patients` ADD `slip_prints` integer DEFAULT 0 NOT NULL;